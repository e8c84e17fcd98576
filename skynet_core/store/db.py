"""The studio's SQLite file: where it lives (the data directory) and how every store opens it and connects.

The file lives in the data directory: ``$SKYNET_DATA_DIR`` when set, else ``~/.skynet-metric-studio``. The
database runs in WAL mode with a busy timeout, so several server threads (and processes) can write at once. Each
call has a connection of its own for as long as it runs (:func:`connect`), which keeps every store safe to share
between threads; the connection comes from a few kept open per file, since opening one and reading the schema
again cost 0.6 ms per call, a sixth of an Author page's script run (13 calls in it; a Human scores run has 26).
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..i18n import _

DATA_DIR_ENV = "SKYNET_DATA_DIR"
DEFAULT_DATA_DIR = Path.home() / ".skynet-metric-studio"
DB_NAME = "studio.sqlite3"
DEFAULT_WORKSPACE = "default"
BUSY_TIMEOUT_MS = 10_000
IDLE_PER_FILE = 4  # connections kept open per database file between calls (a server runs a few calls at once)
IDLE_IN_ALL = 12  # and in all: a process that opens many data directories in turn (the tests) keeps the latest


@contextmanager
def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A connection to the database file ``path`` for this call alone, in a transaction that commits when the
    call ends (or rolls back when it raises).

    The connection is one kept open from an earlier call when there is one: see :class:`_Idle` for when it is
    not reused. A call that raised closes its connection instead of keeping it."""
    db = _idle.take(path)
    try:
        with db:
            yield db
    except BaseException:
        db.close()
        raise
    _idle.give_back(path, db)


class _Idle:
    """The connections kept open between calls, each used by one call at a time: a few per file, and a few in all
    (those of the files used least recently are closed first).

    A kept connection is used again only by the process that opened it (a forked child opens its own: SQLite's
    connections must not cross a fork), and only while its path still names the file it opened (a data directory
    deleted and made again gets new connections, never one writing into the removed file). One left in a
    transaction is closed, not kept."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._pid = os.getpid()
        self._kept: OrderedDict[str, list[tuple[sqlite3.Connection, tuple[int, int]]]] = OrderedDict()

    def take(self, path: Path) -> sqlite3.Connection:
        key = str(path)
        try:
            info = os.stat(key)
            identity: tuple[int, int] | None = (info.st_dev, info.st_ino)
        except OSError:
            identity = None
        stale: list[sqlite3.Connection] = []
        found: sqlite3.Connection | None = None
        with self._lock:
            self._forget_after_fork()
            kept = self._kept.get(key, [])
            while kept and found is None:
                db, opened = kept.pop()
                if opened == identity:
                    found = db
                else:
                    stale.append(db)
        for db in stale:
            db.close()
        return found if found is not None else _open(path)

    def give_back(self, path: Path, db: sqlite3.Connection) -> None:
        key = str(path)
        try:
            info = os.stat(key)
        except OSError:
            db.close()
            return
        closing = [db]
        with self._lock:
            self._forget_after_fork()
            kept = self._kept.setdefault(key, [])
            self._kept.move_to_end(key)
            if not db.in_transaction and len(kept) < IDLE_PER_FILE:
                kept.append((db, (info.st_dev, info.st_ino)))
                closing = self._beyond_bound()
        for extra in closing:
            extra.close()

    def _beyond_bound(self) -> list[sqlite3.Connection]:
        """Take out the connections over :data:`IDLE_IN_ALL`, of the files used least recently (under the lock)."""
        over = sum(len(kept) for kept in self._kept.values()) - IDLE_IN_ALL
        taken: list[sqlite3.Connection] = []
        while over > 0:
            key, kept = next(iter(self._kept.items()))
            while kept and over > 0:
                taken.append(kept.pop(0)[0])
                over -= 1
            if not kept:
                del self._kept[key]
        return taken

    def _forget_after_fork(self) -> None:
        if self._pid != os.getpid():
            self._pid = os.getpid()
            self._kept = OrderedDict()  # the parent's are dropped: this process opens its own


def _open(path: Path) -> sqlite3.Connection:
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000, check_same_thread=False)
    try:
        db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    except BaseException:
        db.close()
        raise
    return db


_idle = _Idle()


def open_database(directory: str | Path | None, schema: str, name: str = DB_NAME) -> tuple[Path, Path]:
    """Create the data directory and ``schema``'s tables (WAL mode) in its file ``name``; return the directory
    and the file."""
    folder = Path(directory) if directory is not None else data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(
            _("cannot create the data directory {folder} ({reason}); set {variable} to a writable directory").format(
                folder=folder, reason=exc.strerror, variable=DATA_DIR_ENV
            )
        ) from None
    path = folder / name
    with connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(schema)
    return folder, path


def data_dir() -> Path:
    """The data directory: ``$SKYNET_DATA_DIR`` when set, else ``~/.skynet-metric-studio``."""
    configured = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else DEFAULT_DATA_DIR
