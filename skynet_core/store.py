"""Persistence: the metric draft, saved versions and settings, in one SQLite file.

The file lives in the data directory: ``$SKYNET_DATA_DIR`` when set, else
``~/.skynet-metric-studio``. The database runs in WAL mode with a busy
timeout, so several server threads (and processes) can write at once; each
call opens its own short connection, which keeps a :class:`Store` safe to
share between threads.

- ``drafts``: the current metric.py text of each workspace, saved on every
  change, so a reload or a server restart brings it back.
- ``versions``: named, timestamped copies of metric.py (the History page).
- ``settings``: JSON values by key (dataset path, candidate, split, timeout…).
"""

from __future__ import annotations

import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

DATA_DIR_ENV = "SKYNET_DATA_DIR"
DEFAULT_DATA_DIR = Path.home() / ".skynet-metric-studio"
DB_NAME = "studio.sqlite3"
DEFAULT_WORKSPACE = "default"
BUSY_TIMEOUT_MS = 10_000

_SCHEMA = """
CREATE TABLE IF NOT EXISTS drafts (
    workspace TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    updated_at REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace TEXT NOT NULL,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    created_at REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS versions_by_workspace ON versions (workspace, created_at);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at REAL NOT NULL
);
"""


@contextmanager
def connect(path: Path) -> Iterator[sqlite3.Connection]:
    """A short connection to the studio's database that commits (or rolls back) and closes."""
    db = sqlite3.connect(path, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        with db:
            yield db
    finally:
        db.close()


def open_database(directory: str | Path | None, schema: str) -> tuple[Path, Path]:
    """Create the data directory and ``schema``'s tables (WAL mode); return the directory and the file."""
    folder = Path(directory) if directory is not None else data_dir()
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OSError(f"cannot create the data directory {folder} ({exc.strerror}); "
                      f"set {DATA_DIR_ENV} to a writable directory") from None
    path = folder / DB_NAME
    with connect(path) as db:
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(schema)
    return folder, path


def data_dir() -> Path:
    """The data directory: ``$SKYNET_DATA_DIR`` when set, else ``~/.skynet-metric-studio``."""
    configured = os.environ.get(DATA_DIR_ENV, "").strip()
    return Path(configured).expanduser() if configured else DEFAULT_DATA_DIR


@dataclass(frozen=True)
class Version:
    """A saved copy of metric.py. ``created_at`` is seconds since the epoch (UTC)."""

    id: int
    workspace: str
    name: str
    source: str
    created_at: float


class Store:
    """The studio's SQLite file. Safe to share between threads; every method commits before returning."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    def draft(self, workspace: str = DEFAULT_WORKSPACE) -> str | None:
        """The saved draft of ``workspace``, or ``None`` when nothing was typed there yet."""
        with self._connect() as db:
            row = db.execute("SELECT source FROM drafts WHERE workspace = ?", (workspace,)).fetchone()
        return row[0] if row else None

    def save_draft(self, source: str, workspace: str = DEFAULT_WORKSPACE) -> None:
        with self._connect() as db:
            db.execute("INSERT INTO drafts (workspace, source, updated_at) VALUES (?, ?, ?) "
                       "ON CONFLICT (workspace) DO UPDATE SET source = excluded.source, "
                       "updated_at = excluded.updated_at", (workspace, source, time.time()))

    def save_version(self, name: str, source: str, workspace: str = DEFAULT_WORKSPACE) -> Version:
        """Keep a named copy of ``source``; names need not be unique (the id and time tell them apart)."""
        name = name.strip() or "untitled"
        created = time.time()
        with self._connect() as db:
            cursor = db.execute("INSERT INTO versions (workspace, name, source, created_at) VALUES (?, ?, ?, ?)",
                                (workspace, name, source, created))
            version_id = int(cursor.lastrowid or 0)
        return Version(version_id, workspace, name, source, created)

    def versions(self, workspace: str = DEFAULT_WORKSPACE) -> list[Version]:
        """The saved versions of ``workspace``, newest first."""
        with self._connect() as db:
            rows = db.execute("SELECT id, workspace, name, source, created_at FROM versions WHERE workspace = ? "
                              "ORDER BY created_at DESC, id DESC", (workspace,)).fetchall()
        return [Version(*row) for row in rows]

    def version(self, version_id: int) -> Version | None:
        with self._connect() as db:
            row = db.execute("SELECT id, workspace, name, source, created_at FROM versions WHERE id = ?",
                             (version_id,)).fetchone()
        return Version(*row) if row else None

    def get(self, key: str, default: Any = None) -> Any:
        """The setting ``key`` (any JSON value), or ``default`` when it was never set."""
        with self._connect() as db:
            row = db.execute("SELECT value FROM settings WHERE key = ?", (key,)).fetchone()
        return orjson.loads(row[0]) if row else default

    def set(self, key: str, value: Any) -> None:
        """Save a JSON-serialisable setting."""
        text = orjson.dumps(value).decode()
        with self._connect() as db:
            db.execute("INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) "
                       "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                       (key, text, time.time()))

    def delete(self, key: str) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM settings WHERE key = ?", (key,))
