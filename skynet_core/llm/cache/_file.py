"""The cache's file: answers by key in SQLite, bounded (least recently used out), with the answers found last
held in memory and identical calls in flight made once."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from ...store import connect, data_dir, open_database
from ._answer import CachedAnswer, Source
from ._calls import CaseCalls
from ._setting import cache_setting

CACHE_DB_NAME = "llm-cache.sqlite3"
"""The cache's own file in the data directory (beside the studio's database, ``studio.sqlite3``)."""
EVICT_TO = 0.9
"""Past the bound, the least recently used answers go until the cache is at this share of it."""
MEMORY_BYTES = 8_000_000
"""The most text of answers a process holds in memory, in front of the file."""
TOUCH_EVERY_S = 2.0
"""How long after the first unwritten use of answers found in memory their use is written to the file. Never
sooner, unless :data:`TOUCH_BATCH` are waiting: a re-score that takes less than this is not slowed by the
write, whose thread would compete with it for the interpreter (a 200-case re-score took 10 ms more when its
first lookup started the write)."""
TOUCH_BATCH = 512

_SCHEMA = """
CREATE TABLE IF NOT EXISTS llm_answers (
    key TEXT PRIMARY KEY,
    answer TEXT NOT NULL,
    bytes INTEGER NOT NULL,
    created_at REAL NOT NULL,
    used_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS llm_answers_by_use ON llm_answers (used_at);
"""


@dataclass(frozen=True)
class CacheUsage:
    """How full the cache is: ``entries`` answers taking ``bytes`` (their stored size) of ``max_bytes``;
    ``file_bytes`` is the size of the SQLite file and its journal on disk."""

    entries: int
    bytes: int
    max_bytes: int
    file_bytes: int


class _Flight:
    """One call being made: the callers of an identical call wait for its answer or its error."""

    __slots__ = ("answer", "done", "error")

    def __init__(self) -> None:
        self.done = threading.Event()
        self.answer: CachedAnswer | None = None
        self.error: BaseException | None = None

    def result(self) -> CachedAnswer:
        self.done.wait()
        if self.error is not None:
            raise self.error
        assert self.answer is not None
        return self.answer

    def finish(self, answer: CachedAnswer | None = None, error: BaseException | None = None) -> None:
        self.answer, self.error = answer, error
        self.done.set()


class LlmCache:
    """The answers of one data directory's cache file. Thread-safe; several processes may share the file.

    Each operation has a connection of its own while it runs (:func:`skynet_core.store.connect`, as
    :class:`skynet_core.store.Store`). The answers
    this process stored or found last are also held in memory (:data:`MEMORY_BYTES`), so that scoring
    again finds them in microseconds; that their use makes them recent is written to the file in
    batches (at most :data:`TOUCH_EVERY_S` late, and always before an eviction). ``case_calls`` remembers
    which calls each case made when last scored, to send their answers ahead (in memory only).
    """

    def __init__(
        self,
        directory: str | Path | None = None,
        max_bytes: int | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.directory = Path(directory) if directory is not None else data_dir()
        self._max_bytes = max_bytes
        self._clock = clock
        self._lock = threading.Lock()
        self._flights: dict[str, _Flight] = {}
        self._total: int | None = None  # the stored bytes as this process last counted them
        self._path: Path | None = None
        self._memory: OrderedDict[str, CachedAnswer] = OrderedDict()
        self._memory_bytes = 0
        self._touched: dict[str, float] = {}  # answers found in memory, and when: their use not yet written
        self._writing = False  # a thread is writing the touches
        self._timed = False  # a timer will write them (TOUCH_EVERY_S after the first)
        self._write_lock = threading.Lock()
        self.case_calls = CaseCalls()

    @property
    def max_bytes(self) -> int:
        """The bound: as given, else the data directory's ``llm.cache`` setting (read once, when first needed)."""
        if self._max_bytes is None:
            from ...store import DB_NAME, Store

            saved = self.directory / DB_NAME
            self._max_bytes = cache_setting(Store(self.directory) if saved.exists() else None).max_bytes
        return self._max_bytes

    @max_bytes.setter
    def max_bytes(self, value: int) -> None:
        self._max_bytes = value

    @property
    def path(self) -> Path:
        """The cache's file, created on first use (a run that makes no model call never opens it)."""
        if self._path is None:
            with self._lock:
                if self._path is None:
                    self._path = open_database(self.directory, _SCHEMA, CACHE_DB_NAME)[1]
        return self._path

    def on_disk(self) -> bool:
        """Whether the cache's file exists: answers were stored before (a hint only; opens nothing)."""
        return self._path is not None or (self.directory / CACHE_DB_NAME).exists()

    def lookup(self, key: str) -> CachedAnswer | None:
        """The answer stored under ``key`` (marked as just used), or None."""
        remembered = self.remembered(key)
        if remembered is not None:
            return remembered
        now = self._clock()
        with self._connect() as db:
            row = db.execute("SELECT answer FROM llm_answers WHERE key = ?", (key,)).fetchone()
            if row is None:
                return None
            db.execute("UPDATE llm_answers SET used_at = ? WHERE key = ?", (now, key))
        found = CachedAnswer.from_json(row[0])
        if found is not None:
            self._remember(key, found)
        return found

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        """A short connection (:func:`skynet_core.store.connect`) that commits without waiting for the disk:
        a cache loses nothing it cannot ask for again, and a commit that syncs took 30 to 50 ms here."""
        with connect(self.path) as db:
            db.execute("PRAGMA synchronous=NORMAL")
            yield db

    def remembered(self, key: str) -> CachedAnswer | None:
        """The answer under ``key`` when this process holds it in memory (no file access, no wait), else
        None; found, it counts as used, as :meth:`lookup` does."""
        return self.remembered_many((key,))[0]

    def remembered_many(self, keys: Sequence[str]) -> list[CachedAnswer | None]:
        """:meth:`remembered` for each of ``keys``, at once."""
        now = self._clock()
        with self._lock:
            memory, touched = self._memory, self._touched
            found = [memory.get(key) for key in keys]
            for key, answer in zip(keys, found, strict=True):
                if answer is not None:
                    memory.move_to_end(key)
                    touched[key] = now
            full = not self._writing and len(touched) >= TOUCH_BATCH
            timer = touched and not full and not self._timed
            self._writing, self._timed = self._writing or full, self._timed or bool(timer)
        # Written beside the calls, not in their way (a commit takes milliseconds on a busy disk).
        if full:
            threading.Thread(target=self._write_touches, daemon=True, name="skynet-cache-touches").start()
        elif timer:
            later = threading.Timer(TOUCH_EVERY_S, self._write_touches, kwargs={"timed": True})
            later.name, later.daemon = "skynet-cache-touches", True
            later.start()
        return found

    def _remember(self, key: str, answer: CachedAnswer) -> None:
        with self._lock:
            old = self._memory.pop(key, None)
            self._memory_bytes -= len(old.text) if old is not None else 0
            self._memory[key] = answer
            self._memory_bytes += len(answer.text)
            while self._memory_bytes > MEMORY_BYTES and len(self._memory) > 1:
                self._memory_bytes -= len(self._memory.popitem(last=False)[1].text)

    def _write_touches(self, timed: bool = False) -> None:
        """Write when the answers found in memory were used (the file's order of use is then exact). One
        writer at a time: an eviction waits for a write in the background to land first. ``timed``: the
        timer's write (the next use starts another)."""
        with self._write_lock:
            with self._lock:
                touched, self._touched = self._touched, {}
                self._timed = self._timed and not timed
            try:
                if touched:
                    with self._connect() as db:
                        db.executemany(
                            "UPDATE llm_answers SET used_at = ? WHERE key = ?",
                            [(when, key) for key, when in touched.items()],
                        )
            finally:
                with self._lock:
                    self._writing = False

    def store(self, key: str, answer: CachedAnswer) -> None:
        """Keep ``answer`` under ``key``, then evict the least recently used answers past the bound."""
        data = answer.to_json()
        size = len(data) + len(key)
        if size > self.max_bytes:
            return  # one answer larger than the whole cache is not kept
        now = self._clock()
        with self._connect() as db:
            old = db.execute("SELECT bytes FROM llm_answers WHERE key = ?", (key,)).fetchone()
            db.execute(
                "INSERT INTO llm_answers (key, answer, bytes, created_at, used_at) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET answer = excluded.answer, bytes = excluded.bytes, "
                "used_at = excluded.used_at",
                (key, data.decode(), size, now, now),
            )
        self._remember(key, answer)
        with self._lock:
            if self._total is not None:
                self._total += size - (old[0] if old else 0)
            over = self._total is None or self._total > self.max_bytes
        if over:
            self._evict()

    def answer(self, key: str, call: Callable[[], CachedAnswer]) -> tuple[CachedAnswer, Source]:
        """The answer for ``key``: stored, or the one an identical call in flight gets, or ``call()``'s
        (then stored). ``call`` raising fails every call waiting for it with the same error (none is
        stored)."""
        with self._lock:
            flight = self._flights.get(key)
            leader = flight is None
            if flight is None:
                flight = self._flights[key] = _Flight()
        if not leader:
            return flight.result(), Source.SHARED
        try:
            # Looked up after becoming the leader: an identical call that just finished stored its answer
            # before it left the flights, so it is found here rather than asked for again.
            stored = self.lookup(key)
            if stored is not None:
                flight.finish(stored)
                return stored, Source.CACHE
            fresh = call()
            self.store(key, fresh)
            flight.finish(fresh)
            return fresh, Source.PROVIDER
        except BaseException as exc:
            flight.finish(error=exc)
            raise
        finally:
            with self._lock:
                del self._flights[key]

    def usage(self) -> CacheUsage:
        """How many answers the cache holds and how large it is."""
        self._write_touches()
        with self._connect() as db:
            entries, stored = db.execute("SELECT COUNT(*), COALESCE(SUM(bytes), 0) FROM llm_answers").fetchone()
        with self._lock:
            self._total = int(stored)
        on_disk = sum(
            path.stat().st_size for path in (self.path, self.path.with_name(self.path.name + "-wal")) if path.exists()
        )
        return CacheUsage(int(entries), int(stored), self.max_bytes, on_disk)

    def clear(self) -> None:
        """Forget every answer and give the space back to the file system."""
        with self._connect() as db:
            db.execute("DELETE FROM llm_answers")
        db = sqlite3.connect(self.path)
        try:
            db.execute("VACUUM")
        finally:
            db.close()
        with self._lock:
            self._total = 0
            self._memory.clear()
            self._memory_bytes = 0
            self._touched.clear()
        self.case_calls.clear()

    def _evict(self) -> None:
        """Bring the cache under its bound: the least recently used answers go until it holds
        :data:`EVICT_TO` of it (counted afresh: other processes write the same file)."""
        self._write_touches()
        doomed: list[tuple[str]] = []
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            (total,) = db.execute("SELECT COALESCE(SUM(bytes), 0) FROM llm_answers").fetchone()
            if total > self.max_bytes:
                goal = total - int(self.max_bytes * EVICT_TO)
                freed = 0
                for key, size in db.execute("SELECT key, bytes FROM llm_answers ORDER BY used_at, rowid"):
                    if freed >= goal:
                        break
                    doomed.append((key,))
                    freed += size
                db.executemany("DELETE FROM llm_answers WHERE key = ?", doomed)
                total -= freed
        with self._lock:
            self._total = int(total)
            for (key,) in doomed:
                gone = self._memory.pop(key, None)
                self._memory_bytes -= len(gone.text) if gone is not None else 0
