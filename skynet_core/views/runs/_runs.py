"""The list of saved runs as one table: a row per run, newest first, with whether it matches the workspace now."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

import pandas as pd

from ...i18n import _, format_datetime, format_number
from ...provenance import Provenance
from ...results import CaseStatus
from ...runs import RunSummary
from ...runs.history import short_name
from ...store import Version

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
