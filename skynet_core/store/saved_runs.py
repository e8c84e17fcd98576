"""One table of saved experiment runs (uplift, stress): each row keeps the metric folder it ran (its digest and its
files), what it ran on (a :class:`~skynet_core.provenance.Provenance`), a summary lists read without decoding the
whole, and the whole as JSON. Only the newest ``keep`` rows of each dataset and candidate are kept.

The feature stores (:mod:`.uplift`, :mod:`.stress`) own their records and turn the JSON of this table into them;
the SQL, the pruning and the order (newest first) are here, once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from ..metric.source import MetricSource
from ..provenance import Provenance
from .db import connect, open_database


@dataclass(frozen=True)
class Row:
    """A saved run as a list reads it: ``metric`` is the metric folder's digest, ``summary`` the saved JSON."""

    id: int
    created_at: float
    metric: str
    provenance: Provenance
    summary: Any


@dataclass(frozen=True)
class Whole:
    """A saved run read back whole: the metric folder it ran and ``body``, the saved JSON of the run."""

    id: int
    created_at: float
    provenance: Provenance
    metric: MetricSource
    body: Any


class SavedRuns:
    """The table ``table`` in the studio's SQLite file in ``directory`` (the data directory when ``None``); the
    whole run is in the column ``body``, and ``by_metric`` are the columns of the index a metric version's runs
    are found by. Safe to share between threads: every call has a connection of its own
    (:func:`~skynet_core.store.db.connect`) and commits."""

    def __init__(
        self, directory: str | Path | None, table: str, *, body: str, by_metric: tuple[str, ...], keep: int
    ) -> None:
        self.table, self.body, self.keep = table, body, keep
        schema = f"""
CREATE TABLE IF NOT EXISTS {table} (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    metric TEXT NOT NULL,
    metric_files TEXT NOT NULL,
    dataset TEXT NOT NULL,
    candidate TEXT NOT NULL,
    created_at REAL NOT NULL,
    provenance TEXT NOT NULL,
    summary TEXT NOT NULL,
    {body} BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS {table}_by_metric ON {table} ({", ".join(by_metric)});
CREATE INDEX IF NOT EXISTS {table}_by_dataset ON {table} (dataset, candidate, created_at);
"""
        self.directory, self.path = open_database(directory, schema)

    def save(self, metric: MetricSource, provenance: Provenance, created_at: float, summary: Any, body: Any) -> int:
        """Keep a run (``summary`` and ``body`` are JSON values) and forget the oldest of its dataset and candidate
        past ``keep``; return its id."""
        table = self.table
        with connect(self.path) as db:
            cursor = db.execute(
                f"INSERT INTO {table} (metric, metric_files, dataset, candidate, created_at, provenance, summary, "
                f"{self.body}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    metric.digest,
                    orjson.dumps(dict(metric.files)).decode(),
                    provenance.dataset,
                    provenance.candidate,
                    created_at,
                    orjson.dumps(provenance.to_json()).decode(),
                    orjson.dumps(summary).decode(),
                    orjson.dumps(body),
                ),
            )
            saved = int(cursor.lastrowid or 0)
            db.execute(
                f"DELETE FROM {table} WHERE dataset = ? AND candidate = ? AND id NOT IN (SELECT id FROM {table} "
                "WHERE dataset = ? AND candidate = ? ORDER BY created_at DESC, id DESC LIMIT ?)",
                (provenance.dataset, provenance.candidate, provenance.dataset, provenance.candidate, self.keep),
            )
        return saved

    def rows(self, *, metric: str | None = None, dataset: str | None = None) -> list[Row]:
        """Saved runs, newest first; only those of the metric digest ``metric`` and of ``dataset`` (its source)
        when given."""
        query = f"SELECT id, created_at, metric, provenance, summary FROM {self.table} WHERE 1 = 1"
        params: list[Any] = []
        for column, value in (("metric", metric), ("dataset", dataset)):
            if value is not None:
                query += f" AND {column} = ?"
                params.append(value)
        with connect(self.path) as db:
            found = db.execute(query + " ORDER BY created_at DESC, id DESC", params).fetchall()
        return [
            Row(saved, created_at, digest, _provenance(made_by), orjson.loads(summary))
            for saved, created_at, digest, made_by, summary in found
        ]

    def newest(self, dataset: str, candidate: str) -> int | None:
        """The id of the newest run of ``dataset`` (a source) and ``candidate``, whatever metric version made it."""
        return next((row.id for row in self.rows(dataset=dataset) if row.provenance.candidate == candidate), None)

    def get(self, saved: int) -> Whole | None:
        """The run ``saved`` whole, or ``None``."""
        with connect(self.path) as db:
            row = db.execute(
                f"SELECT id, created_at, provenance, metric_files, {self.body} FROM {self.table} WHERE id = ?",
                (saved,),
            ).fetchone()
        if row is None:
            return None
        saved, created_at, made_by, files, body = row
        return Whole(saved, created_at, _provenance(made_by), MetricSource(orjson.loads(files)), orjson.loads(body))

    def clear(self) -> None:
        """Forget every saved run of this table."""
        with connect(self.path) as db:
            db.execute(f"DELETE FROM {self.table}")


def _provenance(text: str) -> Provenance:
    return Provenance.from_json(orjson.loads(text)) or Provenance("", "", "", "", None)
