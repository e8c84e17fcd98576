"""The Settings page's "Try the model-as-judge example": the bundled judge metric on a few bundled cases,
scored by the workspace's one scoring path (``Workspace.score``, a background job), with the form's settings."""

from __future__ import annotations

import pandas as pd
import streamlit as st

import studio
from skynet_core.i18n import _, format_number
from skynet_core.judge import judge_summary
from skynet_core.settings_form import settings_from_form
from skynet_core.workspace import example_metric

TRY_CASES = 5
SLOT = "settings.try"


def start_try() -> None:
    """Score the first cases of the bundled tickets with the judge example and the form's settings (saved or not)."""
    from skynet_core.datasets import load_example

    settings = settings_from_form(st.session_state, studio.session_keys())

    example = load_example()
    studio.workspace().score(
        studio.job_slot(SLOT),
        example_metric("Model as judge"),
        example.for_candidate(example.candidates[0])[:TRY_CASES],
        studio.run_options(settings),
        kind="try judge",
        watcher=studio.watcher(),
    )


def try_judge() -> None:
    st.subheader(_("Try the model-as-judge example"))
    st.caption(
        _(
            "Scores the first {count} cases of the bundled tickets with the “Model as judge” example metric, in the "
            "sandbox, with the settings above: the whole path a metric's `llm()` takes."
        ).format(count=TRY_CASES)
    )
    slot = studio.job_slot(SLOT)
    job = slot.job
    done = job is not None and job.finished
    st.button(
        _("Run the judge example"),
        key=SLOT,
        icon=":material/gavel:",
        on_click=start_try,
        disabled=job is not None and not done,
    )
    studio.job_progress(slot, "settings.try_job", _("Judging"), job, done)
    if job is None or not done:
        return
    if job.error:
        st.error(_("The judge example could not run."))
        studio.long_text(job.error, key="settings.try_error")
        return
    results = job.result.cases if job.result is not None else job.partial
    if not results:
        return
    summary = judge_summary(results)
    cols = st.columns(3)
    cols[0].metric(_("Judge calls"), summary.calls)
    cols[1].metric(
        _("Judge time per 1,000 cases"), _("{value} s").format(value=format_number(summary.ms_per_1000 / 1000, 1))
    )
    cols[2].metric(
        _("Judge cost per 1,000 cases"),
        f"${summary.cost_per_1000:.4f}" if summary.cost_per_1000 is not None else _("unknown"),
    )
    frame = pd.DataFrame(
        [
            {
                "id": r.id,
                "status": r.status.value,
                "score": r.score,
                "verdict": r.feedback if r.ok else r.error.splitlines()[0] if r.error else "",
                "judge_ms": r.judge.latency_ms,
                "judge_cost_usd": r.judge.cost_usd,
            }
            for r in results
        ]
    )
    st.dataframe(
        frame,
        hide_index=True,
        width="stretch",
        column_config={
            "status": st.column_config.TextColumn(_("status")),
            "score": st.column_config.NumberColumn(_("score"), format="%.2f"),
            "verdict": st.column_config.TextColumn(_("verdict or error"), width="large"),
            "judge_ms": st.column_config.NumberColumn(_("judge time"), format="%.0f ms"),
            "judge_cost_usd": st.column_config.NumberColumn(_("judge cost"), format="$%.6f"),
        },
    )
