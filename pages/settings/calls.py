"""The Settings page's call limits (temperature, timeout, concurrency, retries, caps, Ray), the environment's
defaults, and the isolation of metric code."""

from __future__ import annotations

import streamlit as st

from skynet_core.i18n import _
from skynet_core.llm import (
    BUDGET_RANGE_USD,
    CALLS_PER_CASE_RANGE,
    CONCURRENCY_RANGE,
    RETRIES_RANGE,
    TEMPERATURE_RANGE,
    TIMEOUT_RANGE_S,
)
from ui import keys as K
from ui import studio
from ui.widgets.sidebar import isolation_line
from ui.widgets.text import md


def calls_panel() -> None:
    st.subheader(_("How calls are made"))
    cols = st.columns(4)
    cols[0].slider(
        _("Temperature"),
        min_value=TEMPERATURE_RANGE[0],
        max_value=TEMPERATURE_RANGE[1],
        step=0.1,
        key="settings.temperature",
        help=_("0 makes a judge as repeatable as the model allows."),
    )
    cols[1].number_input(
        _("Request timeout (s)"),
        min_value=TIMEOUT_RANGE_S[0],
        max_value=TIMEOUT_RANGE_S[1],
        step=1.0,
        format="%g",
        key="settings.timeout",
        help=_(
            "One model call is given up after this long. The metric's own timeout still bounds the whole call of score."
        ),
    )
    cols[2].number_input(
        _("Calls in flight"),
        min_value=CONCURRENCY_RANGE[0],
        max_value=CONCURRENCY_RANGE[1],
        step=1,
        key="settings.concurrency",
        help=_(
            "Cases scored at once, so a slow judge's calls overlap: 200 cases against a judge that answers in "
            "200 ms take about 5 s with 8 in flight, not 40 s."
        ),
    )
    cols[3].number_input(
        _("Retries"),
        min_value=RETRIES_RANGE[0],
        max_value=RETRIES_RANGE[1],
        step=1,
        key="settings.retries",
        help=_(
            "A rate limit, timeout or server error is tried again this many times, with growing waits, before the "
            "case fails with the provider's message."
        ),
    )
    limits = st.columns([1, 1, 2])
    limits[0].number_input(
        _("`llm()` calls per case"),
        min_value=CALLS_PER_CASE_RANGE[0],
        max_value=CALLS_PER_CASE_RANGE[1],
        step=1,
        key="settings.max_calls",
        help=_("A case that calls `llm()` more often than this fails with an error naming the cap."),
    )
    limits[1].number_input(
        _("Budget per run (USD, 0 = none)"),
        min_value=0.0,
        max_value=BUDGET_RANGE_USD[1],
        step=1.0,
        format="%.2f",
        key="settings.budget",
        help=_(
            "Once a run's `llm()` calls have cost this much, its remaining cases fail with an error naming the "
            "budget. Calls whose cost is unknown count as free."
        ),
    )
    limits[2].text_input(
        _("Ray cluster address"),
        key=K.SETTINGS_RAY_ADDRESS,
        placeholder=_("e.g. HEAD_HOST:6379"),
        help=_(
            "Every scoring job (the check, “Score all”, comparisons, judge consistency, probes, the trade-offs' "
            "candidates) scores on the Ray cluster whose head is at this address (host:port, as `ray start --head` "
            "prints; requirements-ray.txt). Empty: cases are scored on this machine."
        ),
    )


def environment_panel() -> None:
    st.subheader(_("Defaults from the server's environment"))
    defaults = studio.session().workspace.settings.environment_defaults()
    # A few lines to read: text in the page (a grid draws on a canvas, and loading its component slowed the
    # page's first draw), each value as written.
    rows = [f"| `{name}` | {md(value) if value else '*' + _('(not set)') + '*'} |" for name, value in defaults]
    st.markdown("\n".join([f"| {_('variable')} | {_('value')} |", "| --- | --- |", *rows]))
    st.caption(
        _(
            "Saved settings win over these; “Reset to the environment's defaults” clears them. Keys come from the "
            "provider's usual variable (OPENAI_API_KEY, ANTHROPIC_API_KEY, …), read by the server only."
        )
    )


def isolation_panel() -> None:
    st.subheader(_("Isolation of metric code"))
    st.markdown(isolation_line(studio.session().workspace.pool, bold=True))
    st.caption(
        _(
            "Read-only: metric code runs in a separate process with no keys in its environment either way; full "
            "isolation also takes away its network and the server's files."
        )
    )
