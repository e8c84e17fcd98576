"""Case results as a table: for the Author page's grid, the CLI's `--out`, and exports.

One row per case; one ``score.<name>`` column per named score seen in the run.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pandas as pd

from .results import CaseResult

BASE_COLUMNS = ["id", "split", "candidate", "status", "score"]
TAIL_COLUMNS = ["feedback", "duration_ms", "judge_calls", "judge_ms", "judge_cost_usd", "error", "extra", "stdout"]
OUT_FORMATS = (".csv", ".jsonl", ".parquet")
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a string that starts like a formula gets a leading ``'``.

    Feedback, case ids and candidates come from metric code and data files; a cell such as
    ``=HYPERLINK(...)`` would otherwise run as a formula when the CSV is opened. Every CSV the
    studio writes passes its cells through here; other values are returned unchanged.
    """
    if isinstance(value, str) and value.startswith(FORMULA_STARTS):
        return "'" + value
    return value


def score_names(results: list[CaseResult]) -> list[str]:
    """Named scores in the order they first appear."""
    names: dict[str, None] = {}
    for result in results:
        for name in result.scores:
            names.setdefault(name, None)
    return list(names)


def results_frame(results: list[CaseResult]) -> pd.DataFrame:
    """The per-case table. Missing named scores are NaN (the case did not report them)."""
    names = score_names(results)
    rows = []
    for result in results:
        row = {
            "id": result.id,
            "split": result.split,
            "candidate": result.candidate,
            "status": result.status.value,
            "score": result.score,
        }
        for name in names:
            row[f"score.{name}"] = result.scores.get(name)
        row.update({
            "feedback": result.feedback,
            "duration_ms": round(result.duration_ms, 3),
            "judge_calls": result.judge.calls,
            "judge_ms": round(result.judge.latency_ms, 1),
            "judge_cost_usd": result.judge.cost_usd,
            "error": result.error,
            "extra": orjson.dumps(result.extra, option=orjson.OPT_NON_STR_KEYS).decode() if result.extra else "",
            "stdout": result.stdout,
        })
        rows.append(row)
    columns = BASE_COLUMNS + [f"score.{name}" for name in names] + TAIL_COLUMNS
    frame = pd.DataFrame(rows, columns=columns)
    for column in ["score", *[f"score.{name}" for name in names], "judge_cost_usd"]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def write_results(results: list[CaseResult], path: str | Path) -> Path:
    """Write results as CSV, JSONL or Parquet, chosen by the file's extension."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in OUT_FORMATS:
        raise ValueError(f"cannot write {path.name}: use a .csv, .jsonl or .parquet file name")
    if suffix == ".jsonl":
        with path.open("wb") as handle:
            for result in results:
                handle.write(orjson.dumps(result.to_json(), option=orjson.OPT_NON_STR_KEYS) + b"\n")
        return path
    frame = results_frame(results)
    if suffix == ".csv":
        frame.map(safe_csv_cell).rename(columns=safe_csv_cell).to_csv(path, index=False)
    else:
        frame.to_parquet(path, index=False)
    return path
