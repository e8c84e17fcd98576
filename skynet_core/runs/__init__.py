"""Scored runs: what "Score all cases" keeps, what two versions' runs say side by side, and results written out.

- ``saved``: the records of every finished run kept (:class:`SavedRun`, :class:`RunKey`, :class:`RunSummary`: the
  SQL is :class:`skynet_core.store.runs.RunStore`), and a run's results per candidate (:func:`by_candidate`);
- ``history``: versions' names and diffs, and the per-case change between two runs (:func:`compare_runs`);
- ``export``: results as JSONL, CSV or Parquet (:func:`write_results`, :func:`results_frame`).

Only ``saved`` is re-exported here: ``export`` imports pandas, and ``history`` is the History page's.
"""

from .saved import (
    KEEP_RUNS,
    RunKey,
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
    "RunSummary",
    "SavedRun",
    "by_candidate",
    "case_from_json",
    "case_to_json",
    "metric_hash",
    "summarize",
]
