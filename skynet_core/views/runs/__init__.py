"""Saved runs as tables a person can question: the list of runs, one run's cases, two runs side by side,
the filters and sorts on them, and a run's export (CSV, JSONL, Parquet).

The Runs page only draws widgets and calls these. Every function takes and returns pandas frames:

- :func:`runs_table`: one row per saved run (newest first), with whether it matches the workspace now;
- :func:`run_frame`: one row per case of a run (``id``, ``status``, ``score``, one ``score.<name>``
  column per named score, ``feedback``, ``error``, ``input``, ``output``, ``expected``, ``split``,
  ``candidate``, ``latency_ms``, ``cost_usd``, ``duration_ms``, ``judge_cost_usd``), the case's input,
  output, expected and measurements as the run scored them;
- :func:`default_pair`, :func:`compare_frame`: which two runs Compare opens on (two runs of one
  candidate), and two runs paired by (candidate, id) or, across candidates, by id, with the change and
  the status change;
- :func:`filter_frame` / :func:`sort_frame` / :func:`sort_by_change`: the questions (score range,
  named-score range, status, split, text in the feedback) and the order (status changes first by
  the size of change);
- :func:`export_bytes`: a run's frame as a file, CSV cells made formula-neutral as every CSV export is.
"""

from ._cases import (
    JSON_COLUMNS,
    MEASURED_COLUMNS,
    TEXT_COLUMNS,
    CaseKey,
    dataset_cases,
    named_score_columns,
    run_cases,
    run_frame,
)
from ._compare import compare, compare_frame, default_pair, status_change
from ._filters import COMPARED, CaseFilter, Columns, bounds, filter_frame, narrowed, sort_by_change, sort_frame
from ._runs import RUN_COLUMNS, metric_name, run_label, runs_table, statuses_text, version_names, when
from ._shown import (
    COST_COLUMNS,
    EXPORT_FORMATS,
    MIMES,
    costs_shown,
    export_bytes,
    shown_frame,
    status_word,
    words_shown,
)

__all__ = [
    "COMPARED",
    "COST_COLUMNS",
    "CaseFilter",
    "CaseKey",
    "Columns",
    "EXPORT_FORMATS",
    "JSON_COLUMNS",
    "MEASURED_COLUMNS",
    "MIMES",
    "RUN_COLUMNS",
    "TEXT_COLUMNS",
    "bounds",
    "compare",
    "compare_frame",
    "costs_shown",
    "dataset_cases",
    "default_pair",
    "export_bytes",
    "filter_frame",
    "metric_name",
    "named_score_columns",
    "narrowed",
    "run_cases",
    "run_frame",
    "run_label",
    "runs_table",
    "shown_frame",
    "sort_by_change",
    "sort_frame",
    "status_change",
    "status_word",
    "statuses_text",
    "version_names",
    "when",
    "words_shown",
]
