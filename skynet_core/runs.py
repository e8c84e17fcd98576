"""Scored runs: every "Score all cases" result kept in SQLite, so Feedback review (and later History) can read it.

A run is keyed by what it scored and with what (:class:`RunKey`): the dataset
(its source, the file path or ``"example"``), the candidate, the split (``None``
for every split) and the hash of metric.py's text (:func:`metric_hash`). The
results are kept whole, as :meth:`CaseResult.to_json` rows, and come back through
:meth:`CaseResult.from_json`.

The tables live in the studio's database file in the data directory (see
:mod:`skynet_core.store`), beside the drafts and versions, under their own names.
Like :class:`~skynet_core.store.Store`, a :class:`RunStore` opens a short
connection per call (WAL mode, busy timeout), so the server's threads can share one.
Only the newest :data:`KEEP_RUNS` runs of each dataset and candidate are kept.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass, fields
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson

from .metric_source import MetricSource
from .provenance import Provenance
from .results import CaseResult
from .store import connect, open_database

if TYPE_CHECKING:
    from .datasets import Dataset

KEEP_RUNS = 50
"""Runs kept per (dataset, candidate); older ones are deleted when a new one is saved."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scored_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset TEXT NOT NULL,
    dataset_name TEXT NOT NULL,
    candidate TEXT NOT NULL,
    split TEXT,
    metric_hash TEXT NOT NULL,
    metric_source TEXT NOT NULL,
    created_at REAL NOT NULL,
    case_count INTEGER NOT NULL,
    results BLOB NOT NULL,
    provenance TEXT
);
CREATE INDEX IF NOT EXISTS scored_runs_newest ON scored_runs (dataset, candidate, created_at);
"""

_RESULT_FIELDS = frozenset(item.name for item in fields(CaseResult)) | {"llm_calls"}  # the calls' trace


def metric_hash(source: str) -> str:
    """A short SHA-256 of metric.py's text: the same text always gives the same 12 hex digits."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class RunKey:
    """What a run scored and with which metric.

    ``dataset`` is the dataset's source (its file path, or ``"example"``), which
    identifies it; ``dataset_name`` is the name people read. ``candidate`` is
    ``""`` for a dataset without candidates; ``split`` is ``None`` when every split
    was scored.
    """

    dataset: str
    candidate: str
    split: str | None
    metric_hash: str
    dataset_name: str = ""

    @classmethod
    def of(cls, data: Dataset, candidate: str, split: str | None, source: str) -> RunKey:
        """The key of scoring ``data``'s ``candidate`` in ``split`` with metric.py text ``source``."""
        return cls(data.source, candidate, split, metric_hash(source), data.name)

    @property
    def scope(self) -> str:
        """The dataset and candidate as one string, for things kept per candidate (such as feedback marks)."""
        return f"{self.dataset} :: {self.candidate}" if self.candidate else self.dataset


@dataclass(frozen=True)
class SavedRun:
    """A run read back from the store. ``created_at`` is seconds since the epoch (UTC);
    ``metric_source`` is the metric.py text it was scored with (``""`` when not given)."""

    id: int
    key: RunKey
    created_at: float
    results: list[CaseResult]
    metric_source: str = ""
    provenance: Provenance | None = None


def _result(data: dict[str, Any]) -> CaseResult:
    # Keys a newer or older version wrote but CaseResult no longer has are dropped, not fatal.
    return CaseResult.from_json({name: value for name, value in data.items() if name in _RESULT_FIELDS})


class RunStore:
    """Scored runs in the studio's SQLite file in ``directory`` (the data directory when ``None``).

    Safe to share between threads; every method commits before returning.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)
        with connect(self.path) as db:
            if "provenance" not in {row[1] for row in db.execute("PRAGMA table_info(scored_runs)")}:
                db.execute("ALTER TABLE scored_runs ADD COLUMN provenance TEXT")

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    def save(
        self,
        key: RunKey,
        results: Sequence[CaseResult],
        *,
        metric_source: str = "",
        provenance: Provenance | None = None,
    ) -> int:
        """Keep a finished run and return its id; the oldest runs beyond :data:`KEEP_RUNS` are dropped."""
        blob = orjson.dumps([result.to_json() for result in results], option=orjson.OPT_NON_STR_KEYS)
        made_by = orjson.dumps(provenance.to_json()).decode() if provenance is not None else None
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO scored_runs (dataset, dataset_name, candidate, split, metric_hash, metric_source, "
                "created_at, case_count, results, provenance) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    key.dataset,
                    key.dataset_name,
                    key.candidate,
                    key.split,
                    key.metric_hash,
                    metric_source,
                    time.time(),
                    len(results),
                    blob,
                    made_by,
                ),
            )
            run_id = int(cursor.lastrowid or 0)
            db.execute(
                "DELETE FROM scored_runs WHERE dataset = ? AND candidate = ? AND id NOT IN "
                "(SELECT id FROM scored_runs WHERE dataset = ? AND candidate = ? "
                "ORDER BY created_at DESC, id DESC LIMIT ?)",
                (key.dataset, key.candidate, key.dataset, key.candidate, KEEP_RUNS),
            )
        return run_id

    def latest(self, dataset: str, candidate: str | None = None) -> SavedRun | None:
        """The newest run of ``dataset`` (its source) and ``candidate`` (any candidate when ``None``), or ``None``."""
        query = (
            "SELECT id, dataset, candidate, split, metric_hash, dataset_name, created_at, results, metric_source, "
            "provenance "
            "FROM scored_runs WHERE dataset = ?"
        )
        params: list[Any] = [dataset]
        if candidate is not None:
            query += " AND candidate = ?"
            params.append(candidate)
        with self._connect() as db:
            row = db.execute(query + " ORDER BY created_at DESC, id DESC LIMIT 1", params).fetchone()
        if row is None:
            return None
        run_id, dataset, candidate, split, hashed, name, created_at, blob, source, made_by = row
        key = RunKey(dataset, candidate, split, hashed, name)
        provenance = Provenance.from_json(orjson.loads(made_by)) if made_by else None
        if provenance is None:  # a run saved before provenance was kept: what its key and text tell
            metric = MetricSource.of(source).digest if source else ""
            provenance = Provenance(metric, dataset, name, candidate, split)
        return SavedRun(
            id=run_id,
            key=key,
            created_at=created_at,
            results=[_result(item) for item in orjson.loads(blob)],
            metric_source=source,
            provenance=provenance,
        )
