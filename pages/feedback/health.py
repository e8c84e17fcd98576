"""Feedback review: the metric's health over a run, the trivial-output probes, and the optional model review.
Probes and grading are workspace jobs (listed under Running jobs, cancellable), drawn through the one job panel."""

from __future__ import annotations

from typing import Any

import streamlit as st

from skynet_core.cases import Case
from skynet_core.feedback import Grade, HealthFinding, Review, Severity, health, judge_probes
from skynet_core.i18n import N_, _, language, with_language
from skynet_core.llm import NO_MODEL_MESSAGE
from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult
from skynet_core.runs import SavedRun
from skynet_core.views.feedback import case_ids_text, grade_summary, to_grade
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui import studio
from ui.widgets.cases import column_config
from ui.widgets.jobs import job_panel, outcome_panel
from ui.widgets.text import md

S = st.session_state
Pairs = list[tuple[Case, CaseResult]]
PROBES, GRADES = "feedback.probes", "feedback.grades"
# What ModelSettings.effective() says of the model in effect, as the page names it.
WHICH = {
    "metric model": N_("metric model"),
    "reflection model (no metric model is set)": N_("reflection model (no metric model is set)"),
}
PROBE_COLUMNS = ["id", "status", "score", "feedback"]


def action_row() -> Any:
    """Buttons and their caption side by side on one line."""
    return st.container(horizontal=True, wrap=True, vertical_alignment="center", gap="medium")


def findings_list(findings: list[HealthFinding]) -> None:
    for finding in findings:
        text = md(finding.message)
        if finding.case_ids:
            text += "  \n" + _("Cases: {cases}").format(cases=md(case_ids_text(finding.case_ids)))
        if finding.severity is Severity.WARNING:
            st.warning(text, icon=":material/warning:")
        else:
            st.info(text, icon=":material/info:")


def start_probes(run: SavedRun, cases: list[Case]) -> None:
    me = studio.session()
    metric = MetricSource.of(run.metric_source) if run.metric_source else me.workspace.drafts.current().metric
    me.workspace.jobs.probes(me.slot(PROBES), metric, cases, label=str(run.id), keys=me.keys, watcher=me.watcher)


def draw_health(snap: Snapshot, run: SavedRun, pairs: Pairs) -> None:
    st.subheader(_("Metric health"))
    st.caption(
        _(
            "The metric as a whole over this run: can it rank candidates, does it fail, "
            "does it reward outputs that differ from the expected ones?"
        )
    )
    memo = S.get(K.FEEDBACK_HEALTH)
    if memo is None or memo[0] != (run.id, language()):
        memo = ((run.id, language()), health(pairs))
        S[K.FEEDBACK_HEALTH] = memo
    if memo[1]:
        findings_list(memo[1])
    else:
        st.success(_("No problem found with the metric as a whole."), icon=":material/check_circle:")
    draw_probes(run, pairs)


def draw_probes(run: SavedRun, pairs: Pairs) -> None:
    st.markdown("**" + _("Probes") + "**")
    slot = studio.session().slot(PROBES)
    with action_row():
        st.button(
            _("Run probes"),
            on_click=with_language(start_probes),
            args=(run, [case for case, _res in pairs]),
            disabled=slot.job is not None and slot.job.running,
            icon=":material/science:",
            key="feedback.probe",
        )
        st.caption(
            _(
                'Scores trivial outputs (an empty string, the input echoed back, "I don\'t know") against up '
                "to 20 of the run's cases, in the isolated workers. A metric that rewards them can be gamed."
            )
        )
    outcome = job_panel(slot, "feedback.probe_job")
    job = slot.job
    if outcome is None or job is None or not outcome.finished or job.label != str(run.id):
        return
    if outcome_panel(outcome, "feedback.probe_job"):
        return
    results = list(outcome.results)
    findings = judge_probes(results, run.results)
    if findings:
        findings_list(findings)
    else:
        st.success(
            _("The metric gave none of the {count} trivial outputs a high score.").format(count=len(results)),
            icon=":material/check_circle:",
        )
    with st.expander(_("Probe results ({count})").format(count=len(results))):
        from skynet_core.runs.export import results_frame

        frame = results_frame(results)[PROBE_COLUMNS]
        config = column_config()
        st.dataframe(frame, hide_index=True, width="stretch", key="feedback.probe_table", column_config=config)


def current_grades(run: SavedRun) -> dict[str, Grade]:
    """The grades of this run's model review so far (none when the last review was of another run)."""
    job = studio.session().slot(GRADES).job
    if job is None or job.label != str(run.id):
        return {}
    return {grade.case_id: grade for grade in job.items}


def start_grading(run: SavedRun, pairs: Pairs) -> None:
    me, snap = studio.session(), studio.snapshot()
    me.workspace.jobs.grade_feedback(me.slot(GRADES), pairs, snap.settings, label=str(run.id), watcher=me.watcher)


def draw_model_review(snap: Snapshot, run: SavedRun, pairs: Pairs, result: Review, grades: dict[str, Grade]) -> None:
    with st.expander(_("Model review (optional)"), icon=":material/smart_toy:"):
        st.caption(
            _(
                "A second opinion beside the rules: the metric model grades how actionable each flagged "
                "feedback is, from 1 (nothing to act on) to 5 (names the fault and the fix), with a reason. "
                "Nothing on this page needs it."
            )
        )
        chosen = snap.settings.effective()
        if chosen is None:
            message = _(NO_MODEL_MESSAGE)
            st.info(message[:1].upper() + message[1:] + ".", icon=":material/info:")
            return
        config, which = chosen
        chosen_pairs, more = to_grade(result, pairs)
        slot = studio.session().slot(GRADES)
        with action_row():
            st.button(
                _("Grade {count} flagged").format(count=len(chosen_pairs)),
                on_click=with_language(start_grading),
                args=(run, chosen_pairs),
                disabled=(slot.job is not None and slot.job.running) or not chosen_pairs,
                icon=":material/grading:",
                key="feedback.grade",
            )
            uses = (
                _("Uses `{model}`, the {which}: one call per flagged case (the first {count}).")
                if more
                else _("Uses `{model}`, the {which}: one call per flagged case.")
            )
            named = _(WHICH[which]) if which in WHICH else which
            st.caption(uses.format(model=md(config.model), which=md(named), count=len(chosen_pairs)))
        outcome = job_panel(slot, "feedback.grade_job")
        if outcome is not None and outcome.finished:
            outcome_panel(outcome, "feedback.grade_job")
        said, problem = grade_summary(grades)
        if said:
            st.markdown(said)
        if problem:
            st.warning(md(problem), icon=":material/warning:")
