"""Stress test: will the optimizer game it? The form (cases, seed, budget, the exploit search), the plan with the
model calls and cost before anything starts, the run as a workspace job (progress and Cancel through the one job
panel), and the newest report of the dataset in use (drawn by ``report.py``).

A page of its own rather than a panel of Feedback review: it asks about the metric itself, not about a saved run's
feedback, so it needs no scored run first, and its results (the verdict, the worst examples side by side, every
perturbation, the search) need the page's room. The form's values are the workspace's (``Workspace.stress.form``).
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from pages.stress.report import draw_report
from skynet_core.i18n import _, format_number, with_language
from skynet_core.llm import litellm_ready, warm_up
from skynet_core.stress.defaults import MAX_ROUNDS
from skynet_core.workspace import Snapshot, StressForm
from skynet_core.workspace.jobs import Job
from ui import keys as K
from ui import studio
from ui.widgets.jobs import job_panel, outcome_panel, progress_row
from ui.widgets.text import md

S = st.session_state
SLOT = "stress"
JOB_KEY = "stress.job"
FIELDS = (K.STRESS_CASES, K.STRESS_SEED, K.STRESS_BUDGET, K.STRESS_SEARCH, K.STRESS_ROUNDS)


def form_from_widgets() -> StressForm:
    cases, budget = int(S[K.STRESS_CASES] or 0), float(S[K.STRESS_BUDGET] or 0.0)
    return StressForm(
        cases if cases > 0 else None,
        int(S[K.STRESS_SEED] or 0),
        budget if budget > 0 else None,
        bool(S[K.STRESS_SEARCH]),
        int(S[K.STRESS_ROUNDS]),
    )


def keep_form() -> None:
    studio.session().workspace.stress.set_form(form_from_widgets())


def start() -> None:
    me = studio.session()
    S.pop(K.STRESS_REFUSED, None)
    try:
        me.workspace.stress.start(me.slot(SLOT), form_from_widgets(), keys=me.keys, watcher=me.watcher)
    except ValueError as exc:
        S[K.STRESS_REFUSED] = str(exc)


def form_fields() -> None:
    """The run's size and the exploit search, shown as the workspace keeps them."""
    kept = studio.session().workspace.stress.form()
    values = (kept.cases or 0, kept.seed, kept.max_cost_usd or 0.0, kept.search, kept.rounds)
    S.update(dict(zip(FIELDS, values, strict=True)))
    sizes = st.columns(3)
    sizes[0].number_input(
        _("Cases (0: the default)"),
        min_value=0,
        step=10,
        key=K.STRESS_CASES,
        on_change=with_language(keep_form),
        help=_(
            "How many cases to sample. By default all of them; for a metric that calls llm(), about 300 calls' worth."
        ),
    )
    sizes[1].number_input(
        _("Seed"),
        min_value=0,
        step=1,
        key=K.STRESS_SEED,
        on_change=with_language(keep_form),
        help=_("The seed of every random choice."),
    )
    sizes[2].number_input(
        _("Budget ($, 0: the settings')"),
        min_value=0.0,
        step=0.05,
        format="%.2f",
        key=K.STRESS_BUDGET,
        on_change=with_language(keep_form),
        help=_("The run's model calls stop once they have cost this much."),
    )
    search = st.columns([2, 1], vertical_alignment="bottom")
    search[0].toggle(
        _("Search for an exploit too"),
        key=K.STRESS_SEARCH,
        on_change=with_language(keep_form),
        help=_(
            "The reflection model looks for a rewrite of wrong outputs that the metric rewards; the task model "
            "applies it, seeing only the output. Needs both models (Settings)."
        ),
    )
    search[1].number_input(
        _("Rounds"),
        min_value=1,
        max_value=MAX_ROUNDS,
        step=1,
        key=K.STRESS_ROUNDS,
        on_change=with_language(keep_form),
        disabled=not S[K.STRESS_SEARCH],
        help=_("The search's proposals (GEPA iterations)."),
    )


def plan_lines(snap: Snapshot) -> bool:
    """The planned outputs, model calls and cost (or why the run cannot start as asked); True when it can start."""
    me = studio.session()
    form = form_from_widgets()
    if (form.search or snap.metric.names_llm()) and not litellm_ready():
        with st.spinner(_("Loading litellm (once per server start; it takes a few seconds)…")):
            warm_up(wait=True)
    try:
        setup = me.workspace.stress.plan(form, me.keys)
    except ValueError as exc:
        st.warning(md(str(exc)), icon=":material/warning:")
        return False
    lines = setup.plan.describe()
    st.markdown(":material/calculate: " + md(lines[0]))
    if lines[1:]:
        st.caption("  \n".join(md(line) for line in lines[1:]))
    return True


def running(job: Job[Any]) -> None:
    """The job's progress bar and Cancel, then the exploit search's proposal once it runs."""
    me = studio.session()
    progress_row(me.slot(SLOT), job, JOB_KEY)
    proposal = me.workspace.stress.round(job)
    if proposal is not None:
        st.caption(_("Now: the exploit search, proposal {number}").format(number=format_number(proposal)))


def job_section() -> None:
    slot = studio.session().slot(SLOT)
    outcome = job_panel(slot, JOB_KEY, running)
    if outcome is not None and outcome.finished:
        outcome_panel(outcome, JOB_KEY)


def page() -> None:
    snap = studio.snapshot()
    st.title(_("Stress test"))
    st.caption(
        _(
            "Will the optimizer game it? Each output is changed in named ways and scored again: changes that keep "
            "the meaning must not move the score, changes that make it worse must lower it, and dressing a wrong "
            "answer up must not raise it. An optimizer finds every gap you leave."
        )
    )
    st.caption(
        _("The current `metric.py` on the {count} cases in use ({dataset}).").format(
            count=format_number(len(snap.cases)), dataset=md(snap.in_use.data.name)
        )
    )
    form_fields()
    ready = plan_lines(snap)
    slot = studio.session().slot(SLOT)
    st.button(
        _("Run the stress test"),
        on_click=with_language(start),
        disabled=not ready or (slot.job is not None and slot.job.running),
        type="primary",
        icon=":material/play_arrow:",
        key="stress.run",
    )
    if S.get(K.STRESS_REFUSED):
        st.warning(md(S[K.STRESS_REFUSED]), icon=":material/warning:")
    job_section()
    saved = studio.session().workspace.stress.latest(snap.in_use)
    if saved is None:
        st.info(_("No stress test has run on this dataset yet."), icon=":material/info:")
    else:
        draw_report(snap, saved)
