"""The studio's own tables: the metric draft, saved versions and settings (records in :mod:`.records`).

- ``drafts``: the current metric of each workspace (metric.py, and the files beside it),
  saved on every change, so a reload or a server restart brings it back. Each write
  raises its ``revision``; :meth:`Store.write_draft` is a compare-and-set on it, so two
  writers never silently overwrite each other (the workspace decides what to keep).
- ``versions``: named, timestamped copies of the metric (the History page); ``kind``
  says who made one (a person, the autosave, or the studio keeping replaced text).
- ``settings``: JSON values by key (dataset path, candidate, split, timeout…).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import orjson

from ..metric.source import MetricSource
from .db import DEFAULT_WORKSPACE, connect, open_database
from .records import Draft, Version, VersionKind

_SCHEMA = """
CREATE TABLE IF NOT EXISTS drafts (
    workspace TEXT PRIMARY KEY,
    source TEXT NOT NULL,
    updated_at REAL NOT NULL,
    revision INTEGER NOT NULL DEFAULT 1,
    files TEXT
);
CREATE TABLE IF NOT EXISTS versions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace TEXT NOT NULL,
    name TEXT NOT NULL,
    source TEXT NOT NULL,
    created_at REAL NOT NULL,
    kind TEXT NOT NULL DEFAULT 'named',
    files TEXT
);
CREATE INDEX IF NOT EXISTS versions_by_workspace ON versions (workspace, created_at);
CREATE TABLE IF NOT EXISTS settings (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    updated_at REAL NOT NULL
);
"""


# Columns added after the first release: an older database file gains them when it is opened.
_ADDED_COLUMNS = {
    "drafts": {"revision": "INTEGER NOT NULL DEFAULT 1", "files": "TEXT"},
    "versions": {"kind": "TEXT NOT NULL DEFAULT 'named'", "files": "TEXT"},
}


def _add_missing_columns(path: Path) -> None:
    with connect(path) as db:
        for table, columns in _ADDED_COLUMNS.items():
            present = {row[1] for row in db.execute(f"PRAGMA table_info({table})")}
            for name, kind in columns.items():
                if name not in present:
                    db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")


def _files_json(metric: MetricSource) -> str | None:
    # A single-file metric keeps the plain text only (the ``source`` column), as before folders existed.
    return None if metric.is_single_file else orjson.dumps(dict(metric.files)).decode()


def _metric(source: str, files: str | None) -> MetricSource:
    return MetricSource.from_stored(orjson.loads(files)) if files else MetricSource.of(source)


_VERSION_COLUMNS = "id, workspace, name, source, created_at, kind, files"


def _version(row: tuple[Any, ...]) -> Version:
    version_id, workspace, name, source, created_at, kind, files = row
    return Version(version_id, workspace, name, source, created_at, VersionKind(kind), _metric(source, files))


class Store:
    """The studio's SQLite file. Safe to share between threads; every method commits before returning."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)
        _add_missing_columns(self.path)

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    def draft_record(self, workspace: str = DEFAULT_WORKSPACE) -> Draft | None:
        """The stored draft of ``workspace`` with its revision, or ``None`` when nothing was written there yet."""
        with self._connect() as db:
            row = db.execute(
                "SELECT revision, source, files, updated_at FROM drafts WHERE workspace = ?", (workspace,)
            ).fetchone()
        return Draft(row[0], _metric(row[1], row[2]), row[3]) if row else None

    def draft(self, workspace: str = DEFAULT_WORKSPACE) -> str | None:
        """The saved draft's metric.py text, or ``None`` when nothing was typed there yet."""
        record = self.draft_record(workspace)
        return record.source if record else None

    def write_draft(
        self, metric: str | MetricSource, base_revision: int | None, workspace: str = DEFAULT_WORKSPACE
    ) -> tuple[bool, Draft]:
        """Compare-and-set: write ``metric`` only when the stored revision is ``base_revision``.

        Returns ``(True, new draft)`` when written, ``(False, stored draft)`` when the stored
        revision moved on since ``base_revision`` (a conflict: nothing was written).
        ``base_revision=None`` writes unconditionally. 0 stands for "no draft yet".
        """
        metric = MetricSource.of(metric)
        now = time.time()
        with self._connect() as db:
            db.execute("BEGIN IMMEDIATE")
            row = db.execute(
                "SELECT revision, source, files, updated_at FROM drafts WHERE workspace = ?", (workspace,)
            ).fetchone()
            current = row[0] if row else 0
            if base_revision is not None and base_revision != current:
                return False, Draft(current, _metric(row[1], row[2]), row[3])
            db.execute(
                "INSERT INTO drafts (workspace, source, files, updated_at, revision) VALUES (?, ?, ?, ?, ?) "
                "ON CONFLICT (workspace) DO UPDATE SET source = excluded.source, files = excluded.files, "
                "updated_at = excluded.updated_at, revision = excluded.revision",
                (workspace, metric.main, _files_json(metric), now, current + 1),
            )
        return True, Draft(current + 1, metric, now)

    def save_draft(self, source: str | MetricSource, workspace: str = DEFAULT_WORKSPACE) -> Draft:
        """Write the draft whatever the stored revision (scripts and tests; pages go through the workspace)."""
        return self.write_draft(source, None, workspace)[1]

    def save_version(
        self,
        name: str,
        source: str | MetricSource,
        workspace: str = DEFAULT_WORKSPACE,
        kind: VersionKind = VersionKind.NAMED,
    ) -> Version:
        """Keep a named copy of the metric; names need not be unique (the id and time tell them apart)."""
        name = name.strip() or "untitled"
        metric = MetricSource.of(source)
        created = time.time()
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO versions (workspace, name, source, created_at, kind, files) VALUES (?, ?, ?, ?, ?, ?)",
                (workspace, name, metric.main, created, kind.value, _files_json(metric)),
            )
            version_id = int(cursor.lastrowid or 0)
        return Version(version_id, workspace, name, metric.main, created, kind, metric)

    def versions(self, workspace: str = DEFAULT_WORKSPACE) -> list[Version]:
        """The saved versions of ``workspace``, newest first."""
        with self._connect() as db:
            rows = db.execute(
                f"SELECT {_VERSION_COLUMNS} FROM versions WHERE workspace = ? ORDER BY created_at DESC, id DESC",
                (workspace,),
            ).fetchall()
        return [_version(row) for row in rows]

    def latest_version(self, workspace: str = DEFAULT_WORKSPACE, kind: VersionKind | None = None) -> Version | None:
        """The newest version of ``workspace`` (of ``kind`` when given), or ``None``."""
        query = f"SELECT {_VERSION_COLUMNS} FROM versions WHERE workspace = ?"
        params: list[Any] = [workspace]
        if kind is not None:
            query += " AND kind = ?"
            params.append(kind.value)
        with self._connect() as db:
            row = db.execute(query + " ORDER BY created_at DESC, id DESC LIMIT 1", params).fetchone()
        return _version(row) if row else None

    def name_version(self, version_id: int, name: str, kind: VersionKind = VersionKind.NAMED) -> Version:
        """Give version ``version_id`` ``name`` and ``kind`` (by default a person's name: a named version)."""
        with self._connect() as db:
            db.execute(
                "UPDATE versions SET name = ?, kind = ? WHERE id = ?",
                (name.strip() or "untitled", kind.value, version_id),
            )
        version = self.version(version_id)
        if version is None:
            raise KeyError(f"there is no version {version_id}")
        return version

    def version(self, version_id: int) -> Version | None:
        with self._connect() as db:
            row = db.execute(f"SELECT {_VERSION_COLUMNS} FROM versions WHERE id = ?", (version_id,)).fetchone()
        return _version(row) if row else None

    def get(self, key: str, default: Any = None) -> Any:
        """The setting ``key`` (any JSON value), or ``default`` when it was never set."""
        return self.get_many((key,)).get(key, default)

    def get_many(self, keys: Sequence[str]) -> dict[str, Any]:
        """The settings of ``keys`` that were ever set, read together (one connection, one consistent view)."""
        marks = ", ".join("?" * len(keys))
        with self._connect() as db:
            rows = db.execute(f"SELECT key, value FROM settings WHERE key IN ({marks})", tuple(keys)).fetchall()
        return {key: orjson.loads(value) for key, value in rows}

    def set(self, key: str, value: Any) -> None:
        """Save a JSON-serialisable setting."""
        self.set_many({key: value})

    def set_many(self, values: Mapping[str, Any]) -> None:
        """Save JSON-serialisable settings together: all of them or, when one cannot be saved, none."""
        now = time.time()
        rows = [(key, orjson.dumps(value).decode(), now) for key, value in values.items()]
        with self._connect() as db:
            db.executemany(
                "INSERT INTO settings (key, value, updated_at) VALUES (?, ?, ?) "
                "ON CONFLICT (key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at",
                rows,
            )

    def delete(self, key: str) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM settings WHERE key = ?", (key,))
