"""The studio's SQLite file: where it lives (the data directory) and how every store opens it and connects.

The file lives in the data directory: ``$SKYNET_DATA_DIR`` when set, else ``~/.skynet-metric-studio``. The
database runs in WAL mode with a busy timeout, so several server threads (and processes) can write at once; each
call opens its own short connection, which keeps every store safe to share between threads.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..i18n import _

DATA_DIR_ENV = "SKYNET_DATA_DIR"
DEFAULT_DATA_DIR = Path.home() / ".skynet-metric-studio"
DB_NAME = "studio.sqlite3"
DEFAULT_WORKSPACE = "default"
BUSY_TIMEOUT_MS = 10_000


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
