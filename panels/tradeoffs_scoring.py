"""Reward trade-offs scoring: score every candidate once in the background, and find scores made earlier.

Scores are kept per (metric.py with REWARD_SPEC set aside, dataset, split) in the session, and each
candidate's run is saved like a "Score all cases" run, so a new session finds them in the run store.
"""

from __future__ import annotations

import dataclasses

import streamlit as st

import studio
from skynet_core.datasets import Dataset
from skynet_core.i18n import _, ngettext
from skynet_core.metric_source import MetricSource
from skynet_core.scored_candidates import (
    ScoredCandidates,
    candidate_cases,
    collect,
    display_name,
    from_saved_runs,
    metric_key,
    scored_accuracy_ref,
)

KEPT_RUNS = 4
S = st.session_state


def slot() -> studio.JobSlot:
    """This session's scoring slot (looked up each time: a module outlives a session)."""
    return studio.job_slot("tradeoffs")


def dataset_key(data: Dataset, split: str | None) -> tuple[str, str, int, str | None]:
    return data.source, data.name, len(data.cases), split


def start_scoring(source: str, data: Dataset, split: str | None) -> None:
    cases = candidate_cases(data, split)
    S["tradeoffs.job"] = {
        "cases": cases,
        "candidates": list(data.candidates),
        "dataset": dataset_key(data, split),
        "source": source,
    }
    metric = MetricSource.of(source)
    studio.workspace().score(
        slot(),
        metric,
        cases,
        studio.run_options(),
        kind="trade-offs",
        label="tradeoffs",
        watcher=studio.watcher(),
        provenance=studio.provenance(metric),
    )


def take_finished_job() -> str | None:
    """Store the finished scoring job's candidates (once); return why it gave none, if so."""
    job = slot().job
    if job is None or job.running or S.get("tradeoffs.collected") == job.id:
        return S.get("tradeoffs.job_problem")
    S["tradeoffs.collected"] = job.id
    S["tradeoffs.job_problem"] = None
    meta = S["tradeoffs.job"]
    if job.cancelled:
        S["tradeoffs.job_problem"] = _("Scoring was cancelled; press Score candidates to run it again.")
    elif job.error or job.result is None:
        S["tradeoffs.job_problem"] = _(
            "Scoring could not run: {error}. Try again; if it repeats, restart the app."
        ).format(error=studio.md(job.error or ""))
    elif not job.result.cases and job.result.first_failure is not None:
        failure = job.result.first_failure
        message = studio.md((failure.message.splitlines() or [""])[0])
        S["tradeoffs.job_problem"] = (
            _(
                "No case was scored: metric.py fails at {stage} ({file} line {line}): {message} "
                "Fix it on the Author page."
            )
            if failure.line
            else _("No case was scored: metric.py fails at {stage}: {message} Fix it on the Author page.")
        ).format(stage=studio.md(failure.label), file=studio.md(failure.file), line=failure.line, message=message)
    else:
        source, split = meta["source"], meta["dataset"][3]
        for name in meta["candidates"]:
            # Kept like a "Score all cases" run of each candidate: a reload finds them, and so does Feedback review.
            made_by = dataclasses.replace(job.provenance, candidate=name, split=split)
            studio.workspace().keep_run(
                MetricSource.of(source), [result for result in job.result.cases if result.candidate == name], made_by
            )
        metric = metric_key(source)
        remember(
            (metric, meta["dataset"]),
            collect(job.result.cases, meta["cases"], meta["candidates"], scored_accuracy_ref(source), metric),
        )
    return S["tradeoffs.job_problem"]


def remember(key: tuple, scored: ScoredCandidates) -> None:
    runs = S.setdefault("tradeoffs.runs", {})
    runs.pop(key, None)
    runs[key] = scored
    for stale in list(runs)[:-KEPT_RUNS]:
        del runs[stale]


def saved_scores(data: Dataset, split: str | None, metric: str) -> ScoredCandidates | None:
    """Every candidate's newest saved run, when each was scored by this metric.py (REWARD_SPEC aside) on ``split``."""
    return from_saved_runs(
        [studio.run_store().latest(data.source, name) for name in data.candidates], data, split, metric
    )


def scored_for(data: Dataset, split: str | None, metric: str) -> ScoredCandidates | None:
    """The scores of this metric.py on this dataset (from this session or the run store), else the latest
    of this session on this dataset (from an earlier text of metric.py)."""
    dataset = dataset_key(data, split)
    runs: dict = S.get("tradeoffs.runs", {})
    if (metric, dataset) in runs:
        return runs[(metric, dataset)]
    looked: set = S.setdefault("tradeoffs.store_looked", set())
    if (metric, dataset) not in looked:
        looked.add((metric, dataset))
        saved = saved_scores(data, split, metric)
        if saved is not None:
            remember((metric, dataset), saved)
            return saved
    earlier = [run for (_metric, on), run in runs.items() if on == dataset]
    return earlier[-1] if earlier else None


def draw(source: str, data: Dataset, split: str | None, scored: ScoredCandidates | None, metric: str) -> None:
    job = slot().job
    running = job is not None and job.running
    count = len(candidate_cases(data, split))
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            _("Score candidates"),
            on_click=start_scoring,
            args=(source, data, split),
            type="primary",
            icon=":material/play_arrow:",
            disabled=running or count == 0,
            key="tradeoffs.score",
        )
        st.caption(
            _(
                "Runs metric.py once on each of the {count} cases of {candidates} ({names}) in the background. "
                "Moving a control afterwards never runs it again."
            ).format(
                count=count,
                candidates=ngettext("{n} candidate", "{n} candidates", len(data.candidates)).format(
                    n=len(data.candidates)
                ),
                names=", ".join(studio.md(display_name(name)) for name in data.candidates),
            )
        )
    studio.job_progress(slot(), "tradeoffs.job", _("Scoring"), job, job is not None and job.finished)
    if scored is not None:
        studio.stale_banner(
            [_("metric.py changed (apart from its weights and references)")] if scored.metric != metric else [],
            _("These scores"),
            None,
            key="tradeoffs.stale",
        )
