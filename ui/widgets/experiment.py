"""What every experiment panel draws the same way (the uplift experiment on Feedback review, "Align the judge" on
Human scores, the Stress test page): its collapsed panel with what it does, the budget field, the plan's line of
calls and cost (or why it cannot start as asked), the run button with the reason the last start was refused, and
the job section (progress and Cancel through the one job panel, then what went wrong). Each page keeps its form,
its plan's question to the workspace and its result; it calls these as ``experiment.run_section(...)``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st
from streamlit.delta_generator import DeltaGenerator

from skynet_core.i18n import _, with_language
from skynet_core.llm import litellm_ready, warm_up
from skynet_core.workspace.jobs import Job, JobSlot
from ui import studio
from ui.widgets.jobs import job_panel, outcome_panel, progress_row
from ui.widgets.lazy import lazy_expander
from ui.widgets.text import md

S = st.session_state


@dataclass(frozen=True)
class Experiment:
    """One experiment's place in the session. ``slot`` names its job slot, ``job_key`` prefixes its job panel's
    keys, ``run_key`` is its run button's key and ``refused_key`` keeps why the last start was refused (with the
    ``forget`` keys, cleared at each start). ``start(session, slot)`` starts the job from the form, raising
    ``ValueError`` with the reason when it cannot; ``now(job)`` says where a running job is (``None``: nothing yet).
    """

    slot: str
    job_key: str
    run_key: str
    refused_key: str
    start: Callable[[studio.Session, JobSlot], object]
    now: Callable[[Job[Any]], str | None]
    forget: tuple[str, ...] = ()


def panel(label: str, *, key: str, icon: str, about: str) -> DeltaGenerator | None:
    """A collapsed panel keyed ``key`` that says what the experiment does (``about``) once open: the container to
    draw the rest into while it is open, else ``None``."""
    panel = lazy_expander(label, key=key, icon=icon)
    if panel is not None:
        panel.caption(about)
    return panel


def budget_field(place: DeltaGenerator, label: str, *, key: str, keep: Callable[[], None], help: str) -> None:
    """The form's budget in dollars (0: none of the form's own), in ``place``; ``keep`` keeps the form."""
    place.number_input(
        label, min_value=0.0, step=0.05, format="%.2f", key=key, on_change=with_language(keep), help=help
    )


def load_litellm() -> None:
    """Load litellm before a plan prices its calls, saying so while it loads (the first time after a server start)."""
    if not litellm_ready():
        with st.spinner(_("Loading litellm (once per server start; it takes a few seconds)…")):
            warm_up(wait=True)


def cannot_start(reason: str) -> bool:
    """Say why the experiment cannot start as asked; False (it cannot)."""
    st.warning(md(reason), icon=":material/warning:")
    return False


def plan_lines(lines: Sequence[str]) -> bool:
    """The plan: its first line (calls and cost) by the calculator, the rest as a caption; True (it can start)."""
    st.markdown(":material/calculate: " + md(lines[0]))
    if lines[1:]:
        st.caption("  \n".join(md(line) for line in lines[1:]))
    return True


def run_section(experiment: Experiment, label: str, ready: bool) -> Job[Any] | None:
    """The run button (off while the plan cannot start or the job runs), why the last start was refused, then the
    job: its progress with Cancel while it runs, then what went wrong. The finished job when the page has more of it
    to draw (its outcome said nothing that ends it), else ``None``."""
    slot = studio.session().slot(experiment.slot)
    st.button(
        label,
        on_click=with_language(_start),
        args=(experiment,),
        disabled=not ready or (slot.job is not None and slot.job.running),
        type="primary",
        icon=":material/play_arrow:",
        key=experiment.run_key,
    )
    if S.get(experiment.refused_key):
        cannot_start(S[experiment.refused_key])

    def running(job: Job[Any]) -> None:
        progress_row(studio.session().slot(experiment.slot), job, experiment.job_key)
        now = experiment.now(job)
        if now is not None:
            st.caption(now)

    outcome = job_panel(slot, experiment.job_key, running)
    if outcome is None or not outcome.finished or outcome_panel(outcome, experiment.job_key):
        return None
    return slot.job


def _start(experiment: Experiment) -> None:
    for key in (experiment.refused_key, *experiment.forget):
        S.pop(key, None)
    me = studio.session()
    try:
        experiment.start(me, me.slot(experiment.slot))
    except ValueError as exc:
        S[experiment.refused_key] = str(exc)
