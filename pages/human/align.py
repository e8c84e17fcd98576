"""Human scores' "Align the judge": the form, the raters' ceiling and the plan's calls and cost before anything starts,
the run as a workspace job (progress and Cancel through the one job panel), then the result (``align_result.py``).

The form is the workspace's (``Workspace.align.form``): it survives a visit to another page and a reload.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from pages.human.align_result import draw_result
from skynet_core.align.config import MAX_ROUNDS
from skynet_core.align.text import ceiling_line
from skynet_core.human import rater_label
from skynet_core.i18n import _, format_cost, format_number, with_language
from skynet_core.workspace import AlignForm, Snapshot
from skynet_core.workspace.jobs import Job, JobSlot
from ui import keys as K
from ui import studio
from ui.widgets import experiment
from ui.widgets.text import md

S = st.session_state
EVERY_RATER = ""


def form_from_widgets() -> AlignForm:
    budget = float(S[K.ALIGN_BUDGET] or 0.0)
    rater = S.get(K.ALIGN_RATER) or None
    return AlignForm(int(S[K.ALIGN_ROUNDS]), budget if budget > 0 else None, int(S[K.ALIGN_SEED]), rater)


def keep_form() -> None:
    studio.session().workspace.align.set_form(form_from_widgets())


def start(me: studio.Session, slot: JobSlot) -> None:
    me.workspace.align.start(slot, form_from_widgets(), keys=me.keys, watcher=me.watcher)


def form_fields(raters: list[str]) -> None:
    """Rounds, budget, seed and whose labels count, shown as the workspace keeps them."""
    kept = studio.session().workspace.align.form()
    rater = kept.rater if kept.rater in raters else EVERY_RATER
    S.update({K.ALIGN_ROUNDS: kept.rounds, K.ALIGN_BUDGET: kept.max_cost_usd or 0.0, K.ALIGN_SEED: kept.seed})
    S[K.ALIGN_RATER] = rater
    columns = st.columns([1, 1, 1, 2], vertical_alignment="bottom")
    columns[0].number_input(_("Rounds"), min_value=1, max_value=MAX_ROUNDS, step=1, key=K.ALIGN_ROUNDS,
                            help=_("Rounds of GEPA's loop: a proposal a round, kept when it does better."),
                            on_change=with_language(keep_form))  # fmt: skip
    experiment.budget_field(
        columns[1],
        _("Budget ($)"),
        key=K.ALIGN_BUDGET,
        keep=keep_form,
        help=_(
            "The run stops once it has spent this much, at most one call past it. 0: the budget per run set on "
            "Settings, if any."
        ),
    )
    columns[2].number_input(_("Seed"), min_value=0, step=1, key=K.ALIGN_SEED, on_change=with_language(keep_form),
                            help=_("Fixes the split into train, dev and test, and GEPA's choices."))  # fmt: skip
    columns[3].selectbox(
        _("Labels of"),
        [EVERY_RATER, *raters],
        format_func=lambda name: rater_label(name) if name else _("every rater (mean)"),
        key=K.ALIGN_RATER,
        on_change=with_language(keep_form),
    )


def setup_lines() -> bool:
    """The raters' ceiling, then the plan's calls and cost (or why it cannot start); True when it can start."""
    me = studio.session()
    experiment.load_litellm()
    setup = me.workspace.align.setup(form_from_widgets(), me.keys)
    for pair, found in setup.ceiling:
        st.info(md(ceiling_line(pair, found)), icon=":material/groups:")
    if setup.plan is None:
        return experiment.cannot_start(setup.refusal or "")
    return experiment.plan_lines(setup.plan.describe())


def now(job: Job[Any]) -> str | None:
    """Where the running ``job`` is and what it spent."""
    step = studio.session().workspace.align.progress(job)
    if step is None:
        return None
    return _("Now: {step} · {judge} judge and {reflection} reflection calls · {cost} spent").format(
        step=step.describe(),
        judge=format_number(step.calls.judge),
        reflection=format_number(step.calls.reflection),
        cost=format_cost(step.cost_usd).replace("$", "\\$"),
    )


ALIGN = experiment.Experiment(
    "human.align", "human.align_job", "human.align.run", K.ALIGN_REFUSED, start, now, (K.ALIGN_SAVED,)
)


def align_panel(snap: Snapshot, raters: list[str]) -> None:
    """The whole section, under its own heading (not the Two raters panel's), in an expander drawn while it is open
    (its form is kept in the workspace)."""
    st.subheader(_("Align the judge"))
    panel = experiment.panel(
        _("Align the judge: let GEPA rewrite its instructions toward your scores"),
        key=K.ALIGN_OPEN,
        icon=":material/balance:",
        about=_(
            "GEPA rewrites the instruction strings of metric.py's llm() calls so the judge agrees with the human "
            "scores. The labelled cases are split first into train (proposals are made from them), dev (proposals "
            "are kept by them) and test (scored once before and once after): the gain shown is on cases the "
            "optimizer never saw. Write in the notes why a case fails: the judge cannot learn a policy nobody "
            "wrote down."
        ),
    )
    if panel is None:
        return
    with panel:
        form_fields(raters)
        ready = setup_lines()
        experiment.run_section(ALIGN, _("Align the judge"), ready)
        result = studio.session().workspace.align.latest(snap.in_use, snap.metric)
        if result is not None:
            draw_result(result)
