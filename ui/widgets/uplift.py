"""How an edit to the feedback changed its value: the saved uplift experiments' feedback value of a metric version,
on History (versions A and B, and B against A) and on Runs (the version a run scored with).

A version's value is its most complete saved experiment with a value on the dataset
(``Workspace.uplift.feedback_value_of``), made by "Does this feedback help?" on Feedback review; a partial one says
so. B against A is the difference of two independent experiments, with Welch's interval
(``skynet_core.engines.uplift.stats.difference``).
"""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from skynet_core.engines.uplift.saved import UpliftSummary
from skynet_core.engines.uplift.standing import partial_note
from skynet_core.engines.uplift.stats import difference
from skynet_core.i18n import N_, _, format_datetime, ngettext
from skynet_core.metric.source import MetricSource
from skynet_core.workspace import Snapshot
from ui import studio
from ui.widgets.text import md

WHERE = N_("Does this feedback help?")


def value_text(summary: UpliftSummary) -> str:
    """A version's feedback value with its interval, the seeds it rests on (and how a partial experiment ended) and
    when it was measured."""
    seeds = ngettext("{count} seed", "{count} seeds", summary.seeds).format(count=summary.seeds)
    partial = partial_note(summary)
    when = format_datetime(datetime.fromtimestamp(summary.created_at), "short")
    return _("{value} · {seeds} · measured {when}").format(
        value=summary.feedback_value.describe(), seeds=seeds if partial is None else f"{seeds} · {partial}", when=when
    )


def nothing_yet() -> str:
    return _('none yet: run "{where}" on Feedback review with this version as the draft').format(where=_(WHERE))


def versions_feedback_value(snap: Snapshot, old: MetricSource, new: MetricSource) -> None:
    """History: the feedback value of versions A and B on the dataset in use, and B − A when both have one."""
    ws, dataset = studio.session().workspace, snap.in_use.data.source
    first, second = ws.uplift.feedback_value_of(old.digest, dataset), ws.uplift.feedback_value_of(new.digest, dataset)
    if first is None and second is None:
        st.caption(
            _(
                'Feedback value: neither version has one on this dataset yet. "{where}" on Feedback review measures '
                "the draft's."
            ).format(where=_(WHERE))
        )
        return
    lines = [
        _(
            "**Feedback value** on {dataset} (what an optimizer gains from the feedback, against the score alone)"
        ).format(dataset=md(snap.in_use.data.name)),
        _("A: {value}").format(value=value_text(first) if first is not None else nothing_yet()),
        _("B: {value}").format(value=value_text(second) if second is not None else nothing_yet()),
    ]
    if first is not None and second is not None:
        change = difference(second.feedback_value, first.feedback_value)
        lines.append(_("B − A: {value} (two experiments: Welch's interval)").format(value=change.describe()))
    st.markdown("  \n".join(lines))


def run_feedback_value(digest: str | None, dataset: str) -> None:
    """Runs: the feedback value of the metric version a run scored with (``digest``), on the run's dataset."""
    found = studio.session().workspace.uplift.feedback_value_of(digest, dataset) if digest else None
    text = value_text(found) if found is not None else nothing_yet()
    st.caption(_("Feedback value of this metric version: {value}").format(value=text))
