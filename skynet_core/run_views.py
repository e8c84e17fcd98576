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

from __future__ import annotations

import dataclasses
import io
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import orjson
import pandas as pd

from .cases import Case
from .display import CELL_CHARS, clipped
from .export import result_row, safe_csv_cell, score_names
from .history import Comparison, compare_runs, short_name
from .i18n import _, format_cost, format_datetime, format_number
from .provenance import Provenance
from .results import CaseStatus
from .runs import RunKey, RunSummary, SavedRun
from .store import Version

EXPORT_FORMATS = ("csv", "jsonl", "parquet")
JSON_COLUMNS = ("input", "output", "expected")
TEXT_COLUMNS = ("feedback", "error")
# A case's measured latency and cost (what reward() reads), what metric.py took and what its llm() calls cost.
MEASURED_COLUMNS = ("latency_ms", "cost_usd", "duration_ms", "judge_cost_usd")
MIMES = {"csv": "text/csv", "jsonl": "application/jsonl", "parquet": "application/vnd.apache.parquet"}
RUN_COLUMNS = [
    "run",
    "when",
    "metric",
    "mean",
    "ok_share",
    "error_share",
    "statuses",
    "current",
    "candidate",
    "split",
    "cases",
    "dataset",
]
CaseKey = tuple[str, str]


# --- the list of runs ------------------------------------------------------------------------------


def version_names(versions: Sequence[Version], draft_digest: str = "") -> dict[str, str]:
    """Metric digest → what people call that text: "current draft", else the newest version with it."""
    names: dict[str, str] = {}
    for version in reversed(list(versions)):  # oldest first, so the newest version's name wins
        names[version.folder.digest] = short_name(version)
    if draft_digest:
        names[draft_digest] = _("current draft")
    return names


def statuses_text(statuses: Mapping[str, int]) -> str:
    """Counts by status, ok first, never cut, in the current language: "ok 33 · error 39 · timed out 1"."""
    order = list(CaseStatus)
    known = {status.value: status for status in order}

    def rank(name: str) -> tuple[int, str]:
        return (order.index(known[name]) if name in known else len(order), name)

    return " · ".join(
        f"{known[name].word if name in known else name} {format_number(statuses[name])}"
        for name in sorted(statuses, key=rank)
    )


def when(created_at: float) -> str:
    """A run's time in the current locale, short ("11/30/26, 7:28 PM" / "2026/11/30 19:28")."""
    return format_datetime(datetime.fromtimestamp(created_at), "short")


def metric_name(summary: RunSummary, names: Mapping[str, str]) -> str:
    digest = summary.provenance.metric if summary.provenance else ""
    return names.get(digest) or _("metric.py {hash}").format(hash=summary.key.metric_hash[:7])


def runs_table(
    summaries: Sequence[RunSummary], names: Mapping[str, str], current: Provenance | None = None
) -> pd.DataFrame:
    """One row per run, newest first. ``current``: the workspace's provenance now; ``current`` column is
    whether the run still matches it (same metric.py, dataset, candidate, split and model)."""
    rows = [
        {
            "run": summary.id,
            "when": when(summary.created_at),
            "metric": metric_name(summary, names),
            "dataset": summary.key.dataset_name or summary.key.dataset,
            "candidate": summary.key.candidate,
            "split": summary.key.split or _("all"),
            "cases": summary.case_count,
            "mean": summary.mean,
            "ok_share": summary.ok_share,
            "error_share": summary.error_share,
            "statuses": statuses_text(summary.statuses),
            "current": bool(current is not None and summary.provenance and not summary.provenance.changes(current)),
        }
        for summary in summaries
    ]
    frame = pd.DataFrame(rows, columns=RUN_COLUMNS)
    frame["mean"] = pd.to_numeric(frame["mean"], errors="coerce")
    return frame


def run_label(summary: RunSummary, names: Mapping[str, str]) -> str:
    """A run in a picker: "#12 · current draft · fast · 11/30/26, 7:28 PM"."""
    parts = [f"#{summary.id}", metric_name(summary, names)]
    if summary.key.candidate:
        parts.append(summary.key.candidate)
    parts.append(when(summary.created_at))
    return " · ".join(parts)


# --- one run's cases ---------------------------------------------------------------------------------


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


# --- two runs side by side ----------------------------------------------------------------------------


def status_change(old: str, new: str) -> str:
    return "" if old == new else f"{old} → {new}"


def default_pair(summaries: Sequence[RunSummary]) -> tuple[int, int] | None:
    """The runs Compare opens on, as (A, B) ids: the two latest runs of one candidate on one dataset (the
    same split when there are such), so that they have every case in common; the two newest runs when no
    candidate has two; ``None`` with fewer than two runs. ``summaries`` are newest first (``RunStore.list``)."""
    if len(summaries) < 2:
        return None
    for same in (_same_cases, _same_candidate):
        for index, newer in enumerate(summaries):
            older = next((other for other in summaries[index + 1 :] if same(newer.key, other.key)), None)
            if older is not None:
                return older.id, newer.id
    return summaries[1].id, summaries[0].id


def _same_candidate(a: RunKey, b: RunKey) -> bool:
    return (a.dataset, a.candidate) == (b.dataset, b.candidate)


def _same_cases(a: RunKey, b: RunKey) -> bool:
    return _same_candidate(a, b) and a.split == b.split


def compare(old: SavedRun, new: SavedRun, *, by_id: bool = False) -> Comparison:
    """History's comparison of two runs (means, improved, worsened…) with :func:`compare_frame`'s table;
    ``by_id`` pairs the cases by id alone (two candidates' runs on the same cases)."""
    return dataclasses.replace(
        compare_runs(old.results, new.results, by_id=by_id), table=compare_frame(old, new, by_id=by_id)
    )


def compare_frame(old: SavedRun, new: SavedRun, *, by_id: bool = False) -> pd.DataFrame:
    """Cases of both runs paired by (candidate, id), or by id with ``by_id``: History's comparison table
    (``old_score``, ``new_score``, ``delta`` = B − A when both scored ok…) plus ``status_change``
    ("ok → error") and B's named scores as ``score.<name>`` (so the named-score filter reads run B)."""
    table = compare_runs(old.results, new.results, by_id=by_id).table
    table.insert(
        5, "status_change", [status_change(a, b) for a, b in zip(table["old_status"], table["new_status"], strict=True)]
    )
    after = {(result.candidate, result.id): result for result in new.results}
    for name in score_names(new.results):
        values = [
            after[(candidate, case)].scores.get(name)
            for candidate, case in zip(table["candidate"], table["id"], strict=True)
        ]
        table[f"score.{name}"] = pd.to_numeric(pd.Series(values, index=table.index, dtype=object), errors="coerce")
    first = ["id", "old_score", "new_score", "delta", "status_change", "old_status", "new_status"]
    return table[[*first, *(column for column in table.columns if column not in first)]]


# --- questions: filters and sorting --------------------------------------------------------------------


@dataclass(frozen=True)
class CaseFilter:
    """What to keep. A range is ``(low, high)``, both included, and leaves out a case with no value
    (``None``: no range); ``named`` picks the named score ``named_range`` applies to; ``statuses`` and
    ``splits`` keep the cases with one of them (empty: all); ``text`` keeps the cases whose feedback or
    error holds it, ignoring case."""

    score: tuple[float, float] | None = None
    named: str | None = None
    named_range: tuple[float, float] | None = None
    statuses: tuple[str, ...] = ()
    splits: tuple[str, ...] = ()
    text: str = ""


@dataclass(frozen=True)
class Columns:
    """Which columns a filter reads: one run's frame (the default) or a comparison (:data:`COMPARED`)."""

    score: str = "score"
    statuses: tuple[str, ...] = ("status",)
    texts: tuple[str, ...] = TEXT_COLUMNS


COMPARED = Columns("new_score", ("old_status", "new_status"), ("old_feedback", "new_feedback"))
"""On a comparison the ranges read run B, a status matches either run, the text either run's feedback."""


def bounds(frame: pd.DataFrame, column: str) -> tuple[float, float] | None:
    """The lowest and highest value of a numeric column (``None`` when it has none)."""
    if column not in frame:
        return None
    values = pd.to_numeric(frame[column], errors="coerce").dropna()
    return (float(values.min()), float(values.max())) if len(values) else None


def narrowed(chosen: tuple[float, float], whole: tuple[float, float] | None) -> tuple[float, float] | None:
    """A slider's range as a filter: ``None`` while it spans every value (so unscored cases stay in)."""
    if whole is None or (chosen[0] <= whole[0] and chosen[1] >= whole[1]):
        return None
    return chosen


def _in_range(values: pd.Series, low_high: tuple[float, float]) -> pd.Series:
    low, high = low_high
    numbers = pd.to_numeric(values, errors="coerce")
    return numbers.between(low, high) & numbers.notna()


def filter_frame(frame: pd.DataFrame, chosen: CaseFilter, columns: Columns = Columns()) -> pd.DataFrame:
    """The rows of ``frame`` that ``chosen`` keeps, in their order."""
    keep = pd.Series(True, index=frame.index)
    if chosen.score is not None:
        keep &= _in_range(frame[columns.score], chosen.score)
    if chosen.named and chosen.named_range is not None:
        column = f"score.{chosen.named}"
        keep &= _in_range(frame[column], chosen.named_range) if column in frame else False
    if chosen.statuses:
        wanted = set(chosen.statuses)
        keep &= pd.concat([frame[name].isin(wanted) for name in columns.statuses], axis=1).any(axis=1)
    if chosen.splits:
        keep &= frame["split"].isin(set(chosen.splits))
    text = chosen.text.strip()
    if text:
        found = [
            frame[name].fillna("").astype(str).str.contains(text, case=False, regex=False) for name in columns.texts
        ]
        keep &= pd.concat(found, axis=1).any(axis=1)
    return frame[keep]


def sort_frame(frame: pd.DataFrame, column: str, descending: bool = False, *, magnitude: bool = False) -> pd.DataFrame:
    """``frame`` sorted by ``column`` (stable; empty values last); ``magnitude`` sorts by the absolute value
    (the size of a change, whichever way)."""
    if column not in frame:
        return frame
    values = frame[column]
    if magnitude:
        values = pd.to_numeric(values, errors="coerce").abs()
    order = values.sort_values(ascending=not descending, na_position="last", kind="stable").index
    return frame.loc[order]


def sort_by_change(frame: pd.DataFrame, descending: bool = True) -> pd.DataFrame:
    """A comparison (:func:`compare_frame`) by the size of its change, largest first (``descending``): a change
    of status first, the fixes (… → ok) before the breaks, then by how far the score moved; unchanged cases
    with no score last either way. Stable."""
    if frame.empty or "status_change" not in frame:
        return frame
    changed = frame["status_change"].fillna("").astype(bool)
    fixed = changed & (frame["new_status"] == "ok")
    moved = pd.to_numeric(frame["delta"], errors="coerce").abs()
    # One number per row: a status change outranks any move of the score (moves are at most a score's range).
    size = moved.where(~changed, float("inf"))
    rank = pd.DataFrame({"size": size, "fixed": fixed.astype(int)}, index=frame.index)
    ordered = rank.sort_values(["size", "fixed"], ascending=not descending, na_position="last", kind="stable")
    return frame.loc[ordered.index]


# --- showing and exporting -------------------------------------------------------------------------------


def _json_text(value: Any) -> str:
    if value is None:
        return ""
    return orjson.dumps(value, option=orjson.OPT_NON_STR_KEYS).decode()


COST_COLUMNS = ("judge_cost_usd", "cost_usd")
"""Costs in US dollars: numbers in a run's frame and its downloads, :func:`format_cost` text on screen."""


def costs_shown(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with its costs as every page writes them (:func:`~skynet_core.i18n.format_cost`: "$0.000045",
    "$0.0020"); a case without a cost shows nothing. A copy when it has any: ``frame`` keeps its numbers."""
    present = [column for column in COST_COLUMNS if column in frame]
    if not present:
        return frame
    shown = frame.copy()
    for column in present:
        shown[column] = shown[column].map(lambda usd: "" if usd is None or pd.isna(usd) else format_cost(float(usd)))
    return shown


def shown_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` for a table on screen: input, output and expected as JSON text, long texts clipped, costs
    written as everywhere else (:func:`costs_shown`)."""
    shown = costs_shown(frame).copy()
    for column in (*JSON_COLUMNS, *TEXT_COLUMNS, "old_feedback", "new_feedback"):
        if column in shown:
            texts = shown[column].map(_json_text) if column in JSON_COLUMNS else shown[column].fillna("").astype(str)
            shown[column] = texts.map(lambda text: clipped(text, CELL_CHARS))
    return shown


def _plain(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def export_bytes(frame: pd.DataFrame, form: str) -> bytes:
    """``frame`` (from :func:`run_frame`) as a CSV, JSONL or Parquet file. In JSONL input, output and
    expected stay JSON values; in CSV and Parquet they are JSON text. Every CSV cell (and header) that
    starts like a spreadsheet formula is neutralised (:func:`~skynet_core.export.safe_csv_cell`)."""
    if form == "jsonl":
        records = [{key: _plain(value) for key, value in row.items()} for row in frame.to_dict("records")]
        return b"".join(orjson.dumps(record, option=orjson.OPT_NON_STR_KEYS) + b"\n" for record in records)
    flat = frame.copy()
    for column in JSON_COLUMNS:
        if column in flat:
            flat[column] = flat[column].map(_json_text)
    if form == "csv":
        flat = flat.map(safe_csv_cell)
        flat.columns = [safe_csv_cell(column) for column in flat.columns]
        return flat.to_csv(index=False, lineterminator="\n").encode("utf-8")
    if form == "parquet":
        buffer = io.BytesIO()
        flat.to_parquet(buffer, index=False, engine="pyarrow")
        return buffer.getvalue()
    raise ValueError(f"unknown export format {form!r}")
