"""Try one case: edit one case's input, output and expected as JSON and see what metric.py makes of it.

The case runs in the sandboxed runner through the workspace (a ``try`` job), never in this process;
"Save as a case" adds it to the user dataset (a JSON Lines file the Data page can open).
"""

from __future__ import annotations

import streamlit as st

import studio
from skynet_core.authoring import CaseJsonError, case_json, parse_case
from skynet_core.cases import Case
from skynet_core.i18n import N_, _
from skynet_core.jobs import Job
from skynet_core.metric_source import MetricSource
from skynet_core.results import CheckReport

S = st.session_state
KEY = "author.try"
POLL_S = 0.2
SETTLE_S = 1.0
FIELDS = {
    "input": N_("Input (a JSON object)"),
    "output": N_("Output (any JSON)"),
    "expected": N_("Expected (a JSON object, or empty)"),
}
FIELD_NAMES = {"input": N_("input"), "output": N_("output"), "expected": N_("expected")}


def prefill(case: Case) -> None:
    """Put ``case`` in the panel's fields (call from a callback, before the panel draws)."""
    S[f"{KEY}.id"] = case.id
    S[f"{KEY}.split"] = case.split
    S[f"{KEY}.input"] = case_json(case.input)
    S[f"{KEY}.output"] = case_json(case.output)
    S[f"{KEY}.expected"] = case_json(case.expected) if case.expected is not None else ""
    S.pop(f"{KEY}.error", None)


def typed_case() -> Case | None:
    """The case the fields hold, or None with the error (naming the field) kept for the panel."""
    try:
        case = parse_case(
            S.get(f"{KEY}.id") or "typed-case",
            S.get(f"{KEY}.input", ""),
            S.get(f"{KEY}.output", ""),
            S.get(f"{KEY}.expected", ""),
            split=S.get(f"{KEY}.split") or "train",
        )
    except CaseJsonError as exc:
        S[f"{KEY}.error"] = _("The {field} is not valid: {message}").format(
            field=_(FIELD_NAMES.get(exc.field, exc.field)), message=exc.message
        )
        return None
    S.pop(f"{KEY}.error", None)
    return case


def run(metric: MetricSource) -> None:
    case = typed_case()
    if case is not None:
        ws = studio.workspace()
        ws.try_case(studio.job_slot("try"), metric, case, keys=studio.session_keys(), watcher=studio.watcher()).wait(
            SETTLE_S
        )


def save() -> None:
    case = typed_case()
    if case is not None:
        path = studio.workspace().save_user_case(case)
        S[f"{KEY}.saved"] = _(
            "Saved case {id} to {path}: open that file on the Data page to score it with the rest."
        ).format(id=case.id, path=path)


def draw_try_case(metric: MetricSource, cases: list[Case]) -> None:
    """The panel: a case to start from, the three JSON fields, Run and Save, then the result at once."""
    if f"{KEY}.input" not in S and cases:
        prefill(cases[0])
    ids = [case.id for case in cases]
    top = st.columns([2, 1], vertical_alignment="bottom")
    top[0].selectbox(
        _("Start from a case"),
        ids,
        index=None,
        placeholder=_("pick a case to copy its fields"),
        key=f"{KEY}.pick",
        on_change=lambda: prefill(next(c for c in cases if c.id == S[f"{KEY}.pick"])) if S.get(f"{KEY}.pick") else None,
    )
    top[1].text_input(_("Case id"), key=f"{KEY}.id")
    cols = st.columns(3)
    for col, name in zip(cols, FIELDS, strict=True):
        col.text_area(_(FIELDS[name]), key=f"{KEY}.{name}", height=180)
    with st.container(horizontal=True):
        st.button(
            _("Run this case"),
            on_click=run,
            args=(metric,),
            type="primary",
            icon=":material/play_arrow:",
            key=f"{KEY}.run",
        )
        st.button(_("Save as a case"), on_click=save, icon=":material/add_notes:", key=f"{KEY}.save")
    if error := S.get(f"{KEY}.error"):
        st.error(error, icon=":material/data_object:")
    if saved := S.pop(f"{KEY}.saved", None):
        st.success(studio.md(saved), icon=":material/check:")
    result_panel()


def result_panel() -> None:
    slot = studio.job_slot("try")
    job = slot.job
    if job is not None and job.finished:
        S[f"{KEY}.drawn"] = job.id

    @st.fragment(run_every=POLL_S if job is not None and job.running else None)
    def panel() -> None:
        current = slot.job
        if current is not None and current.finished and S.get(f"{KEY}.drawn") != current.id:
            S[f"{KEY}.drawn"] = current.id
            st.rerun()  # a full run stops the polling
        draw_result(current)

    panel()


def draw_result(job: Job[CheckReport] | None) -> None:
    if job is None:
        return
    if job.running:
        st.caption(_("Running the case… ({seconds} s)").format(seconds=f"{job.elapsed_s:.1f}"))
        return
    report = job.result
    if job.error or report is None:
        st.error(_("The case could not run. Try again; if it repeats, restart the app."))
        return
    if not report.cases:
        failure = report.first_failure
        st.error(
            _("metric.py fails at {stage} before the case runs; see the contract check.").format(
                stage=failure.label if failure else "load"
            )
        )
        return
    result = report.cases[0]
    cols = st.columns([1, 1, 2])
    cols[0].metric(_("Score"), f"{result.score:.3f}" if result.score is not None else "–")
    cols[1].metric(_("Status"), result.status.value)
    with cols[2]:
        if result.scores:
            st.markdown("**" + _("Named scores") + "**")
            st.dataframe(
                {_("named score"): list(result.scores), _("value"): list(result.scores.values())}, hide_index=True
            )
    st.markdown("**" + _("Feedback") + "**")
    studio.long_text(result.feedback, key=f"{KEY}.feedback", empty=_("(no feedback)"))
    if result.error:
        st.markdown("**" + _("Error") + "**")
        studio.long_text(result.error, key=f"{KEY}.error_text")
    st.markdown("**" + _("Printed by metric.py") + "**")
    studio.long_text(result.stdout, key=f"{KEY}.stdout", empty=_("(nothing was printed)"))
