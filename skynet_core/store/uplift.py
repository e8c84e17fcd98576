"""Uplift results kept in the studio's SQLite file (``uplift_runs``), with the metric version that made them (the
records are :mod:`skynet_core.engines.uplift.saved`).

The table is a :class:`~skynet_core.store.saved_runs.SavedRuns` (like stress's): a connection of its own per call (WAL
mode, busy timeout), so the server's threads can share one. Only the newest :data:`KEEP` experiments of each
dataset and candidate are kept.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..engines.uplift.config import Arm, UpliftConfig
from ..engines.uplift.result import Calls, Outcome, SeedRun, UpliftResult
from ..engines.uplift.saved import KEEP, SavedUplift, UpliftSummary
from ..engines.uplift.stats import Interval
from ..metric.source import MetricSource
from ..provenance import Provenance
from .saved_runs import SavedRuns


class UpliftStore:
    """Uplift experiments in the studio's SQLite file in ``directory`` (the data directory when ``None``).

    Safe to share between threads; every method commits before returning.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self._runs = SavedRuns(directory, "uplift_runs", body="result", by_metric=("metric", "created_at"), keep=KEEP)
        self.directory, self.path = self._runs.directory, self._runs.path

    def save(self, result: UpliftResult, metric: MetricSource, provenance: Provenance) -> int:
        """Keep ``result`` with the metric folder it ran and what it ran on; return its id."""
        summary = {
            "outcome": result.outcome.value,
            "seeds": result.seeds_finished,
            "feedback_value": result.feedback_value.to_json(),
            "gains": {arm.value: found.gain.to_json() for arm, found in result.arms.items()},
            "models": list(result.models),
        }
        return self._runs.save(metric, provenance, result.created_at, summary, to_record(result))

    def list(self, *, metric: str | None = None, dataset: str | None = None) -> list[UpliftSummary]:
        """Saved experiments, newest first; only those of the metric digest ``metric`` and of ``dataset`` (its
        source) when given."""
        found = []
        for row in self._runs.rows(metric=metric, dataset=dataset):
            summary = row.summary
            seeds = int(summary.get("seeds", 0))
            found.append(
                UpliftSummary(
                    id=row.id,
                    created_at=row.created_at,
                    metric=row.metric,
                    provenance=row.provenance,
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
        run = self._runs.get(saved)
        if run is None:
            return None
        return SavedUplift(run.id, run.created_at, run.provenance, run.metric, from_record(run.body))

    def latest(self, dataset: str, candidate: str) -> SavedUplift | None:
        """The newest experiment of ``dataset`` (a source) and ``candidate``, whatever metric version made it."""
        newest = self._runs.newest(dataset, candidate)
        return self.get(newest) if newest is not None else None

    def clear(self) -> None:
        self._runs.clear()


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


def _models(value: Any) -> tuple[str, str]:
    items = [str(item) for item in value] if isinstance(value, list) else []
    return (items[0], items[1]) if len(items) == 2 else ("", "")
