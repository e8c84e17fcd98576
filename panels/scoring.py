"""The Author page's "Every case" section: Score all with its progress and results, and the judge-consistency runs."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import datetime

import pandas as pd
import streamlit as st

import studio
from panels.cases import cases_table
from skynet_core.cases import Case
from skynet_core.i18n import _, format_datetime
from skynet_core.metric_source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.results import CaseResult

S = st.session_state


def start_score() -> None:
    studio.workspace().score_all(studio.job_slot("score"), keys=studio.session_keys(), watcher=studio.watcher())


def score_panel(
    current: Provenance,
    cases: list[Case],
    pins: list[str],
    on_pin: Callable[[str], None],
    on_try: Callable[[str], None],
) -> list[CaseResult]:
    """The "Score all" button, its progress and the results table; returns the results shown (none: [])."""
    ws, slot = studio.workspace(), studio.job_slot("score")
    job = slot.job
    done = job is not None and job.finished
    running = job is not None and not done
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            _("Score all cases"),
            on_click=start_score,
            disabled=running or not cases,
            type="primary",
            icon=":material/play_arrow:",
            key="author.score_all",
        )
        if ws.ray_address():
            where = _("on the Ray cluster at {address}").format(address=studio.md(ws.ray_address()))
        else:
            where = _("in the background")
        st.caption(
            _("Runs metric.py on all {count} cases of the chosen candidate and split, {where}.").format(
                count=len(cases), where=where
            )
        )
    studio.job_progress(slot, "author.score", _("Scoring"), job, done)
    stale = _("These results")
    table = {"pins": pins, "on_pin": on_pin, "on_try": on_try}
    if job is None:
        saved = ws.latest_run()
        if saved is None:
            st.caption(_("No cases scored yet."))
            return []
        st.caption(
            _("Results of the last run, scored {when}.").format(
                when=format_datetime(datetime.fromtimestamp(saved.created_at))
            )
        )
        studio.stale_banner(studio.stale_changes(saved.provenance, current), stale, start_score, key="author.rescore")
        cases_table(("run", saved.id), saved.results, cases, "author", **table)  # type: ignore[arg-type]
        return saved.results
    if not done:
        return []
    if job.error:
        if job.error.startswith("ClusterError"):
            message = re.sub(r" \([\w.]+:\d+\)$", "", job.error.removeprefix("ClusterError: "))
            st.error(studio.md(message), icon=":material/hub:")
            return []
        st.error(_("Scoring could not run. Try again; if it repeats, restart the app."))
        studio.long_text(job.error, key="author.score_error")
        return []
    results = job.result.cases if job.result is not None else job.partial
    if job.cancelled:
        st.warning(
            _("Scoring was cancelled after {done} of {total} cases; the table shows those.").format(
                done=len(results), total=job.total
            )
        )
    if job.result is not None and job.result.first_failure is not None and not results:
        failure = job.result.first_failure
        if failure.line:
            st.error(
                _("No case was scored: metric.py fails at {stage} ({file} line {line}).").format(
                    stage=studio.md(failure.label), file=studio.md(failure.file), line=failure.line
                )
            )
        else:
            st.error(_("No case was scored: metric.py fails at {stage}.").format(stage=studio.md(failure.label)))
        studio.long_text(failure.message, key="author.score_failure")
        return []
    studio.stale_banner(studio.stale_changes(job.provenance, current), stale, start_score, key="author.rescore")
    cases_table(("job", job.id), results, cases, "author", **table)  # type: ignore[arg-type]
    return results


def start_consistency(metric: MetricSource, cases: list[Case]) -> None:
    repeats, limit = int(S["author.consistency_repeats"]), int(S["author.consistency_cases"])
    studio.workspace().judge_consistency(
        studio.job_slot("consistency"),
        metric,
        cases[:limit],
        repeats,
        keys=studio.session_keys(),
        watcher=studio.watcher(),
    )


def consistency_panel(metric: MetricSource, current: Provenance, cases: list[Case]) -> None:
    """Judge each case several times: a judge whose verdict flips on the same case is a weak metric."""
    st.caption(
        _(
            "For metrics that call a model: the spread of each case's scores over repeated runs, and how often "
            "a verdict flips. A deterministic metric shows no spread."
        )
    )
    slot = studio.job_slot("consistency")
    job = slot.job
    done = job is not None and job.finished
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.number_input(
            _("Times per case"), min_value=2, max_value=10, value=3, key="author.consistency_repeats", width=160
        )
        st.number_input(
            _("Cases"),
            min_value=1,
            max_value=max(1, len(cases)),
            value=min(20, max(1, len(cases))),
            key="author.consistency_cases",
            width=160,
        )
        st.button(
            _("Judge each case again"),
            on_click=start_consistency,
            args=(metric, cases),
            disabled=(job is not None and not done) or not cases,
            icon=":material/repeat:",
        )
    studio.job_progress(slot, "author.consistency", _("Judging again"), job, done)
    if job is None or not done:
        return
    if job.error:
        st.error(_("The repeated runs could not run."))
        studio.long_text(job.error, key="author.consistency_error")
        return
    if job.result is None:
        st.info(_("The repeated runs were cancelled."))
        return
    studio.stale_banner(
        studio.stale_changes(job.provenance, current), _("These repeated runs"), None, key="author.consistency_stale"
    )
    st.text(job.result.describe())
    st.dataframe(pd.DataFrame(job.result.rows()), hide_index=True, width="stretch")
