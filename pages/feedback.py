"""Feedback review: find the feedback that will not help the engines, case by case, and judge the metric as a whole.

The page reads the latest scored run of the dataset and candidate in use (saved by
"Score all cases" here or on the Author page) and draws what ``skynet_core.feedback``
finds in it. Scoring, probes and the optional model review run as background jobs;
metric code only ever runs in the isolated workers, never in this process.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import streamlit as st

import studio
from panels.reflection import draw_reflection_step
from skynet_core.cases import Case
from skynet_core.datasets import Dataset
from skynet_core.display import markdown_frame
from skynet_core.engines.reflection import dataset_instruction
from skynet_core.feedback import (
    Flag,
    Grade,
    HealthFinding,
    Mark,
    MarkValue,
    Review,
    Severity,
    Thresholds,
    export_rows,
    grade_feedback,
    health,
    judge_probes,
    probe_cases,
    review,
    rows_csv,
    rows_jsonl,
    rules,
)
from skynet_core.jobs import Job
from skynet_core.llm import NO_MODEL_MESSAGE, ModelSettings, complete
from skynet_core.metric_source import MetricSource
from skynet_core.results import CaseResult, CheckReport
from skynet_core.runs import SavedRun

studio.ensure_router()

POLL_S = 0.3
MAX_GRADED = 100
CASE_IDS_SHOWN = 8
SHOW_FLAGGED, SHOW_ALL = "flagged", "all"

S = st.session_state
score_slot = studio.job_slot("feedback.score")
probe_slot = studio.job_slot("feedback.probes")
grade_slot = studio.job_slot("feedback.grades")
md = studio.md


def action_row() -> Any:
    """Buttons and their caption side by side on one line."""
    return st.container(horizontal=True, wrap=False, vertical_alignment="center", gap="medium")


def fmt(value: float | None) -> str:
    """A score for people: "1.0", "0.25", "0.333"; "–" when there is none."""
    if value is None:
        return "–"
    text = f"{value:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


# --- background jobs ---------------------------------------------------------------------------


def start_scoring() -> None:
    studio.workspace().score_all(score_slot, keys=studio.session_keys(), watcher=studio.watcher())


def start_probes(run: SavedRun, cases: list[Case]) -> None:
    metric = MetricSource.of(run.metric_source) if run.metric_source else studio.metric()
    studio.workspace().score(
        probe_slot,
        metric,
        probe_cases(cases),
        studio.run_options(),
        kind="probes",
        label=str(run.id),
        watcher=studio.watcher(),
    )


def start_grading(run: SavedRun, pairs: list[tuple[Case, CaseResult]], settings: ModelSettings) -> None:
    grades: list[Grade] = []
    S["feedback.grading"] = (run.id, grades)

    def ask(instructions: str, text: str) -> str:
        return complete(settings, instructions, text).text

    def target(job: Job[list[Grade]]) -> list[Grade]:
        def keep(grade: Grade) -> None:
            grades.append(grade)
            job.done += 1

        return grade_feedback(pairs, ask, cancel=job.cancel, on_grade=keep)

    grade_slot.submit(Job(kind="grade", total=len(pairs), label=str(run.id)), target)


def score_controls(case_count: int, primary: bool, job: Job[CheckReport] | None, done: bool) -> None:
    running = job is not None and not done
    with action_row():
        st.button(
            "Score all cases now",
            on_click=start_scoring,
            disabled=running or case_count == 0,
            type="primary" if primary else "secondary",
            icon=":material/play_arrow:",
            key="feedback.score",
        )
        st.caption(
            f"Runs the current metric.py on the {case_count} cases in use, in the background, and reviews the new run."
        )
    studio.job_progress(score_slot, "feedback.score_job", "Scoring", job, done)
    if job is None or not done:
        return
    if job.error:
        st.error(f"Scoring could not run: {md(job.error or '')}. Try again; if it repeats, restart the app.")
    elif job.cancelled:
        st.caption("Scoring was cancelled; nothing from it was saved.")
    elif job.result is not None and not job.result.cases and job.result.first_failure is not None:
        failure = job.result.first_failure
        where = f" ({md(failure.file)} line {failure.line})" if failure.line else ""
        st.error(
            f"No case was scored: metric.py fails at {md(failure.label)}{where}: {md(failure.message)}. "
            "Fix it on the Author page, then score again."
        )


# --- the review --------------------------------------------------------------------------------


def thresholds_editor() -> Thresholds:
    """Number inputs for every rule's threshold; the review reruns on each change (it only reads saved results)."""
    current: Thresholds = S.get("feedback.thresholds", Thresholds())
    defaults = Thresholds()

    def reset() -> None:
        S["feedback.thresholds"] = defaults
        for rule in rules(defaults):
            S[f"feedback.threshold.{rule.setting}"] = rule.threshold

    with st.expander("Thresholds", icon=":material/tune:"):
        st.caption("Change a number and the review runs again at once over the saved results.")
        cols = st.columns(2)
        for index, rule in enumerate(rules(current)):
            key = f"feedback.threshold.{rule.setting}"
            S.setdefault(key, rule.threshold)
            label = f"{rule.title}: {rule.unit}"
            with cols[index % 2]:
                if isinstance(getattr(defaults, rule.setting), int):
                    st.number_input(label, min_value=0, step=1, key=key, help=rule.explanation)
                else:
                    st.number_input(
                        label,
                        min_value=0.0,
                        step=0.05,
                        format="%.2f",
                        key=key,
                        help=rule.explanation,
                        max_value=1.0 if rule.setting in Thresholds.FRACTIONS else None,
                    )
        st.button("Reset to defaults", on_click=reset, icon=":material/restart_alt:", key="feedback.reset")
    try:
        chosen = Thresholds(**{rule.setting: S[f"feedback.threshold.{rule.setting}"] for rule in rules(current)})
    except ValueError as exc:
        st.error(f"{md(str(exc))} The review uses the previous thresholds.")
        return current
    S["feedback.thresholds"] = chosen
    return chosen


def reviewed(run: SavedRun, pairs: list[tuple[Case, CaseResult]], thresholds: Thresholds) -> Review:
    memo = S.get("feedback.review")
    if memo is None or memo[0] != (run.id, thresholds):
        memo = ((run.id, thresholds), review(pairs, thresholds))
        S["feedback.review"] = memo
    return memo[1]


def rule_counts(result: Review) -> None:
    frame = pd.DataFrame(
        [
            {
                "Rule": rule.title,
                "Flagged": result.counts[rule.name],
                "Threshold": rule.threshold_text,
                "What it flags": rule.explanation,
            }
            for rule in result.rules
        ]
    ).set_index("Rule")
    st.table(markdown_frame(frame))


def mark_text(mark: Mark | None) -> str:
    return mark.value.value if mark else ""


def grade_text(grade: Grade | None) -> str:
    if grade is None:
        return ""
    return f"{grade.grade}/5" if grade.grade is not None else "no grade"


def cases_table(
    run: SavedRun,
    pairs: list[tuple[Case, CaseResult]],
    result: Review,
    marks: dict[str, Mark],
    grades: dict[str, Grade],
) -> list[str]:
    """The filter and the table of flagged cases; returns the ids shown, in run order."""
    titles = {rule.name: rule.title for rule in result.rules}
    choices = [SHOW_FLAGGED, *titles, SHOW_ALL]
    labels = {
        SHOW_FLAGGED: f"Every flagged case ({len(result.flagged_ids)})",
        SHOW_ALL: f"Every judged case, flagged or not ({len(result.case_ids)})",
        **{name: f"{title} ({result.counts[name]})" for name, title in titles.items()},
    }
    # Keyed by the counts: the box shows the new counts after a rescore or a threshold change, keeping the choice.
    previous = S.get("feedback.show_choice", SHOW_FLAGGED)
    show = st.selectbox(
        "Show",
        choices,
        format_func=labels.__getitem__,
        index=choices.index(previous) if previous in choices else 0,
        key=f"feedback.show.{hash(tuple(labels.values()))}",
    )
    S["feedback.show_choice"] = show
    if show == SHOW_FLAGGED:
        ids = result.flagged_ids
    elif show == SHOW_ALL:
        ids = list(result.case_ids)
    else:
        ids = [case_id for case_id in result.case_ids if show in result.rules_broken[case_id]]
    by_id = {case.id: res for case, res in pairs}
    rows = []
    for case_id in ids:
        row = {
            "id": case_id,
            "split": by_id[case_id].split,
            "score": by_id[case_id].score,
            "mark": mark_text(marks.get(case_id)),
        }
        if grades:
            row["model grade"] = grade_text(grades.get(case_id))
        row["rules broken"] = ", ".join(titles[name] for name in result.rules_broken[case_id])
        row["feedback"] = by_id[case_id].feedback
        rows.append(row)
    if not rows:
        st.caption("No case matches this filter. Choose “Every judged case” to see and mark the others.")
        return []
    event = st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=f"feedback.table.{run.id}.{show}",
        column_config={
            "id": st.column_config.TextColumn(pinned=True),
            "score": st.column_config.NumberColumn(format="%.3f"),
            "feedback": st.column_config.TextColumn(width="large"),
        },
    )
    picked = event.selection.rows if event is not None else []
    if picked and rows[picked[0]]["id"] != S.get("feedback.table_pick"):
        S["feedback.table_pick"] = S["feedback.case"] = rows[picked[0]]["id"]
    st.caption(f"{len(rows)} cases. Select a row, or pick a case below, to see it side by side.")
    return ids


def show_value(value: Any) -> None:
    if isinstance(value, str):
        st.code(value if value else "(empty string)", language=None, wrap_lines=True)
    else:
        st.json(value, expanded=True)


def case_view(
    run: SavedRun,
    case: Case,
    result: CaseResult,
    flags: list[Flag],
    titles: dict[str, str],
    mark: Mark | None,
    grade: Grade | None,
) -> None:
    st.markdown(f"#### Case {md(case.id)} · {md(case.split)} · score {fmt(result.score)}")
    cols = st.columns(3)
    with cols[0]:
        st.markdown("**Input**")
        show_value(case.input)
    with cols[1]:
        st.markdown("**Output**")
        show_value(case.output)
    with cols[2]:
        st.markdown("**Expected**")
        if case.expected is None:
            st.caption("None: this case has no expected value.")
        else:
            show_value(case.expected)
    left, right = st.columns(2, gap="medium")
    with left:
        st.markdown("**Feedback**")
        studio.long_text(result.feedback, "feedback.case.feedback")
        if result.scores:
            st.markdown(
                "**Named scores** · " + " · ".join(f"{md(name)} {fmt(value)}" for name, value in result.scores.items())
            )
        if result.extra:
            st.markdown("**Other side information**")
            st.json(result.extra, expanded=False)
        mark_controls(run, case.id, mark)
    with right:
        if flags:
            st.markdown(f"**Rules broken** ({len(flags)})")
            for flag in flags:
                st.markdown(f":red[:material/flag:] **{titles[flag.rule]}**: {md(flag.detail)}")
            st.markdown("**What the feedback should add**")
            suggestions = list(dict.fromkeys(flag.suggestion for flag in flags))
            # Rules often wrap the same case-specific advice in their own words; say it once.
            for suggestion in suggestions:
                if not any(suggestion != other and suggestion in other for other in suggestions):
                    st.markdown(f"- {md(suggestion)}")
        else:
            st.success("This feedback broke no rule.", icon=":material/check_circle:")
        if grade is not None:
            verdict = (
                f"**{grade.grade}/5** · {md(grade.reason)}"
                if grade.grade is not None
                else f"no grade: {md(grade.error)}"
            )
            st.markdown(f":blue[:material/smart_toy:] Model review (optional): {verdict}")


def mark_controls(run: SavedRun, case_id: str, mark: Mark | None) -> None:
    scope, hashed = run.key.scope, run.key.metric_hash
    note_key = f"feedback.note.{run.id}.{case_id}"
    S.setdefault(note_key, mark.note if mark else "")

    def set_mark(value: MarkValue) -> None:
        studio.workspace().marks.set_mark(scope, hashed, case_id, value, note=S.get(note_key, "").strip())

    def clear() -> None:
        studio.workspace().marks.clear_mark(scope, hashed, case_id)

    st.markdown(
        "**Is this feedback useful to the engines?** "
        + (f"Marked **{mark_text(mark)}**." if mark else "Not marked yet.")
    )
    st.text_input("Note (optional)", key=note_key, placeholder="why, in a few words")
    cols = st.columns(3)
    cols[0].button(
        "Useful",
        on_click=set_mark,
        args=(MarkValue.USEFUL,),
        icon=":material/thumb_up:",
        key="feedback.mark_useful",
        width="stretch",
        type="primary" if mark and mark.value is MarkValue.USEFUL else "secondary",
    )
    cols[1].button(
        "Weak",
        on_click=set_mark,
        args=(MarkValue.WEAK,),
        icon=":material/thumb_down:",
        key="feedback.mark_weak",
        width="stretch",
        type="primary" if mark and mark.value is MarkValue.WEAK else "secondary",
    )
    cols[2].button("Clear mark", on_click=clear, disabled=mark is None, key="feedback.mark_clear", width="stretch")


def pick_case(ids: list[str], by_id: dict[str, CaseResult], result: Review) -> str | None:
    if not ids:
        return None
    if S.get("feedback.case") not in ids:
        S["feedback.case"] = ids[0]

    def label(case_id: str) -> str:
        broken = len(result.rules_broken.get(case_id, []))
        return f"{case_id} · score {fmt(by_id[case_id].score)} · " + (
            f"{broken} rule{'s' if broken != 1 else ''} broken" if broken else "no rule broken"
        )

    return st.selectbox("Case", ids, format_func=label, key="feedback.case")


def exports(
    run: SavedRun,
    pairs: list[tuple[Case, CaseResult]],
    result: Review,
    marks: dict[str, Mark],
    grades: dict[str, Grade],
) -> None:
    rows = export_rows(pairs, result, marks, grades or None)
    stem = f"feedback-review-run-{run.id}"
    with action_row():
        st.download_button(
            "Download CSV",
            rows_csv(rows),
            file_name=f"{stem}.csv",
            mime="text/csv",
            on_click="ignore",
            icon=":material/download:",
            key="feedback.csv",
        )
        st.download_button(
            "Download JSONL",
            rows_jsonl(rows),
            file_name=f"{stem}.jsonl",
            mime="application/jsonl",
            on_click="ignore",
            icon=":material/download:",
            key="feedback.jsonl",
        )
        st.caption(
            "Every case of the run with its score, feedback, the rules it broke, your mark and note"
            + (", and the model's grade." if grades else ".")
        )


# --- metric health ---------------------------------------------------------------------------


def findings_list(findings: list[HealthFinding]) -> None:
    for finding in findings:
        shown = ", ".join(finding.case_ids[:CASE_IDS_SHOWN])
        more = f" and {len(finding.case_ids) - CASE_IDS_SHOWN} more" if len(finding.case_ids) > CASE_IDS_SHOWN else ""
        text = md(finding.message) + (f"  \nCases: {md(shown)}{more}" if shown else "")
        if finding.severity is Severity.WARNING:
            st.warning(text, icon=":material/warning:")
        else:
            st.info(text, icon=":material/info:")


def health_section(run: SavedRun, pairs: list[tuple[Case, CaseResult]]) -> None:
    st.subheader("Metric health")
    st.caption(
        "The metric as a whole over this run: can it rank candidates, does it fail, "
        "does it reward outputs that differ from the expected ones?"
    )
    memo = S.get("feedback.health")
    if memo is None or memo[0] != run.id:
        memo = (run.id, health(pairs))
        S["feedback.health"] = memo
    if memo[1]:
        findings_list(memo[1])
    else:
        st.success("No problem found with the metric as a whole.", icon=":material/check_circle:")

    st.markdown("**Probes**")
    job = probe_slot.job
    done = job is not None and job.finished
    running = job is not None and not done
    with action_row():
        st.button(
            "Run probes",
            on_click=start_probes,
            args=(run, [case for case, _ in pairs]),
            disabled=running,
            icon=":material/science:",
            key="feedback.probe",
        )
        st.caption(
            'Scores trivial outputs (an empty string, the input echoed back, "I don\'t know") against up '
            "to 20 of the run's cases, in the isolated workers. A metric that rewards them can be gamed."
        )
    studio.job_progress(probe_slot, "feedback.probe_job", "Scoring probes", job, done)
    if job is None or not done or job.label != str(run.id):
        return
    if job.error:
        st.error(f"The probes could not run: {md(job.error or '')}. Try again; if it repeats, restart the app.")
        return
    if job.cancelled or job.result is None:
        st.caption("The probes were cancelled.")
        return
    report = job.result
    if not report.cases and report.first_failure is not None:
        st.error(
            f"No probe was scored: metric.py fails at {report.first_failure.label}: {md(report.first_failure.message)}"
        )
        return
    findings = judge_probes(report.cases, run.results)
    if findings:
        findings_list(findings)
    else:
        st.success(
            f"The metric gave none of the {len(report.cases)} trivial outputs a high score.",
            icon=":material/check_circle:",
        )
    with st.expander(f"Probe results ({len(report.cases)})"):
        st.dataframe(
            pd.DataFrame(
                [{"id": r.id, "status": r.status.value, "score": r.score, "feedback": r.feedback} for r in report.cases]
            ),
            hide_index=True,
            width="stretch",
            key="feedback.probe_table",
        )


# --- optional model review ---------------------------------------------------------------------


def current_grades(run: SavedRun) -> dict[str, Grade]:
    grading = S.get("feedback.grading")
    if grading is None or grading[0] != run.id:
        return {}
    return {grade.case_id: grade for grade in list(grading[1])}


def model_review(run: SavedRun, pairs: list[tuple[Case, CaseResult]], result: Review, grades: dict[str, Grade]) -> None:
    with st.expander("Model review (optional)", icon=":material/smart_toy:"):
        st.caption(
            "A second opinion beside the rules: the metric model grades how actionable each flagged "
            "feedback is, from 1 (nothing to act on) to 5 (names the fault and the fix), with a reason. "
            "Nothing on this page needs it."
        )
        settings = studio.model_settings()
        chosen = settings.effective()
        if chosen is None:
            st.info(NO_MODEL_MESSAGE[:1].upper() + NO_MODEL_MESSAGE[1:] + ".", icon=":material/info:")
            return
        config, which = chosen
        flagged = set(result.flagged_ids)
        to_grade = [(case, res) for case, res in pairs if case.id in flagged][:MAX_GRADED]
        job = grade_slot.job
        done = job is not None and job.finished
        running = job is not None and not done
        limit = f" (the first {MAX_GRADED})" if len(flagged) > MAX_GRADED else ""
        with action_row():
            st.button(
                f"Grade {len(to_grade)} flagged",
                on_click=start_grading,
                args=(run, to_grade, settings),
                disabled=running or not to_grade,
                icon=":material/grading:",
                key="feedback.grade",
            )
            st.caption(f"Uses `{md(config.model)}`, the {which}: one call per flagged case{limit}.")
        studio.job_progress(grade_slot, "feedback.grade_job", "Grading", job, done)
        if job is not None and done and job.error:
            st.error(f"The model review could not run: {md(job.error or '')}.")
        failed = [grade for grade in grades.values() if grade.grade is None]
        graded = [grade.grade for grade in grades.values() if grade.grade is not None]
        if graded:
            st.markdown(
                f"Graded {len(graded)} feedback texts: mean {sum(graded) / len(graded):.1f} of 5. "
                "The grades are in the table and beside each case's rules."
            )
        if failed:
            st.warning(
                f"{len(failed)} without a grade; the last said: {md(failed[-1].error)}", icon=":material/warning:"
            )


# --- the page ----------------------------------------------------------------------------------


def run_header(
    run: SavedRun, data: Dataset, case_count: int, unmatched: int, job: Job[CheckReport] | None, done: bool
) -> None:
    key = run.key
    when = datetime.fromtimestamp(run.created_at).strftime("%Y-%m-%d %H:%M")
    candidate = f" · candidate {md(key.candidate)}" if key.candidate else ""
    st.markdown(
        f"Latest scored run: **{len(run.results)} cases** of {md(key.dataset_name or data.name)}{candidate}"
        f" · split {md(key.split or 'all')} · scored {when} · metric.py `{key.metric_hash}`"
    )
    stale = studio.stale_banner(
        studio.stale_changes(run.provenance, studio.provenance()), "This run's results", None, key="feedback.stale"
    )
    if unmatched:
        st.info(f"{unmatched} of its cases are no longer in the dataset and are left out.", icon=":material/info:")
    score_controls(case_count, stale or bool(unmatched), job, done)


def page() -> None:
    data, _ = studio.dataset()
    chosen = studio.candidate(data)
    job = score_slot.job
    done = job is not None and job.finished
    case_count = len(studio.cases_in_use())

    st.title("Feedback review")
    st.caption(
        "GEPA, DSPy GEPA and Auto read each case's feedback to write the next version. Feedback helps when "
        "it says what was wrong and what the right output looks like; the rules below flag the rest."
    )
    run = studio.workspace().latest_run()
    if run is None:
        who = f" (candidate {md(chosen)})" if chosen else ""
        st.info(
            f"No scored run of {md(data.name)}{who} yet. Score every case with the current metric.py to "
            'review its feedback (or use "Score all cases" on the Author page).',
            icon=":material/info:",
        )
        score_controls(case_count, True, job, done)
        return

    cases = {case.id: case for case in data.for_candidate(run.key.candidate)}
    pairs = [(cases[result.id], result) for result in run.results if result.id in cases]
    run_header(run, data, case_count, len(run.results) - len(pairs), job, done)
    if not pairs:
        st.warning("None of this run's cases is in the dataset any more; score again.", icon=":material/warning:")
        return

    thresholds = thresholds_editor()
    result = reviewed(run, pairs, thresholds)
    marks = studio.workspace().marks.marks_for(run.key.scope, run.key.metric_hash)
    grades = current_grades(run)
    values = [mark.value for case_id, mark in marks.items() if case_id in cases]
    stats = st.columns(4)
    stats[0].metric(
        "Cases judged",
        len(result.case_ids),
        help=f"{len(result.skipped)} cases errored, timed out or returned an invalid value; "
        "they have no feedback to judge."
        if result.skipped
        else None,
    )
    stats[1].metric("Broke a rule", len(result.flagged_ids))
    stats[2].metric("Marked useful", values.count(MarkValue.USEFUL))
    stats[3].metric("Marked weak", values.count(MarkValue.WEAK))
    if result.flagged_ids:
        st.markdown(f"**{len(result.flagged_ids)} of {len(result.case_ids)} judged cases broke at least one rule.**")
    else:
        st.success("No feedback broke a rule at these thresholds.", icon=":material/task_alt:")
    rule_counts(result)

    st.subheader("Cases")
    ids = cases_table(run, pairs, result, marks, grades)
    by_id = {case.id: res for case, res in pairs}
    picked = pick_case(ids, by_id, result)
    if picked is not None:
        with st.container(border=True):
            case_view(
                run,
                cases[picked],
                by_id[picked],
                result.by_case.get(picked, []),
                {rule.name: rule.title for rule in result.rules},
                marks.get(picked),
                grades.get(picked),
            )
    exports(run, pairs, result, marks, grades)
    model_review(run, pairs, result, grades)
    with st.expander("Try one reflection step: would this feedback help an optimizer?"):
        draw_reflection_step(
            MetricSource.of(run.metric_source) if run.metric_source else studio.metric(),
            [case for case, _ in pairs],
            [res for _, res in pairs],
            studio.model_settings(),
            instruction=dataset_instruction(data),
            key="feedback.reflection",
        )
    health_section(run, pairs)


page()
