"""One run's cases as a frame: each case's input, output and expected as the run scored them, and its measurements."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import pandas as pd

from ...cases import Case
from ...runs import SavedRun
from ...runs.export import result_row, score_names

JSON_COLUMNS = ("input", "output", "expected")
TEXT_COLUMNS = ("feedback", "error")
# A case's measured latency and cost (what reward() reads), what metric.py took and what its llm() calls cost.
MEASURED_COLUMNS = ("latency_ms", "cost_usd", "duration_ms", "judge_cost_usd")


CaseKey = tuple[str, str]


def dataset_cases(cases: Sequence[Case]) -> dict[CaseKey, Case]:
    return {(case.candidate, case.id): case for case in cases}


def run_cases(run: SavedRun, lookup: Callable[[str], Sequence[Case] | None]) -> tuple[dict[CaseKey, Case], str]:
    """The cases a run scored, by (candidate, id), and where they come from: ``"kept"`` (saved with the run,
    as scored), ``"dataset"`` (a run saved before cases were kept: looked up by id in its dataset as it is
    now, through ``lookup(dataset source)``), or ``"missing"`` (that dataset cannot be read now)."""
    if run.cases is not None:
        return dataset_cases(run.cases), "kept"
    found = lookup(run.key.dataset)
    if found is None:
        return {}, "missing"
    return dataset_cases(found), "dataset"


def run_frame(run: SavedRun, cases: Mapping[CaseKey, Case] | None = None) -> pd.DataFrame:
    """One row per case of ``run`` (see the module docstring); a case not in ``cases`` has no input,
    output or expected (``None``); a named score the case did not report is NaN."""
    names = score_names(run.results)
    cases = cases or {}
    rows = []
    for result in run.results:
        case = cases.get((result.candidate, result.id))
        row = result_row(result, names)
        row.update(
            {
                "input": case.input if case else None,
                "output": case.output if case else None,
                "expected": case.expected if case else None,
                "latency_ms": case.observation.latency_ms if case else None,
                "cost_usd": case.observation.cost_usd if case else None,
            }
        )
        rows.append(row)
    named = [f"score.{name}" for name in names]
    order = ["id", "status", "score", *named, *TEXT_COLUMNS, *JSON_COLUMNS, "split", "candidate", *MEASURED_COLUMNS]
    frame = pd.DataFrame(rows, columns=order)
    for column in ["score", *(f"score.{name}" for name in names), *MEASURED_COLUMNS]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


def named_score_columns(frame: pd.DataFrame) -> list[str]:
    """The named scores of a frame (``score.<name>`` columns), by name."""
    return [column.removeprefix("score.") for column in frame.columns if column.startswith("score.")]
