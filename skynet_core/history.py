"""Comparing two versions of metric.py: the text diff and the per-case change in scores.

A case is compared when both runs have it (by candidate and id). Its delta is
``new - old`` when both scored ok; a change of status (ok → error, say) is
reported without a delta, since a failed case has no score.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from datetime import datetime

import pandas as pd

from .i18n import _, format_datetime
from .metric_source import MetricSource
from .results import CaseResult
from .store import Version, VersionKind

LABEL_NAME_CHARS = 48
"""Most characters of a version's name in its label; the rest becomes "…"."""
# A time the studio wrote into a version's name ("before … (19:28:49)", "autosave 19:28:49",
# "other tab's text, replaced at 19:28:49", or their Chinese with full-width brackets): the label shows the
# version's time once, itself.
_NAME_TIME = re.compile(r"\s*(?:[(（]\s*|\bat\s+)?\d{1,2}:\d{2}(?::\d{2})?\s*[)）]?\s*$")


def short_name(version: Version) -> str:
    """A version's name without the time the studio wrote into it ("autosave" for an autosave), at most
    :data:`LABEL_NAME_CHARS` characters: "#5 before Reward trade-offs wrote REWARD_SPEC"."""
    name = _NAME_TIME.sub("", version.name).strip() or version.name.strip()
    if version.kind is VersionKind.AUTO:
        name = _("autosave")
    if len(name) > LABEL_NAME_CHARS:
        name = name[: LABEL_NAME_CHARS - 1].rstrip() + "…"
    return f"#{version.id} {name}"


def version_label(version: Version) -> str:
    """A version as a picker shows it, short and saying the time once: "#5 before … wrote REWARD_SPEC ·
    11/30/26, 7:28 PM" (the time in the current locale; an autosave is called that; a long name is cut)."""
    stamp = format_datetime(datetime.fromtimestamp(version.created_at), "short")
    return f"{short_name(version)} · {stamp}"


def unified_diff(old: str, new: str, old_name: str = "old/metric.py", new_name: str = "new/metric.py") -> str:
    """A unified diff of two metric.py texts ("" when they are equal)."""
    return "".join(
        difflib.unified_diff(
            old.splitlines(keepends=True), new.splitlines(keepends=True), fromfile=old_name, tofile=new_name
        )
    )


def folder_diff(old: MetricSource, new: MetricSource) -> str:
    """A unified diff of two metric folders, file by file (metric.py first; "" when they are equal)."""
    names = [*old.files, *(name for name in new.files if name not in old.files)]
    return "".join(
        unified_diff(old.files.get(name, ""), new.files.get(name, ""), f"A/{name}", f"B/{name}") for name in names
    )


@dataclass(frozen=True)
class Comparison:
    """The per-case table and its summary. ``table`` columns: id, old_score, new_score, delta, old_status,
    new_status, split, candidate, old_feedback, new_feedback (largest |delta| first)."""

    table: pd.DataFrame
    improved: int
    worsened: int
    unchanged: int
    status_changed: int
    old_mean: float | None
    new_mean: float | None
    only_old: int
    only_new: int


def compare_runs(
    old: list[CaseResult], new: list[CaseResult], *, tolerance: float = 1e-9, by_id: bool = False
) -> Comparison:
    """Pair the two runs' results by (candidate, id), or by id alone with ``by_id`` (two candidates' runs on the
    same cases), and measure what changed."""

    def paired_by(result: CaseResult) -> tuple[str, str]:
        return ("", result.id) if by_id else (result.candidate, result.id)

    old_by_key = {paired_by(result): result for result in old}
    new_by_key = {paired_by(result): result for result in new}
    rows = []
    for key, after in new_by_key.items():
        before = old_by_key.get(key)
        if before is None:
            continue
        delta = None
        if before.ok and after.ok and before.score is not None and after.score is not None:
            delta = after.score - before.score
        rows.append(
            {
                "id": after.id,
                "split": after.split,
                "candidate": after.candidate,
                "old_status": before.status.value,
                "new_status": after.status.value,
                "old_score": before.score,
                "new_score": after.score,
                "delta": delta,
                "old_feedback": before.feedback if before.ok else before.error.split("\n", 1)[0],
                "new_feedback": after.feedback if after.ok else after.error.split("\n", 1)[0],
            }
        )
    table = pd.DataFrame(
        rows,
        columns=[  # the scores and the change first: what a reader looks for, visible at 900 px too
            "id",
            "old_score",
            "new_score",
            "delta",
            "old_status",
            "new_status",
            "split",
            "candidate",
            "old_feedback",
            "new_feedback",
        ],
    )
    for column in ("old_score", "new_score", "delta"):
        table[column] = pd.to_numeric(table[column], errors="coerce")
    if not table.empty:
        table = table.reindex(table["delta"].abs().sort_values(ascending=False, na_position="first").index)
        table = table.reset_index(drop=True)
    deltas = table["delta"].dropna()
    scored = table.dropna(subset=["delta"])
    return Comparison(
        table=table,
        improved=int((deltas > tolerance).sum()),
        worsened=int((deltas < -tolerance).sum()),
        unchanged=int((deltas.abs() <= tolerance).sum()),
        status_changed=int((table["old_status"] != table["new_status"]).sum()),
        old_mean=float(scored["old_score"].mean()) if len(scored) else None,
        new_mean=float(scored["new_score"].mean()) if len(scored) else None,
        only_old=len(old_by_key.keys() - new_by_key.keys()),
        only_new=len(new_by_key.keys() - old_by_key.keys()),
    )
