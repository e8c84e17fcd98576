"""Feedback review: find the feedback that will not help the engines, case by case, and judge the metric as a whole.

The page reads the latest scored run of the dataset and candidate in use (saved by "Score all cases"
here or on the Author page) and draws what ``skynet_core.feedback`` finds in it; what to show is
decided by ``skynet_core.feedback.view``. Scoring, probes and the optional model review run as
background jobs; metric code only ever runs in the isolated workers, never in this process.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import streamlit as st

import studio
from panels.feedback_case import draw_case, exports
from panels.feedback_filters import case_filter, pick_case, rule_counts, thresholds_editor
from panels.feedback_health import action_row, current_grades, draw_health, draw_model_review
from panels.reflection import draw_reflection_step
from skynet_core.cases import Case
from skynet_core.engines.reflection import dataset_instruction
from skynet_core.feedback import Grade, Mark, MarkValue, Review, Thresholds, review
from skynet_core.feedback import view as fv
from skynet_core.i18n import _, format_datetime, language, ngettext
from skynet_core.jobs import Job
from skynet_core.metric_source import MetricSource
from skynet_core.results import CaseResult, CheckReport
from skynet_core.runs import SavedRun

studio.ensure_router()

S = st.session_state
score_slot = studio.job_slot("feedback.score")
md = studio.md
Pairs = list[tuple[Case, CaseResult]]


def start_scoring() -> None:
    studio.workspace().score_all(score_slot, keys=studio.session_keys(), watcher=studio.watcher())


def score_controls(case_count: int, primary: bool, job: Job[CheckReport] | None, done: bool) -> None:
    with action_row():
        st.button(
            _("Score all cases now"),
            on_click=start_scoring,
            disabled=(job is not None and not done) or case_count == 0,
            type="primary" if primary else "secondary",
            icon=":material/play_arrow:",
            key="feedback.score",
        )
        st.caption(
            _(
                "Runs the current `metric.py` on the {count} cases in use, in the background, and reviews the new run."
            ).format(count=case_count)
        )
    studio.job_progress(score_slot, "feedback.score_job", _("Scoring"), job, done)
    if job is None or not done:
        return
    if job.error:
        st.error(
            _("Scoring could not run: {error}. Try again; if it repeats, restart the app.").format(error=md(job.error))
        )
    elif job.cancelled:
        st.caption(_("Scoring was cancelled; nothing from it was saved."))
    elif job.result is not None and not job.result.cases and job.result.first_failure is not None:
        failure = job.result.first_failure
        where = md(failure.label) + (f" ({md(failure.file)}:{failure.line})" if failure.line else "")
        st.error(
            _(
                "No case was scored: `metric.py` fails at {where}: {message}. "
                "Fix it on the Author page, then score again."
            ).format(where=where, message=md(failure.message))
        )


def reviewed(run: SavedRun, pairs: Pairs, thresholds: Thresholds) -> Review:
    memo = S.get("feedback.review")
    if memo is None or memo[0] != (run.id, thresholds, language()):
        memo = ((run.id, thresholds, language()), review(pairs, thresholds))
        S["feedback.review"] = memo
    return memo[1]


def cases_table(
    run: SavedRun, pairs: Pairs, result: Review, marks: dict[str, Mark], grades: dict[str, Grade]
) -> list[str]:
    """The filters and the table of cases; returns the ids shown, in run order."""
    chosen = case_filter(run, pairs, result)
    ids = fv.filter_ids(result, pairs, marks, chosen)
    if not ids:
        st.caption(fv.no_match_note(chosen))
        return []
    rows = fv.table_rows(ids, pairs, result, marks, grades)
    headers = fv.table_columns(bool(grades))
    event = st.dataframe(
        pd.DataFrame(rows),
        hide_index=True,
        width="stretch",
        on_select="rerun",
        selection_mode="single-row",
        key=fv.table_key(run.id, ids),
        column_config={
            headers["id"]: st.column_config.TextColumn(pinned=True),
            headers["score"]: st.column_config.NumberColumn(format="%.3f"),
            headers["feedback"]: st.column_config.TextColumn(width="large"),
        },
    )
    picked = event.selection.rows if event is not None else []
    if picked and ids[picked[0]] != S.get("feedback.table_pick"):
        S["feedback.table_pick"] = S["feedback.case"] = ids[picked[0]]
    st.caption(
        ngettext(
            "{count} case. Select a row, or pick a case below, to see it side by side.",
            "{count} cases. Select a row, or pick a case below, to see it side by side.",
            len(ids),
        ).format(count=len(ids))
    )
    return ids


def run_header(
    run: SavedRun, data_name: str, case_count: int, unmatched: int, job: Job[CheckReport] | None, done: bool
) -> None:
    key = run.key
    st.markdown(
        _(
            "Latest scored run: **{count} cases** of {dataset} · candidate {candidate} · split {split} · "
            "scored {when} · `metric.py` `{version}`"
        ).format(
            count=len(run.results),
            dataset=md(key.dataset_name or data_name),
            candidate=md(key.candidate or "–"),
            split=md(key.split or _("all")),
            when=format_datetime(datetime.fromtimestamp(run.created_at)),
            version=key.metric_hash,
        )
    )
    changes = studio.stale_changes(run.provenance, studio.provenance())
    stale = studio.stale_banner(changes, _("This run's results"), None, key="feedback.stale")
    if unmatched:
        st.info(
            _("{count} of its cases are no longer in the dataset and are left out.").format(count=unmatched),
            icon=":material/info:",
        )
    score_controls(case_count, stale or bool(unmatched), job, done)


def review_section(run: SavedRun, pairs: Pairs, result: Review) -> None:
    marks = studio.workspace().marks.marks_for(run.key.scope, run.key.metric_hash)
    grades = current_grades(run)
    values = [mark.value for case_id, mark in marks.items() if case_id in result.by_case]
    stats = st.columns(4)
    skipped = ngettext(
        "{count} case errored, timed out or returned an invalid value; it has no feedback to judge.",
        "{count} cases errored, timed out or returned an invalid value; they have no feedback to judge.",
        len(result.skipped),
    )
    stats[0].metric(
        _("Cases judged"),
        len(result.case_ids),
        help=skipped.format(count=len(result.skipped)) if result.skipped else None,
    )
    stats[1].metric(_("Broke a rule"), len(result.flagged_ids))
    stats[2].metric(_("Marked useful"), values.count(MarkValue.USEFUL))
    stats[3].metric(_("Marked weak"), values.count(MarkValue.WEAK))
    if result.flagged_ids:
        st.markdown(
            _("**{flagged} of {judged} judged cases broke at least one rule.**").format(
                flagged=len(result.flagged_ids), judged=len(result.case_ids)
            )
        )
    else:
        st.success(_("No feedback broke a rule at these thresholds."), icon=":material/task_alt:")
    rule_counts(result)
    st.subheader(_("Cases"))
    ids = cases_table(run, pairs, result, marks, grades)
    by_id = {case.id: (case, res) for case, res in pairs}
    picked = pick_case(ids, pairs, result)
    if picked is not None:
        with st.container(border=True):
            titles = {rule.name: rule.title for rule in result.rules}
            case, res = by_id[picked]
            draw_case(run, case, res, result.by_case.get(picked, []), titles, marks.get(picked), grades.get(picked))
    exports(run, pairs, result, marks, grades)
    draw_model_review(run, pairs, result, grades)


def page() -> None:
    data, _problem = studio.dataset()
    chosen = studio.candidate(data)
    job = score_slot.job
    done = job is not None and job.finished
    case_count = len(studio.cases_in_use())

    st.title(_("Feedback review"))
    st.caption(
        _(
            "GEPA, DSPy GEPA and Auto read each case's feedback to write the next version. Feedback helps when "
            "it says what was wrong and what the right output looks like; the rules below flag the rest."
        )
    )
    run = studio.workspace().latest_run()
    if run is None:
        text = (
            _("No scored run of {dataset} (candidate {candidate}) yet.")
            if chosen
            else _("No scored run of {dataset} yet.")
        ).format(dataset=md(data.name), candidate=md(chosen))
        hint = _(
            "Score every case with the current `metric.py` to review its feedback "
            '(or use "Score all cases" on the Author page).'
        )
        st.info(f"{text} {hint}", icon=":material/info:")
        score_controls(case_count, True, job, done)
        return

    pairs, unmatched = fv.pair_up(data.for_candidate(run.key.candidate), run.results)
    run_header(run, data.name, case_count, unmatched, job, done)
    if not pairs:
        st.warning(_("None of this run's cases is in the dataset any more; score again."), icon=":material/warning:")
        return
    result = reviewed(run, pairs, thresholds_editor())
    review_section(run, pairs, result)
    with st.expander(_("Try one reflection step: would this feedback help an optimizer?")):
        draw_reflection_step(
            MetricSource.of(run.metric_source) if run.metric_source else studio.metric(),
            [case for case, _res in pairs],
            [res for _case, res in pairs],
            studio.model_settings(),
            instruction=dataset_instruction(data),
            key="feedback.reflection",
        )
    draw_health(run, pairs)


page()
