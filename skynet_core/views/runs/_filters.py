"""The questions asked of a run's frame: score and named-score ranges, status, split, text; and its order."""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ._cases import TEXT_COLUMNS


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
