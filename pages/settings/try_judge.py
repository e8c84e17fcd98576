"""The Settings page's "Try the model-as-judge example": the bundled judge metric on a few bundled cases, scored
as a workspace job (``Workspace.jobs.try_judge``: the one scoring path) with the form's settings, saved or not."""

from __future__ import annotations

import streamlit as st

from skynet_core.datasets import load_example
from skynet_core.i18n import _, format_cost, format_number, with_language
from skynet_core.judge import judge_summary
from skynet_core.runs.export import results_frame
from skynet_core.views.runs import costs_shown, words_shown
from skynet_core.views.settings import settings_from_form
from skynet_core.workspace import example_metric
from ui import studio
from ui.widgets.cases import column_config
from ui.widgets.jobs import job_panel, outcome_panel

TRY_CASES = 5
SLOT = "settings.try"
COLUMNS = ["id", "status", "score", "feedback", "error", "judge_ms", "judge_cost_usd"]


def start_try() -> None:
    """Score the first cases of the bundled tickets with the judge example and the form's settings (saved or not)."""
    me = studio.session()
    settings = settings_from_form(st.session_state.to_dict(), me.keys)
    example = load_example()
    cases = example.for_candidate(example.candidates[0])[:TRY_CASES]
    me.workspace.jobs.try_judge(me.slot(SLOT), example_metric("Model as judge"), cases, settings, watcher=me.watcher)


def try_judge() -> None:
    st.subheader(_("Try the model-as-judge example"))
    st.caption(
        _(
            "Scores the first {count} cases of the bundled tickets with the “Model as judge” example metric, in the "
            "sandbox, with the settings above: the whole path a metric's `llm()` takes."
        ).format(count=TRY_CASES)
    )
    slot = studio.session().slot(SLOT)
    st.button(
        _("Run the judge example"),
        key=SLOT,
        icon=":material/gavel:",
        on_click=with_language(start_try),
        disabled=slot.job is not None and slot.job.running,
    )
    outcome = job_panel(slot, "settings.try_job")
    if outcome is None or not outcome.finished or outcome_panel(outcome, "settings.try_job") or not outcome.results:
        return
    results = list(outcome.results)
    summary = judge_summary(results)
    cols = st.columns(3)
    cols[0].metric(_("Judge calls"), summary.calls)
    cols[1].metric(
        _("Judge time per 1,000 cases"), _("{value} s").format(value=format_number(summary.ms_per_1000 / 1000, 1))
    )
    cols[2].metric(
        _("Judge cost per 1,000 cases"),
        format_cost(summary.cost_per_1000),
    )
    frame = results_frame(results)[COLUMNS]
    frame["error"] = frame["error"].map(lambda text: text.splitlines()[0] if text else "")
    st.dataframe(words_shown(costs_shown(frame)), hide_index=True, width="stretch", column_config=column_config())
