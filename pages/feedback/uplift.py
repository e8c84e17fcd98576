"""Feedback review's "Does this feedback help?": the uplift experiment's form, its plan, the run as a workspace job
(progress and Cancel through the one job panel) and the newest result of the dataset in use.

The instruction and the experiment's size are the workspace's (``Workspace.uplift.instruction``,
``Workspace.uplift.form``): they survive a visit to another page. The result is drawn by ``uplift_result.py``.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from pages.feedback.uplift_result import draw_result
from skynet_core.engines.uplift.config import MAX_MINIBATCH, MAX_ROUNDS, MAX_SEEDS
from skynet_core.i18n import _, format_number, with_language
from skynet_core.workspace import Snapshot, UpliftForm
from skynet_core.workspace.jobs import Job, JobSlot
from skynet_core.workspace.uplift import missing_models, missing_models_message
from ui import keys as K
from ui import studio
from ui.widgets import experiment
from ui.widgets.text import md

S = st.session_state
FIELDS = (K.UPLIFT_ROUNDS, K.UPLIFT_SEEDS, K.UPLIFT_MINIBATCH, K.UPLIFT_BUDGET)


def form_from_widgets() -> UpliftForm:
    budget = float(S[K.UPLIFT_BUDGET] or 0.0)
    return UpliftForm(
        int(S[K.UPLIFT_ROUNDS]), int(S[K.UPLIFT_SEEDS]), int(S[K.UPLIFT_MINIBATCH]), budget if budget > 0 else None
    )


def keep_form() -> None:
    studio.session().workspace.uplift.set_form(form_from_widgets())


def keep_instruction(dataset: str) -> None:
    studio.session().workspace.drafts.set_instruction(dataset, S[K.UPLIFT_INSTRUCTION])


def start(me: studio.Session, slot: JobSlot) -> None:
    config = form_from_widgets().config(S[K.UPLIFT_INSTRUCTION])
    me.workspace.uplift.start(slot, config, keys=me.keys, watcher=me.watcher)


def settings_link() -> None:
    from pages import settings

    st.page_link(
        st.Page(settings.page, title=_("Settings"), url_path="settings"),
        label=_("Open Settings"),
        icon=":material/settings:",
    )


def models_line(snap: Snapshot) -> bool:
    """Which models run the experiment, or which are missing (with a link to Settings); True when both are set."""
    missing = missing_models(snap.settings)
    if missing:
        st.warning(missing_models_message(missing), icon=":material/warning:")
        settings_link()
        return False
    task, reflection = snap.settings.task, snap.settings.reflection
    assert task is not None and reflection is not None
    st.caption(
        _("Task model: **{task}** · reflection model: **{reflection}**").format(
            task=md(task.model), reflection=md(reflection.model)
        )
    )
    return True


def form_fields(snap: Snapshot) -> None:
    """The instruction and the experiment's size, shown as the workspace keeps them."""
    ws = studio.session().workspace
    S[K.UPLIFT_INSTRUCTION] = ws.uplift.instruction(snap.in_use)
    kept = ws.uplift.form()
    values = (kept.rounds, kept.seeds, kept.minibatch, kept.max_cost_usd or 0.0)
    S.update(dict(zip(FIELDS, values, strict=True)))
    st.text_area(
        _("The instruction every arm starts from (the task model's system message)"),
        key=K.UPLIFT_INSTRUCTION,
        height=120,
        placeholder=_("Paste the instruction your candidates were given."),
        on_change=with_language(keep_instruction),
        args=(snap.in_use.data.source,),
    )
    sizes = st.columns(4)
    for column, key, label, top, help_text in (
        (sizes[0], K.UPLIFT_ROUNDS, _("Rounds"), MAX_ROUNDS, _("Reflection rounds per arm and seed.")),
        (sizes[1], K.UPLIFT_SEEDS, _("Seeds"), MAX_SEEDS, _("Independent repeats: two or more give an interval.")),
        (sizes[2], K.UPLIFT_MINIBATCH, _("Minibatch"), MAX_MINIBATCH, _("Training cases per round (GEPA's is 3).")),
    ):
        column.number_input(
            label, min_value=1, max_value=top, step=1, key=key, help=help_text, on_change=with_language(keep_form)
        )
    experiment.budget_field(
        sizes[3],
        _("Budget ($, 0: none)"),
        key=K.UPLIFT_BUDGET,
        keep=keep_form,
        help=_("The run stops once it has spent this much, keeping the seeds that finished."),
    )


def plan(snap: Snapshot) -> bool:
    """The planned calls and cost (or why the experiment cannot run as asked); True when it can start."""
    me = studio.session()
    experiment.load_litellm()
    try:
        setup = me.workspace.uplift.plan(form_from_widgets().config(S[K.UPLIFT_INSTRUCTION]), me.keys)
    except ValueError as exc:
        return experiment.cannot_start(str(exc))
    first, *rest = setup.plan.describe()
    return experiment.plan_lines([first, *(line[:1].upper() + line[1:] for line in [setup.describe_cases(), *rest])])


def now(job: Job[Any]) -> str | None:
    """Where the running ``job`` is and what it spent."""
    step = studio.session().workspace.uplift.progress(job)
    if step is None:
        return None
    return _("Now: {step} · {calls} · {cost} spent").format(
        step=step.describe(), calls=step.calls.describe(), cost="\\$" + format_number(step.cost_usd, 4)
    )


UPLIFT = experiment.Experiment(
    "feedback.uplift", "feedback.uplift_job", "feedback.uplift.run", K.UPLIFT_REFUSED, start, now
)


def uplift_panel(snap: Snapshot) -> None:
    """The whole panel, in an expander of its own, drawn while it is open (its form is kept in the workspace)."""
    panel = experiment.panel(
        _("Does this feedback help? Measure what an optimizer gains from it"),
        key=K.UPLIFT_OPEN,
        icon=":material/science:",
        about=_(
            "Runs GEPA's reflection loop from the same instruction in three arms that differ only in what the "
            "reflection model reads: the metric's feedback, the score alone, or another case's feedback. The "
            "feedback's value is the validation gain with it minus the gain with the score alone."
        ),
    )
    if panel is None:
        return
    with panel:
        ready = models_line(snap)
        form_fields(snap)
        ready = plan(snap) and ready if ready else False
        job = experiment.run_section(UPLIFT, _("Run the experiment"), ready)
        result = job.result if job is not None else None
        if result is not None and not result.seeds_finished:
            st.error(md(result.message()), icon=":material/error:")  # nothing was saved: say why here
        saved = studio.session().workspace.uplift.latest(snap.in_use)
        if saved is None:
            st.caption(_("No experiment has run on this dataset yet."))
        else:
            draw_result(snap, saved)
