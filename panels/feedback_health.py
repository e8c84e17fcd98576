"""Feedback review: the metric's health over a run, the trivial-output probes, and the optional model review."""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

import studio
from skynet_core import llm
from skynet_core.cases import Case
from skynet_core.feedback import (
    Grade,
    HealthFinding,
    Review,
    Severity,
    grade_feedback,
    health,
    judge_probes,
    probe_cases,
)
from skynet_core.feedback.view import case_ids_text, grade_summary, to_grade
from skynet_core.i18n import _, language, use_language
from skynet_core.jobs import Job
from skynet_core.llm import NO_MODEL_MESSAGE, ModelSettings
from skynet_core.metric_source import MetricSource
from skynet_core.results import CaseResult
from skynet_core.runs import SavedRun

S = st.session_state
md = studio.md
Pairs = list[tuple[Case, CaseResult]]


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
    metric = MetricSource.of(run.metric_source) if run.metric_source else studio.metric()
    slot = studio.job_slot("feedback.probes")
    studio.workspace().score(
        slot,
        metric,
        probe_cases(cases),
        studio.run_options(),
        kind="probes",
        label=str(run.id),
        watcher=studio.watcher(),
    )


def draw_health(run: SavedRun, pairs: Pairs) -> None:
    st.subheader(_("Metric health"))
    st.caption(
        _(
            "The metric as a whole over this run: can it rank candidates, does it fail, "
            "does it reward outputs that differ from the expected ones?"
        )
    )
    memo = S.get("feedback.health")
    if memo is None or memo[0] != (run.id, language()):
        memo = ((run.id, language()), health(pairs))
        S["feedback.health"] = memo
    if memo[1]:
        findings_list(memo[1])
    else:
        st.success(_("No problem found with the metric as a whole."), icon=":material/check_circle:")
    draw_probes(run, pairs)


def draw_probes(run: SavedRun, pairs: Pairs) -> None:
    st.markdown("**" + _("Probes") + "**")
    slot = studio.job_slot("feedback.probes")
    job = slot.job
    done = job is not None and job.finished
    with action_row():
        st.button(
            _("Run probes"),
            on_click=start_probes,
            args=(run, [case for case, _res in pairs]),
            disabled=job is not None and not done,
            icon=":material/science:",
            key="feedback.probe",
        )
        st.caption(
            _(
                'Scores trivial outputs (an empty string, the input echoed back, "I don\'t know") against up '
                "to 20 of the run's cases, in the isolated workers. A metric that rewards them can be gamed."
            )
        )
    studio.job_progress(slot, "feedback.probe_job", _("Scoring probes"), job, done)
    if job is None or not done or job.label != str(run.id):
        return
    if job.error:
        st.error(
            _("The probes could not run: {error}. Try again; if it repeats, restart the app.").format(
                error=md(job.error)
            )
        )
        return
    if job.cancelled or job.result is None:
        st.caption(_("The probes were cancelled."))
        return
    report = job.result
    if not report.cases and report.first_failure is not None:
        failure = report.first_failure
        st.error(
            _("No probe was scored: `metric.py` fails at {where}: {message}").format(
                where=md(failure.label), message=md(failure.message)
            )
        )
        return
    findings = judge_probes(report.cases, run.results)
    if findings:
        findings_list(findings)
    else:
        st.success(
            _("The metric gave none of the {count} trivial outputs a high score.").format(count=len(report.cases)),
            icon=":material/check_circle:",
        )
    with st.expander(_("Probe results ({count})").format(count=len(report.cases))):
        rows = [
            {_("id"): r.id, _("status"): r.status.value, _("score"): r.score, _("feedback"): r.feedback}
            for r in report.cases
        ]
        st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch", key="feedback.probe_table")


def current_grades(run: SavedRun) -> dict[str, Grade]:
    grading = S.get("feedback.grading")
    if grading is None or grading[0] != run.id:
        return {}
    return {grade.case_id: grade for grade in list(grading[1])}


def start_grading(run: SavedRun, pairs: Pairs, settings: ModelSettings) -> None:
    grades: list[Grade] = []
    S["feedback.grading"] = (run.id, grades)

    def ask(instructions: str, text: str) -> str:
        return llm.complete(settings, instructions, text).text  # looked up at call time (tests replace it)

    chosen = language()  # the job's thread writes its messages in the language of the session that started it

    def target(job: Job[list[Grade]]) -> list[Grade]:
        def keep(grade: Grade) -> None:
            grades.append(grade)
            job.done += 1

        with use_language(chosen):
            return grade_feedback(pairs, ask, cancel=job.cancel, on_grade=keep)

    studio.job_slot("feedback.grades").submit(Job(kind="grade", total=len(pairs), label=str(run.id)), target)


def draw_model_review(run: SavedRun, pairs: Pairs, result: Review, grades: dict[str, Grade]) -> None:
    with st.expander(_("Model review (optional)"), icon=":material/smart_toy:"):
        st.caption(
            _(
                "A second opinion beside the rules: the metric model grades how actionable each flagged "
                "feedback is, from 1 (nothing to act on) to 5 (names the fault and the fix), with a reason. "
                "Nothing on this page needs it."
            )
        )
        settings = studio.model_settings()
        chosen = settings.effective()
        if chosen is None:
            message = _(NO_MODEL_MESSAGE)
            st.info(message[:1].upper() + message[1:] + ".", icon=":material/info:")
            return
        config, which = chosen
        chosen_pairs, more = to_grade(result, pairs)
        slot = studio.job_slot("feedback.grades")
        job = slot.job
        done = job is not None and job.finished
        with action_row():
            st.button(
                _("Grade {count} flagged").format(count=len(chosen_pairs)),
                on_click=start_grading,
                args=(run, chosen_pairs, settings),
                disabled=(job is not None and not done) or not chosen_pairs,
                icon=":material/grading:",
                key="feedback.grade",
            )
            uses = (
                _("Uses `{model}`, the {which}: one call per flagged case (the first {count}).")
                if more
                else _("Uses `{model}`, the {which}: one call per flagged case.")
            )
            st.caption(uses.format(model=md(config.model), which=md(which), count=len(chosen_pairs)))
        studio.job_progress(slot, "feedback.grade_job", _("Grading"), job, done)
        if job is not None and done and job.error:
            st.error(_("The model review could not run: {error}.").format(error=md(job.error)))
        said, problem = grade_summary(grades)
        if said:
            st.markdown(said)
        if problem:
            st.warning(md(problem), icon=":material/warning:")
