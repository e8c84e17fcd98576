"""Stress runs kept in the studio's SQLite file (``stress_runs``), with the metric version they tested (the records
are :mod:`skynet_core.stress.saved`). Like the uplift store, a short connection per call (WAL mode, busy timeout), safe
to share between threads; only the newest :data:`KEEP` runs of each dataset and candidate are kept.
"""

from __future__ import annotations

import sqlite3
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import orjson

from ..metric.source import MetricSource
from ..provenance import Provenance
from ..stress.report import StressReport, StressSummary
from ..stress.saved import KEEP, SavedStress, StressRow
from .db import connect, open_database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS stress_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    metric TEXT NOT NULL,
    metric_files TEXT NOT NULL,
    dataset TEXT NOT NULL,
    candidate TEXT NOT NULL,
    created_at REAL NOT NULL,
    provenance TEXT NOT NULL,
    summary TEXT NOT NULL,
    report BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS stress_runs_by_metric ON stress_runs (metric, dataset, created_at);
CREATE INDEX IF NOT EXISTS stress_runs_by_dataset ON stress_runs (dataset, candidate, created_at);
"""


class StressStore:
    """Stress runs in the studio's SQLite file in ``directory`` (the data directory when ``None``)."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    def save(self, report: StressReport, metric: MetricSource, provenance: Provenance) -> int:
        """Keep ``report`` with the metric folder it stressed and what it ran on; return its id."""
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO stress_runs (metric, metric_files, dataset, candidate, created_at, provenance, summary, "
                "report) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    metric.digest,
                    orjson.dumps(dict(metric.files)).decode(),
                    provenance.dataset,
                    provenance.candidate,
                    report.created_at,
                    orjson.dumps(provenance.to_json()).decode(),
                    orjson.dumps(report.summary().to_json()).decode(),
                    orjson.dumps(report.to_json()),
                ),
            )
            saved = int(cursor.lastrowid or 0)
            db.execute(
                "DELETE FROM stress_runs WHERE dataset = ? AND candidate = ? AND id NOT IN (SELECT id FROM stress_runs "
                "WHERE dataset = ? AND candidate = ? ORDER BY created_at DESC, id DESC LIMIT ?)",
                (provenance.dataset, provenance.candidate, provenance.dataset, provenance.candidate, KEEP),
            )
        return saved

    def list(self, *, metric: str | None = None, dataset: str | None = None) -> list[StressRow]:
        """Saved runs, newest first; only those of the metric digest ``metric`` and of ``dataset`` when given."""
        query = "SELECT id, created_at, metric, provenance, summary FROM stress_runs WHERE 1 = 1"
        params: list[Any] = []
        for column, value in (("metric", metric), ("dataset", dataset)):
            if value is not None:
                query += f" AND {column} = ?"
                params.append(value)
        with self._connect() as db:
            rows = db.execute(query + " ORDER BY created_at DESC, id DESC", params).fetchall()
        return [
            StressRow(saved, created_at, digest, _provenance(made_by), StressSummary.from_json(orjson.loads(summary)))
            for saved, created_at, digest, made_by, summary in rows
        ]

    def get(self, saved: int) -> SavedStress | None:
        """The run ``saved`` whole, or ``None``."""
        with self._connect() as db:
            row = db.execute(
                "SELECT id, created_at, provenance, metric_files, report FROM stress_runs WHERE id = ?", (saved,)
            ).fetchone()
        if row is None:
            return None
        saved, created_at, made_by, files, report = row
        return SavedStress(
            saved,
            created_at,
            _provenance(made_by),
            MetricSource(orjson.loads(files)),
            StressReport.from_json(orjson.loads(report), created_at),
        )

    def clear(self) -> None:
        with self._connect() as db:
            db.execute("DELETE FROM stress_runs")


def _provenance(text: str) -> Provenance:
    return Provenance.from_json(orjson.loads(text)) or Provenance("", "", "", "", None)
