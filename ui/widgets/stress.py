"""What the stress test said about a metric version: on History (versions A and B) and on Runs (the version a run
scored with), the newest saved stress run of that version on the dataset ("stress: hackable (claims_correct 47%)"),
made on the Stress test page (``Workspace.stress.latest_of``)."""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from skynet_core.i18n import _, format_datetime
from skynet_core.metric.source import MetricSource
from skynet_core.stress.saved import StressRow
from skynet_core.workspace import Snapshot
from ui import studio
from ui.widgets.text import md


def stress_text(row: StressRow | None) -> str:
    """A version's stress verdict and when it was measured, or how to get one."""
    if row is None:
        return _("stress: not tested yet (the Stress test page tests the draft)")
    when = format_datetime(datetime.fromtimestamp(row.created_at), "short")
    return _("{verdict} · tested {when}").format(verdict=row.summary.describe(), when=when)


def versions_stress(snap: Snapshot, old: MetricSource, new: MetricSource) -> None:
    """History: the stress verdict of versions A and B on the dataset in use."""
    ws, dataset = studio.session().workspace, snap.in_use.data.source
    first, second = ws.stress.latest_of(old.digest, dataset), ws.stress.latest_of(new.digest, dataset)
    st.caption(
        "  \n".join(
            [
                _("A: {value}").format(value=md(stress_text(first))),
                _("B: {value}").format(value=md(stress_text(second))),
            ]
        )
    )


def run_stress_line(digest: str | None, dataset: str) -> None:
    """Runs: the stress verdict of the metric version a run scored with (``digest``), on the run's dataset."""
    found = studio.session().workspace.stress.latest_of(digest, dataset) if digest else None
    st.caption(md(stress_text(found)))
