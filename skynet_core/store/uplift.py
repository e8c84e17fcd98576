"""Uplift results kept in the studio's SQLite file (``uplift_runs``), with the metric version that made them (the
records are :mod:`skynet_core.engines.uplift.saved`).

Like :class:`~skynet_core.store.runs.RunStore`, a store opens a short connection per call (WAL mode, busy
timeout), so the server's threads can share one. Only the newest :data:`KEEP` experiments of each
dataset and candidate are kept.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

import orjson

from ..engines.uplift.config import Arm, UpliftConfig
from ..engines.uplift.result import Calls, Outcome, SeedRun, UpliftResult
from ..engines.uplift.saved import KEEP, SavedUplift, UpliftSummary
from ..engines.uplift.stats import Interval
from ..metric.source import MetricSource
from ..provenance import Provenance
from .db import connect, open_database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS uplift_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    metric TEXT NOT NULL,
    metric_files TEXT NOT NULL,
    dataset TEXT NOT NULL,
    candidate TEXT NOT NULL,
    created_at REAL NOT NULL,
    provenance TEXT NOT NULL,
    summary TEXT NOT NULL,
    result BLOB NOT NULL
);
CREATE INDEX IF NOT EXISTS uplift_runs_by_metric ON uplift_runs (metric, created_at);
CREATE INDEX IF NOT EXISTS uplift_runs_by_dataset ON uplift_runs (dataset, candidate, created_at);
"""


class UpliftStore:
    """Uplift experiments in the studio's SQLite file in ``directory`` (the data directory when ``None``).

    Safe to share between threads; every method commits before returning.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    def save(self, result: UpliftResult, metric: MetricSource, provenance: Provenance) -> int:
        """Keep ``result`` with the metric folder it ran and what it ran on; return its id."""
        summary = {
            "outcome": result.outcome.value,
            "seeds": result.seeds_finished,
            "feedback_value": result.feedback_value.to_json(),
            "gains": {arm.value: found.gain.to_json() for arm, found in result.arms.items()},
            "models": list(result.models),
        }
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO uplift_runs (metric, metric_files, dataset, candidate, created_at, provenance, summary, "
                "result) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    metric.digest,
                    orjson.dumps(dict(metric.files)).decode(),
                    provenance.dataset,
                    provenance.candidate,
                    result.created_at,
                    orjson.dumps(provenance.to_json()).decode(),
                    orjson.dumps(summary).decode(),
                    orjson.dumps(to_record(result)),
                ),
            )
            saved = int(cursor.lastrowid or 0)
            db.execute(
                "DELETE FROM uplift_runs WHERE dataset = ? AND candidate = ? AND id NOT IN (SELECT id FROM uplift_runs "
                "WHERE dataset = ? AND candidate = ? ORDER BY created_at DESC, id DESC LIMIT ?)",
                (provenance.dataset, provenance.candidate, provenance.dataset, provenance.candidate, KEEP),
            )
        return saved

    def list(self, *, metric: str | None = None, dataset: str | None = None) -> list[UpliftSummary]:
        """Saved experiments, newest first; only those of the metric digest ``metric`` and of ``dataset`` (its
        source) when given."""
        query = "SELECT id, created_at, metric, provenance, summary FROM uplift_runs WHERE 1 = 1"
        params: list[Any] = []
        for column, value in (("metric", metric), ("dataset", dataset)):
            if value is not None:
                query += f" AND {column} = ?"
                params.append(value)
        with self._connect() as db:
            rows = db.execute(query + " ORDER BY created_at DESC, id DESC", params).fetchall()
        found = []
        for saved, created_at, digest, made_by, summary_text in rows:
            summary = orjson.loads(summary_text)
            seeds = int(summary.get("seeds", 0))
            found.append(
                UpliftSummary(
                    id=saved,
                    created_at=created_at,
                    metric=digest,
                    provenance=_provenance(made_by),
                    outcome=Outcome(summary.get("outcome", Outcome.COMPLETE.value)),
                    seeds=seeds,
                    feedback_value=Interval.from_json(summary.get("feedback_value"), seeds),
                    gains={Arm(arm): Interval.from_json(gain, seeds) for arm, gain in summary.get("gains", {}).items()},
                    models=_models(summary.get("models")),
                )
            )
        return found

    def get(self, saved: int) -> SavedUplift | None:
        """The experiment ``saved`` whole, or ``None``."""
        with self._connect() as db:
            row = db.execute(
                "SELECT id, created_at, provenance, metric_files, result FROM uplift_runs WHERE id = ?", (saved,)
            ).fetchone()
        if row is None:
            return None
        saved, created_at, made_by, files, record = row
        return SavedUplift(
            saved,
            created_at,
            _provenance(made_by),
            MetricSource(orjson.loads(files)),
            from_record(orjson.loads(record)),
        )


def to_record(result: UpliftResult) -> dict[str, Any]:
    """Everything in ``result``, as JSON values (:func:`from_record` reads it back)."""
    config = result.config
    return {
        "config": {
            "instruction": config.instruction,
            "rounds": config.rounds,
            "seeds": config.seeds,
            "minibatch": config.minibatch,
            "max_cost_usd": config.max_cost_usd,
            "arms": [arm.value for arm in config.arms],
            "seed": config.seed,
        },
        "start": result.start,
        "runs": [run.to_json() for run in result.runs],
        "calls": result.calls.to_json(),
        "cost_usd": result.cost_usd,
        "outcome": result.outcome.value,
        "error": result.error,
        "unpriced": list(result.unpriced),
        "models": list(result.models),
        "train_ids": list(result.train_ids),
        "val_ids": list(result.val_ids),
        "split_from_dataset": result.split_from_dataset,
        "created_at": result.created_at,
        "steps": list(result.steps),
    }


def from_record(record: Mapping[str, Any]) -> UpliftResult:
    config = dict(record["config"])
    config["arms"] = tuple(Arm(arm) for arm in config.get("arms", ()))
    calls = record.get("calls") or {}
    start = record.get("start")
    return UpliftResult(
        config=UpliftConfig(**config),
        start=float(start) if start is not None else None,
        runs=tuple(SeedRun.from_json(run) for run in record.get("runs", ())),
        calls=Calls(int(calls.get("task", 0)), int(calls.get("reflection", 0))),
        cost_usd=float(record.get("cost_usd", 0.0)),
        outcome=Outcome(record.get("outcome", Outcome.COMPLETE.value)),
        error=str(record.get("error", "")),
        unpriced=tuple(record.get("unpriced", ())),
        models=_models(record.get("models")),
        train_ids=tuple(record.get("train_ids", ())),
        val_ids=tuple(record.get("val_ids", ())),
        split_from_dataset=bool(record.get("split_from_dataset")),
        created_at=float(record.get("created_at", 0.0)),
        steps=_steps(record.get("steps")),
    )


def _steps(value: Any) -> tuple[int, int]:
    """(done, total) as saved; (0, 0) for a result saved before runs kept it."""
    if isinstance(value, list) and len(value) == 2 and all(type(item) is int for item in value):
        return value[0], value[1]
    return 0, 0


def _provenance(text: str) -> Provenance:
    return Provenance.from_json(orjson.loads(text)) or Provenance("", "", "", "", None)


def _models(value: Any) -> tuple[str, str]:
    items = [str(item) for item in value] if isinstance(value, list) else []
    return (items[0], items[1]) if len(items) == 2 else ("", "")
