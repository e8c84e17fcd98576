"""The Author page's "Every case" section: Score all with its progress and results, and the judge-consistency runs."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd
import streamlit as st

from pages.author import try_case
from skynet_core.i18n import _, format_datetime, with_language
from skynet_core.judge.noise import noise_acceptance
from skynet_core.results import CaseResult
from skynet_core.runs import SavedRun
from skynet_core.views.author import ScoredResults, ScoredRun
from skynet_core.workspace import Snapshot
from skynet_core.workspace.jobs import Job, JobSlot
from ui import keys as K
from ui import studio
from ui.widgets.agreement import agreement_line
from ui.widgets.cases import cases_table, partial_table
from ui.widgets.jobs import job_panel, outcome_panel, progress_row
from ui.widgets.stale import stale_banner, stale_changes
from ui.widgets.text import md

S = st.session_state


def start_score() -> None:
    me = studio.session()
    me.workspace.jobs.score_all(me.slot("score"), keys=me.keys, watcher=me.watcher)


def toggle_pin(case_id: str) -> None:
    studio.session().workspace.data.toggle_check_pin(case_id)


def try_row(case_id: str) -> None:
    """Re-run one case of the table in "Try one case" (opened), where it can be edited."""
    case = next((case for case in studio.session().workspace.data.in_use().cases if case.id == case_id), None)
    if case is not None:
        try_case.prefill(case)
        S[K.AUTHOR_TRY_OPEN] = True
        try_case.run()


def where(snap: Snapshot) -> str:
    if snap.ray_address:
        return _("on the Ray cluster at {address}").format(address=md(snap.ray_address))
    return _("in the background")


def last_scoring(snap: Snapshot) -> ScoredRun | None:
    """What the last "Score all" found: this session's finished scoring job, or (when it has none) the newest
    saved run of the cases in use; ``None`` while a job runs or when it gave nothing. Read once per run: the
    verdict and the results table both show it."""
    me = studio.session()
    job = me.slot("score").job
    if job is None:
        return me.workspace.runs.latest(snap.in_use)
    if job.finished and job.result is not None:
        return ScoredResults(job.provenance, job.result.cases)
    return None


def score_panel(snap: Snapshot, pins: list[str], last: ScoredRun | None) -> list[CaseResult]:
    """The "Score all" button, its progress and the results table (``last``: :func:`last_scoring`, the saved run
    shown when this session scored nothing); returns the results shown (none: [])."""
    me = studio.session()
    slot, cases = me.slot("score"), snap.cases
    running = slot.job is not None and slot.job.running
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            _("Score all cases"),
            on_click=with_language(start_score),
            disabled=running or not cases,
            type="primary",
            icon=":material/play_arrow:",
            key="author.score_all",
        )
        st.caption(
            _("Runs metric.py on all {count} cases of the chosen candidate and split, {where}.").format(
                count=len(cases), where=where(snap)
            )
        )
    outcome = job_panel(slot, "author.score", running=lambda job: scoring_so_far(slot, job))
    job = slot.job
    if last is None and job is not None and job.finished and job.result is not None:
        st.rerun()  # it finished after the verdict read it: one more run, so the verdict and the table agree
    stale = _("These results")
    table = {"pins": pins, "on_pin": toggle_pin, "on_try": try_row}
    if outcome is None:
        saved = last if isinstance(last, SavedRun) else None
        if saved is None:
            st.caption(_("No cases scored yet."))
            return []
        when = format_datetime(datetime.fromtimestamp(saved.created_at))
        st.caption(_("Results of the last run, scored {when}.").format(when=when))
        stale_banner(stale_changes(saved.provenance, snap.provenance), stale, start_score, key="author.rescore")
        agreement_line(saved.results, saved.key.dataset, saved.key.candidate)
        cases_table(("run", saved.id), saved.results, cases, "author", **table)  # type: ignore[arg-type]
        return saved.results
    if not outcome.finished or outcome_panel(outcome, "author.score"):
        return []
    assert job is not None
    stale_banner(stale_changes(job.provenance, snap.provenance), stale, start_score, key="author.rescore")
    results = list(outcome.results)
    if job.provenance is not None:
        agreement_line(results, job.provenance.dataset, job.provenance.candidate)
    cases_table(("job", job.id), results, cases, "author", **table)  # type: ignore[arg-type]
    return results


def scoring_so_far(slot: JobSlot, job: Job[Any]) -> None:
    """A running "Score all": its progress, then the cases it has scored so far (redrawn by the job panel)."""
    progress_row(slot, job, "author.score")
    partial_table(job)


def start_consistency() -> None:
    me, snap = studio.session(), studio.snapshot()
    repeats, limit = int(S[K.AUTHOR_CONSISTENCY_REPEATS]), int(S[K.AUTHOR_CONSISTENCY_CASES])
    me.workspace.jobs.judge_consistency(
        me.slot("consistency"), snap.metric, snap.cases[:limit], repeats, keys=me.keys, watcher=me.watcher
    )


def consistency_panel(snap: Snapshot) -> None:
    """Judge each case several times: a judge whose verdict flips on the same case is a weak metric."""
    st.caption(
        _(
            "For metrics that call a model: the spread of each case's scores over repeated runs, and how often "
            "a verdict flips. A deterministic metric shows no spread."
        )
    )
    cases, slot = snap.cases, studio.session().slot("consistency")
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.number_input(
            _("Times per case"), min_value=2, max_value=10, value=3, key=K.AUTHOR_CONSISTENCY_REPEATS, width=160
        )
        st.number_input(
            _("Cases"),
            min_value=1,
            max_value=max(1, len(cases)),
            value=min(20, max(1, len(cases))),
            key=K.AUTHOR_CONSISTENCY_CASES,
            width=160,
        )
        st.button(
            _("Judge each case again"),
            on_click=with_language(start_consistency),
            disabled=(slot.job is not None and slot.job.running) or not cases,
            icon=":material/repeat:",
        )
    if snap.ray_address:
        st.caption(_("Scored {where}.").format(where=where(snap)))
    outcome = job_panel(slot, "author.consistency")
    job = slot.job
    if outcome is None or job is None or not outcome.finished or outcome_panel(outcome, "author.consistency"):
        return
    if job.result is None:
        return
    changes = stale_changes(job.provenance, snap.provenance)
    stale_banner(changes, _("These repeated runs"), None, key="author.consistency_stale")
    st.text(job.result.describe())
    st.caption(job.result.cache_note)
    st.caption(noise_acceptance(job.result).describe())  # the chance GEPA keeps an unchanged candidate (issue 25)
    st.dataframe(pd.DataFrame(job.result.rows()), hide_index=True, width="stretch")
