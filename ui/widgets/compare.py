"""Two sets of scores compared (two versions on History, two runs on Runs): the one row of numbers."""

from __future__ import annotations

from functools import partial
from typing import Protocol

import streamlit as st

from skynet_core.i18n import _, format_number
from ui.widgets.text import number


class Compared(Protocol):
    """What both comparisons give (``history.compare_runs``, ``run_views.compare``)."""

    @property
    def old_mean(self) -> float | None: ...
    @property
    def new_mean(self) -> float | None: ...
    @property
    def improved(self) -> int: ...
    @property
    def worsened(self) -> int: ...
    @property
    def status_changed(self) -> int: ...


def comparison_row(result: Compared) -> None:
    """Mean A, mean B (with the change), improved, worsened and status changed: metrics as wide as they read,
    wrapping, never cut."""
    row = st.container(horizontal=True, gap="large")
    metric = partial(row.metric, width="content")
    change = None if result.old_mean is None or result.new_mean is None else result.new_mean - result.old_mean
    metric(_("Mean score, A"), number(result.old_mean))
    metric(_("Mean score, B"), number(result.new_mean), None if change is None else number(change))
    metric(_("Improved"), format_number(result.improved))
    metric(_("Worsened"), format_number(result.worsened))
    metric(_("Status changed"), format_number(result.status_changed))
