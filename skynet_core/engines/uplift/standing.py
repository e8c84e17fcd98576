"""Which saved uplift experiment speaks for a metric version's feedback value, and whether it is partial.

A version may have several experiments on a dataset: a complete one, a newer one cancelled after its first seed, one
stopped at its budget. The value shown for the version (History, Runs) is the most complete one's; a partial one is
shown only when there is nothing more complete, and is said to be partial.
"""

from __future__ import annotations

from collections.abc import Iterable

from skynet_core.engines.uplift.saved import UpliftSummary

from ...i18n import N_, _
from .result import Outcome

PARTIAL = {
    Outcome.CANCELLED: N_("partial: cancelled"),
    Outcome.BUDGET: N_("partial: stopped at its budget"),
    Outcome.FAILED: N_("partial: a model call failed"),
    Outcome.METRIC_FAILED: N_("partial: the metric scored no case"),
}


def most_complete(found: Iterable[UpliftSummary]) -> UpliftSummary | None:
    """Of a version's saved experiments, the one whose feedback value speaks for it: among those with a value, a
    complete one before a partial one, then the one with the most seeds, then the newest (``None``: none has one)."""
    valued = [summary for summary in found if summary.feedback_value.value is not None]
    return max(
        valued,
        key=lambda summary: (summary.outcome is Outcome.COMPLETE, summary.seeds, summary.created_at, summary.id),
        default=None,
    )


def partial_note(summary: UpliftSummary) -> str | None:
    """How a partial experiment ended, for people ("partial: cancelled"); ``None`` for a complete one."""
    note = PARTIAL.get(summary.outcome)
    return _(note) if note is not None else None
