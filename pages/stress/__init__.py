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
from skynet_core.stress.defaults import MAX_ROUNDS
from skynet_core.workspace import Snapshot, StressForm
from skynet_core.workspace.jobs import Job, JobSlot
from ui import keys as K
from ui import studio
from ui.widgets import experiment
from ui.widgets.text import md

S = st.session_state
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


def start(me: studio.Session, slot: JobSlot) -> None:
    me.workspace.stress.start(slot, form_from_widgets(), keys=me.keys, watcher=me.watcher)


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
    experiment.budget_field(
        sizes[2],
        _("Budget ($, 0: the settings')"),
        key=K.STRESS_BUDGET,
        keep=keep_form,
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


def plan(snap: Snapshot) -> bool:
    """The planned outputs, model calls and cost (or why the run cannot start as asked); True when it can start."""
    me = studio.session()
    form = form_from_widgets()
    if form.search or snap.metric.names_llm():
        experiment.load_litellm()
    try:
        setup = me.workspace.stress.plan(form, me.keys)
    except ValueError as exc:
        return experiment.cannot_start(str(exc))
    return experiment.plan_lines(setup.plan.describe())


def now(job: Job[Any]) -> str | None:
    """The exploit search's proposal, once it runs."""
    proposal = studio.session().workspace.stress.round(job)
    if proposal is None:
        return None
    return _("Now: the exploit search, proposal {number}").format(number=format_number(proposal))


STRESS = experiment.Experiment("stress", "stress.job", "stress.run", K.STRESS_REFUSED, start, now)


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
    ready = plan(snap)
    experiment.run_section(STRESS, _("Run the stress test"), ready)
    saved = studio.session().workspace.stress.latest(snap.in_use)
    if saved is None:
        st.info(_("No stress test has run on this dataset yet."), icon=":material/info:")
    else:
        draw_report(snap, saved)
