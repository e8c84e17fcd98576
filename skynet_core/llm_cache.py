"""A cache of the metric's ``llm()`` answers, so that scoring again after an edit that left the calls alone
costs no model call.

What is keyed (:class:`AnswerRequest`): everything :func:`skynet_core.llm.complete` sends that can change
the answer, and nothing else: the model, the API base, the instructions, the input, the temperature, a
mock response, and ``repeat``, the number of identical calls the same case made before this one (a metric
that asks the same question five times to take a vote gets five answers, each cached). Never the key:
a request's credentials, timeout and retries change how it is made, not what comes back
(:data:`NEUTRAL_PARAMETERS`; a test pins that every parameter ``complete`` sends is one or the other).

Where it lives: its own SQLite file in the data directory (:data:`CACHE_DB_NAME`), shared by the app and
the command line, bounded to ``max_mb`` (least recently used out, :data:`DEFAULT_MAX_MB` unless the
``llm.cache`` setting says otherwise). Answers are stored redacted (as the metric receives them), with the
tokens and cost of the call that made them; a cached answer costs nothing, and its trace says so.

Identical calls in flight at the same moment are made once (:meth:`LlmCache.answer`): the others wait for
the first one's answer (or its error).

Who bypasses it: the command line's ``--no-cache``, the ``llm.cache`` setting turned off, and every
measurement of variance (judge consistency asks the model afresh for each run, and says so). Errors are
never cached.
"""

from __future__ import annotations

import math
import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import orjson

from .i18n import N_
from .store import connect, data_dir, open_database

if TYPE_CHECKING:
    from .runner.worker import LlmHandler
    from .store import Store

CACHE_DB_NAME = "llm-cache.sqlite3"
"""The cache's own file in the data directory (beside the studio's database, ``studio.sqlite3``)."""
SETTING_KEY = "llm.cache"
"""The store key of :class:`CacheSetting` (``{"enabled": bool, "max_mb": float}``)."""
DEFAULT_MAX_MB = 100.0
MAX_MB_RANGE = (1.0, 100_000.0)
EVICT_TO = 0.9
"""Past the bound, the least recently used answers go until the cache is at this share of it."""
KEY_VERSION = 1
"""Part of every key: a change in what a key means (or how an answer is stored) starts a fresh cache."""
KEYED_PARAMETERS = frozenset({"model", "api_base", "messages", "temperature", "mock_response"})
"""``complete``'s litellm parameters that are in the key (``messages`` as the instructions and the input)."""
NEUTRAL_PARAMETERS = frozenset({"api_key", "timeout", "num_retries", "drop_params"})
"""``complete``'s litellm parameters left out of the key: the credentials (never stored, never keyed), how
long to wait and how often to retry (they change whether an answer comes, not which), and ``drop_params``
(always on)."""
MEMORY_BYTES = 8_000_000
"""The most text of answers a process holds in memory, in front of the file."""
TOUCH_EVERY_S = 2.0
TOUCH_BATCH = 512
REPEATS_KEPT = 65_536
"""How many (case, request) pairs :class:`Repeats` remembers (cases that finished long ago fall out)."""
FRESH_ANSWERS = N_("Every run asks the model afresh: the answer cache is not used, so the spread is the model's own.")
"""What a measurement of variance says about the cache (judge consistency). Marked for translation."""

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
class AnswerRequest:
    """What makes two ``llm()`` calls the same call: the fields of an answer's key.

    ``api_base`` is compared without a trailing slash; ``repeat`` counts the identical calls the same case
    made before this one (0 for the first).
    """

    model: str
    api_base: str | None
    instructions: str
    input: str | None
    temperature: float
    mock_response: str | None = None
    repeat: int = 0

    def key(self) -> str:
        """The SHA-256 of the fields (hex): the cache's primary key. No text of the request is stored."""
        import hashlib  # here, not at the top: the command line imports this module and rarely needs it

        base = self.api_base.rstrip("/") if self.api_base else None
        fields = [
            KEY_VERSION,
            self.model,
            base,
            self.instructions,
            self.input,
            float(self.temperature),
            self.mock_response,
            self.repeat,
        ]
        return hashlib.sha256(orjson.dumps(fields)).hexdigest()


@dataclass(frozen=True)
class CachedAnswer:
    """An answer as kept: the (redacted) text, the model that gave it, and what the call that made it took
    (tokens, cost in USD, latency in ms): shown for information, never counted again."""

    text: str
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float = 0.0

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "text": self.text,
                "model": self.model,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost_usd,
                "latency_ms": self.latency_ms,
            }
        )

    @classmethod
    def from_json(cls, data: bytes | str) -> CachedAnswer | None:
        """The answer :meth:`to_json` wrote, or None when the stored text is not one (then it is a miss)."""
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(value, dict) or not isinstance(value.get("text"), str):
            return None

        def number(name: str) -> float:
            item = value.get(name)
            return float(item) if isinstance(item, int | float) and not isinstance(item, bool) else 0.0

        cost = value.get("cost_usd")
        return cls(
            value["text"],
            str(value.get("model") or ""),
            int(number("prompt_tokens")),
            int(number("completion_tokens")),
            float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
            number("latency_ms"),
        )


class Source(Enum):
    """Where :meth:`LlmCache.answer`'s answer came from."""

    PROVIDER = "provider"  # this call asked the model
    CACHE = "cache"  # an answer stored earlier
    SHARED = "shared"  # an identical call in flight at the same moment asked the model; this one waited for it

    @property
    def cached(self) -> bool:
        """Whether no model call was made for this answer."""
        return self is not Source.PROVIDER


@dataclass(frozen=True)
class CacheUsage:
    """How full the cache is: ``entries`` answers taking ``bytes`` (their stored size) of ``max_bytes``;
    ``file_bytes`` is the size of the SQLite file and its journal on disk."""

    entries: int
    bytes: int
    max_bytes: int
    file_bytes: int


@dataclass(frozen=True)
class CacheSetting:
    """The ``llm.cache`` setting: whether answers are cached, and the cache's bound in megabytes."""

    enabled: bool = True
    max_mb: float = DEFAULT_MAX_MB

    @property
    def max_bytes(self) -> int:
        return int(self.max_mb * 1_000_000)

    def to_stored(self) -> dict[str, Any]:
        return {"enabled": self.enabled, "max_mb": self.max_mb}

    @classmethod
    def from_stored(cls, value: Any) -> CacheSetting:
        """The setting saved as :meth:`to_stored`; a missing or unusable value takes its default."""
        if not isinstance(value, Mapping):
            return cls()
        enabled = value.get("enabled")
        given = value.get("max_mb")
        size = float(given) if isinstance(given, int | float) and not isinstance(given, bool) else math.nan
        low, high = MAX_MB_RANGE
        return cls(enabled if isinstance(enabled, bool) else True, size if low <= size <= high else DEFAULT_MAX_MB)


def cache_setting(store: Store | None) -> CacheSetting:
    """The saved ``llm.cache`` setting (on, :data:`DEFAULT_MAX_MB`, when nothing was saved)."""
    return CacheSetting.from_stored(store.get(SETTING_KEY) if store is not None else None)


def save_cache_setting(store: Store, setting: CacheSetting) -> None:
    store.set(SETTING_KEY, setting.to_stored())


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

    Each operation opens its own short connection (as :class:`skynet_core.store.Store` does). The answers
    this process stored or found last are also held in memory (:data:`MEMORY_BYTES`), so that scoring
    again finds them in microseconds; that their use makes them recent is written to the file in
    batches (at most :data:`TOUCH_EVERY_S` late, and always before an eviction).
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
        self._touched_at = clock()
        self._writing = False  # a thread is writing the touches
        self._write_lock = threading.Lock()

    @property
    def max_bytes(self) -> int:
        """The bound: as given, else the data directory's ``llm.cache`` setting (read once, when first needed)."""
        if self._max_bytes is None:
            from .store import DB_NAME, Store

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
        now = self._clock()
        with self._lock:
            remembered = self._memory.get(key)
            if remembered is None:
                return None
            self._memory.move_to_end(key)
            self._touched[key] = now
            due = not self._writing and (len(self._touched) >= TOUCH_BATCH or now - self._touched_at >= TOUCH_EVERY_S)
            self._writing = self._writing or due
        if due:  # written beside the call, not in its way (a commit takes milliseconds on a busy disk)
            threading.Thread(target=self._write_touches, daemon=True, name="skynet-cache-touches").start()
        return remembered

    def _remember(self, key: str, answer: CachedAnswer) -> None:
        with self._lock:
            old = self._memory.pop(key, None)
            self._memory_bytes -= len(old.text) if old is not None else 0
            self._memory[key] = answer
            self._memory_bytes += len(answer.text)
            while self._memory_bytes > MEMORY_BYTES and len(self._memory) > 1:
                self._memory_bytes -= len(self._memory.popitem(last=False)[1].text)

    def _write_touches(self) -> None:
        """Write when the answers found in memory were used (the file's order of use is then exact). One
        writer at a time: an eviction waits for a write in the background to land first."""
        with self._write_lock:
            with self._lock:
                touched, self._touched = self._touched, {}
                self._touched_at = self._clock()
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


class Repeats:
    """Counts identical calls within a case: :meth:`take` says how many calls the case ``case`` made with
    the same request before this one. Bounded (:data:`REPEATS_KEPT`); thread-safe. ``case`` 0 means the
    case is not known (a handler called outside the runner): every call is then a first."""

    def __init__(self, kept: int = REPEATS_KEPT) -> None:
        self._kept = kept
        self._seen: OrderedDict[tuple[int, str], int] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, case: int, request: str) -> int:
        """What :meth:`take` would say, without counting this call."""
        if not case:
            return 0
        with self._lock:
            return self._seen.get((case, request), 0)

    def take(self, case: int, request: str) -> int:
        if not case:
            return 0
        with self._lock:
            seen = self._seen.pop((case, request), 0)
            self._seen[(case, request)] = seen + 1
            while len(self._seen) > self._kept:
                self._seen.popitem(last=False)
        return seen


def without_cache(handler: LlmHandler | None) -> LlmHandler | None:
    """``handler`` asking the model every time (its ``without_cache()``), for measurements of variance;
    a handler that has no cache (or None) as it is."""
    fresh = getattr(handler, "without_cache", None)
    return cast("LlmHandler", fresh()) if callable(fresh) else handler


_caches: dict[Path, LlmCache] = {}
_caches_lock = threading.Lock()


def answer_cache(directory: str | Path | None = None, max_bytes: int | None = None) -> LlmCache:
    """The process's cache of the data directory ``directory`` (the data directory when None): one per
    directory, so that identical calls of every run in the process are made once. ``max_bytes`` sets its
    bound when given."""
    folder = Path(directory) if directory is not None else data_dir()
    with _caches_lock:
        cache = _caches.get(folder)
        if cache is None:
            cache = _caches[folder] = LlmCache(folder)
    if max_bytes is not None:
        cache.max_bytes = max_bytes
    return cache


def studio_cache(store: Store | None) -> LlmCache:
    """The cache of ``store``'s data directory (the data directory when None), bounded by its ``llm.cache``
    setting. Whether a run uses it is :attr:`skynet_core.llm.ModelSettings.cache`'s to say."""
    return answer_cache(store.directory if store is not None else None, cache_setting(store).max_bytes)


__all__ = [
    "CACHE_DB_NAME",
    "AnswerRequest",
    "CacheSetting",
    "CacheUsage",
    "CachedAnswer",
    "LlmCache",
    "Repeats",
    "Source",
    "answer_cache",
    "cache_setting",
    "save_cache_setting",
    "studio_cache",
    "without_cache",
]
