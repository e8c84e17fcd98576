"""Feedback review: find the feedback that will not help the engines, case by case, and judge the metric as a whole.

The page reads the latest scored run of the dataset and candidate in use (saved by "Score all cases"
here or on the Author page) and draws what ``skynet_core.feedback`` finds in it; what to show is
decided by ``skynet_core.views.feedback``. Scoring, probes and the optional model review run as
background jobs; metric code only ever runs in the isolated workers, never in this process.
"""

from __future__ import annotations

from datetime import datetime

import pandas as pd
import streamlit as st

from pages.feedback.agreement import draw_agreement
from pages.feedback.case import draw_case, exports
from pages.feedback.filters import case_filter, pick_case, rule_counts, thresholds_editor
from pages.feedback.health import Pairs, action_row, current_grades, draw_health, draw_model_review
from pages.feedback.uplift import uplift_panel
from skynet_core.engines.reflection import dataset_instruction
from skynet_core.feedback import Grade, Mark, MarkValue, Review, Thresholds, review
from skynet_core.i18n import _, format_datetime, language, ngettext, with_language
from skynet_core.metric.source import MetricSource
from skynet_core.runs import SavedRun
from skynet_core.views import feedback as fv
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui import studio
from ui.widgets.jobs import job_panel, outcome_panel
from ui.widgets.lazy import lazy_expander
from ui.widgets.reflection import draw_reflection_step
from ui.widgets.stale import stale_banner, stale_changes
from ui.widgets.text import md

S = st.session_state
SCORE_SLOT = "feedback.score"


def start_scoring() -> None:
    me = studio.session()
    me.workspace.jobs.score_all(me.slot(SCORE_SLOT), keys=me.keys, watcher=me.watcher)


def score_controls(case_count: int, primary: bool) -> None:
    slot = studio.session().slot(SCORE_SLOT)
    with action_row():
        st.button(
            _("Score all cases now"),
            on_click=with_language(start_scoring),
            disabled=(slot.job is not None and slot.job.running) or case_count == 0,
            type="primary" if primary else "secondary",
            icon=":material/play_arrow:",
            key="feedback.score",
        )
        st.caption(
            _(
                "Runs the current `metric.py` on the {count} cases in use, in the background, and reviews the new run."
            ).format(count=case_count)
        )
    outcome = job_panel(slot, "feedback.score_job")
    if outcome is not None and outcome.finished:
        outcome_panel(outcome, "feedback.score_job")


def reviewed(run: SavedRun, pairs: Pairs, thresholds: Thresholds) -> Review:
    memo = S.get(K.FEEDBACK_REVIEW)
    if memo is None or memo[0] != (run.id, thresholds, language()):
        memo = ((run.id, thresholds, language()), review(pairs, thresholds))
        S[K.FEEDBACK_REVIEW] = memo
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
    if picked and ids[picked[0]] != S.get(K.FEEDBACK_TABLE_PICK):
        S[K.FEEDBACK_TABLE_PICK] = S[K.FEEDBACK_CASE] = ids[picked[0]]
    st.caption(
        ngettext(
            "{count} case. Select a row, or pick a case below, to see it side by side.",
            "{count} cases. Select a row, or pick a case below, to see it side by side.",
            len(ids),
        ).format(count=len(ids))
    )
    return ids


def run_header(snap: Snapshot, run: SavedRun, unmatched: int) -> None:
    key = run.key
    st.markdown(
        _(
            "Latest scored run: **{count} cases** of {dataset} · candidate {candidate} · split {split} · "
            "scored {when} · `metric.py` `{version}`"
        ).format(
            count=len(run.results),
            dataset=md(key.dataset_name or snap.in_use.data.name),
            candidate=md(key.candidate or "–"),
            split=md(key.split or _("all")),
            when=format_datetime(datetime.fromtimestamp(run.created_at)),
            version=key.metric_hash,
        )
    )
    changes = stale_changes(run.provenance, snap.provenance)
    stale = stale_banner(changes, _("This run's results"), None, key="feedback.stale")
    if unmatched:
        st.info(
            _("{count} of its cases are no longer in the dataset and are left out.").format(count=unmatched),
            icon=":material/info:",
        )
    score_controls(len(snap.cases), stale or bool(unmatched))


def review_section(snap: Snapshot, run: SavedRun, pairs: Pairs, result: Review) -> None:
    marks = studio.session().workspace.runs.marks_for(run)
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
    draw_model_review(snap, run, pairs, result, grades)


def page() -> None:
    snap = studio.snapshot()
    data, chosen = snap.in_use.data, snap.in_use.candidate
    st.title(_("Feedback review"))
    st.caption(
        _(
            "GEPA, DSPy GEPA and Auto read each case's feedback to write the next version. Feedback helps when "
            "it says what was wrong and what the right output looks like; the rules below flag the rest."
        )
    )
    run = studio.session().workspace.runs.latest(snap.in_use)
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
        score_controls(len(snap.cases), True)
        return
    pairs, unmatched = fv.pair_up(data.for_candidate(run.key.candidate), run.results)
    run_header(snap, run, unmatched)
    if not pairs:
        st.warning(_("None of this run's cases is in the dataset any more; score again."), icon=":material/warning:")
        return
    result = reviewed(run, pairs, thresholds_editor())
    review_section(snap, run, pairs, result)
    draw_agreement(run, pairs, result)
    uplift_panel(snap)
    panel = lazy_expander(
        _("Try one reflection step: would this feedback help an optimizer?"), key=K.FEEDBACK_REFLECTION_OPEN
    )
    if panel is not None:
        with panel:
            draw_reflection_step(
                MetricSource.of(run.metric_source) if run.metric_source else snap.metric,
                [case for case, _res in pairs],
                [res for _case, res in pairs],
                snap.settings,
                dataset=data.source,
                instruction=dataset_instruction(data),
                key="feedback.reflection",
            )
    draw_health(snap, run, pairs)
