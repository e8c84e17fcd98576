"""Jobs on a page: the one polling fragment, the progress line, the one outcome panel, and the running jobs.

A page draws a job in two parts. :func:`job_panel` is the poll-then-rerun loop, written once: while the
slot's job runs, a fragment redraws its progress (with Cancel) every ``POLL_S``, less often once it has run a
while; once it has finished and no full run has drawn it finished yet, it asks for one full rerun. It returns the
outcome the run saw at its start; the page then draws a finished outcome itself: :func:`outcome_panel` says what
went wrong, if anything, and the page draws the results.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import streamlit as st

from skynet_core.i18n import _, format_cost, format_datetime, format_duration, format_number, with_language
from skynet_core.results import ErrorKind, Outcome, OutcomeStatus
from skynet_core.workspace.jobs import Job, JobSlot
from ui import keys as K
from ui.studio import apply_language, session
from ui.widgets.text import long_text, md

# How often a running job's progress is redrawn. Each redraw is a round trip that the browser draws again: a tab
# showing a job's progress every 0.2 s kept its browser at a third to half of a core (measured in Chromium,
# 6 December 2026), every 0.5 s at about half that. A job is redrawn every POLL_S for its first FAST_FOR_S, so a
# short one (a check, a tried case, "Score all" on a few dozen cases: under a second) is seen finished at most
# 0.2 s late; then every SLOW_POLL_S (a judge's check, a long scoring, an experiment, an alignment), switched by
# one full run.
POLL_S = 0.2
FAST_FOR_S = 3.0
SLOW_POLL_S = 0.5
JOBS_POLL_S = 2.0
S = st.session_state


def progress_text(job: Job[Any], spent: float | None) -> str:
    """The progress line of a running job: what, how far, how long, and what its ``llm()`` calls spent so far
    (``spent`` is ``None`` while the job starts, or for a job without a model: then it is left out)."""
    values = {
        "what": job.kind.label,
        "done": format_number(job.done),
        "total": format_number(job.total),
        "elapsed": format_duration(job.elapsed_s),
    }
    if not spent:
        return _("{what}… {done} of {total} ({elapsed})").format(**values)
    cost = format_cost(spent).replace("$", "\\$")  # not a formula to markdown
    return _("{what}… {done} of {total} ({elapsed}) · llm() spent {cost}").format(cost=cost, **values)


def progress_row(slot: JobSlot, job: Job[Any], key: str) -> None:
    """The progress bar of a running job, with its Cancel button."""
    left, right = st.columns([5, 1], vertical_alignment="center")
    text = progress_text(job, session().workspace.jobs.llm_spent(job))
    left.progress(job.progress, text=text[:1].upper() + text[1:])
    right.button(_("Cancel"), on_click=with_language(slot.cancel), icon=":material/stop_circle:", key=f"{key}.cancel")


def poll_every(job: Job[Any] | None) -> float:
    """How often the progress of ``job`` is redrawn: :data:`POLL_S` while it is young, :data:`SLOW_POLL_S` after."""
    return POLL_S if job is None or job.elapsed_s < FAST_FOR_S else SLOW_POLL_S


def job_panel(slot: JobSlot, key: str, running: Callable[[Job[Any]], None] | None = None) -> Outcome | None:
    """The slot's job as this run sees it (``None``: there is none), and while it runs the polling fragment:
    ``running(job)`` (default: :func:`progress_row`) redrawn every :data:`POLL_S`, and from :data:`FAST_FOR_S` on
    every :data:`SLOW_POLL_S`, then one full rerun once it has finished. ``key`` prefixes this panel's widget and
    state keys."""
    job = slot.job
    outcome = job.outcome() if job is not None else None
    if job is not None and outcome is not None and outcome.finished:
        S[K.drawn(key)] = job.id
    every = poll_every(job)

    @st.fragment(run_every=every if outcome is not None and not outcome.finished else None)
    def poll() -> None:
        apply_language()  # a fragment's rerun may run in a new thread, without app.py's choice
        me = session()
        me.workspace.jobs.watch(me.watcher)
        current = slot.job
        if current is None or current.finished:
            if current is not None and S.get(K.drawn(key)) != current.id:
                st.rerun()  # a full run draws the finished job and stops the polling
            return
        if poll_every(current) > every:
            st.rerun()  # once: the full run sets the slower beat (a fragment's interval is set where it is drawn)
        (running or (lambda job: progress_row(slot, job, key)))(current)

    # In a container of its own: a fragment that draws nothing takes no place in the page, so the first element
    # after it (the check's verdict) stood where the fragment's elements had been, and the fragment's next run
    # cleared it as its own stale element.
    with st.container():
        poll()
    return outcome


def outcome_panel(outcome: Outcome, key: str) -> bool:
    """Say what went wrong with a finished job, if anything, the one way every page does; True when there is
    nothing more to draw (it could not run, no case was scored, or it was cancelled before any case ran)."""
    message = outcome.message()
    if outcome.status is OutcomeStatus.SCORED:
        return False
    if outcome.status is OutcomeStatus.CANCELLED:
        (st.warning if outcome.results else st.info)(message, icon=":material/cancel:")
        return not outcome.results
    if outcome.status is OutcomeStatus.COULD_NOT_RUN:
        icon = ":material/hub:" if outcome.error_kind is ErrorKind.CLUSTER else ":material/error:"
        st.error(md(message), icon=icon)
        if outcome.error_kind is ErrorKind.INTERNAL and outcome.error:
            long_text(outcome.error, key=f"{key}.error")
        return True
    st.error(message, icon=":material/error:")
    if outcome.failure is not None and outcome.failure.message:
        long_text(outcome.failure.message, key=f"{key}.failure")
    return True


def running_jobs() -> None:
    """Every running job of the studio, whichever session or tab started it, with a Cancel button each."""
    me = session()
    board = me.workspace.jobs

    @st.fragment(run_every=JOBS_POLL_S if board.running(me.watcher) else None)
    def panel() -> None:
        apply_language()
        current = board.running(me.watcher)
        if not current:
            # Nothing left to list. No full rerun to stop the polling: it would redraw an idle tab (and
            # reload its editor) whenever another tab's job ends; the next run of the page stops it.
            return
        st.markdown("**{title}**".format(title=_("Running jobs")))
        queued = {request.run.job_id for request in me.workspace.bounds.sandbox_queue().waiting}  # over the sandbox cap
        for job in current:
            started = format_datetime(datetime.fromtimestamp(job.started_wall), "HH:mm:ss")
            kind = job.kind.label
            waits = " · " + _("waiting for a sandbox") if job.id in queued else ""
            # One container per job, so its caption and its Cancel button stay together (and can be found so).
            with st.container(key=f"studio.jobs.job.{job.id}"):
                st.caption(
                    _("{kind} · {done} of {total} · started {time}").format(
                        kind=kind, done=format_number(job.done), total=format_number(job.total), time=started
                    )
                    + waits
                )
                st.button(
                    _("Cancel"),
                    key=f"studio.jobs.cancel.{job.id}",
                    on_click=with_language(board.cancel),
                    args=(job.id,),
                    icon=":material/stop_circle:",
                    type="tertiary",
                    help=_("Cancel this job: {kind}").format(kind=kind),
                )

    panel()
