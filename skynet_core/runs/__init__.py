"""Scored runs: what "Score all cases" keeps, what two versions' runs say side by side, and results written out.

- ``saved``: every finished run kept in SQLite with its cases, summary and provenance (:class:`RunStore`,
  :class:`SavedRun`, :class:`RunKey`), and a run's results per candidate (:func:`by_candidate`);
- ``history``: versions' names and diffs, and the per-case change between two runs (:func:`compare_runs`);
- ``export``: results as JSONL, CSV or Parquet (:func:`write_results`, :func:`results_frame`).

Only ``saved`` is re-exported here: ``export`` imports pandas, and ``history`` is the History page's.
"""

from .saved import (
    KEEP_RUNS,
    RunKey,
    RunStore,
    RunSummary,
    SavedRun,
    by_candidate,
    case_from_json,
    case_to_json,
    metric_hash,
    summarize,
)

__all__ = [
    "KEEP_RUNS",
    "RunKey",
    "RunStore",
    "RunSummary",
    "SavedRun",
    "by_candidate",
    "case_from_json",
    "case_to_json",
    "metric_hash",
    "summarize",
]
