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
from skynet_core.llm import litellm_ready, warm_up
from skynet_core.workspace import Snapshot, UpliftForm
from skynet_core.workspace.jobs import Job
from skynet_core.workspace.uplift import missing_models, missing_models_message
from ui import keys as K
from ui import studio
from ui.widgets.jobs import job_panel, outcome_panel, progress_row
from ui.widgets.lazy import lazy_expander
from ui.widgets.text import md

S = st.session_state
SLOT = "feedback.uplift"
JOB_KEY = "feedback.uplift_job"
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


def start() -> None:
    me = studio.session()
    S.pop(K.UPLIFT_REFUSED, None)
    try:
        config = form_from_widgets().config(S[K.UPLIFT_INSTRUCTION])
        me.workspace.uplift.start(me.slot(SLOT), config, keys=me.keys, watcher=me.watcher)
    except ValueError as exc:
        S[K.UPLIFT_REFUSED] = str(exc)


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
    sizes[3].number_input(
        _("Budget ($, 0: none)"),
        min_value=0.0,
        step=0.05,
        format="%.2f",
        key=K.UPLIFT_BUDGET,
        help=_("The run stops once it has spent this much, keeping the seeds that finished."),
        on_change=with_language(keep_form),
    )


def plan_lines(snap: Snapshot) -> bool:
    """The planned calls and cost (or why the experiment cannot run as asked); True when it can start."""
    me = studio.session()
    if not litellm_ready():
        with st.spinner(_("Loading litellm (once per server start; it takes a few seconds)…")):
            warm_up(wait=True)
    try:
        setup = me.workspace.uplift.plan(form_from_widgets().config(S[K.UPLIFT_INSTRUCTION]), me.keys)
    except ValueError as exc:
        st.warning(md(str(exc)), icon=":material/warning:")
        return False
    lines = setup.plan.describe()
    st.markdown(":material/calculate: " + md(lines[0]))
    st.caption("  \n".join(md(line[:1].upper() + line[1:]) for line in [setup.describe_cases(), *lines[1:]]))
    return True


def running(job: Job[Any]) -> None:
    """The job's progress bar and Cancel, then where it is and what it spent."""
    me = studio.session()
    progress_row(me.slot(SLOT), job, JOB_KEY)
    step = me.workspace.uplift.progress(job)
    if step is not None:
        st.caption(
            _("Now: {step} · {calls} · {cost} spent").format(
                step=step.describe(), calls=step.calls.describe(), cost="\\$" + format_number(step.cost_usd, 4)
            )
        )


def job_section() -> None:
    slot = studio.session().slot(SLOT)
    outcome = job_panel(slot, JOB_KEY, running)
    job = slot.job
    if outcome is None or job is None or not outcome.finished or outcome_panel(outcome, JOB_KEY):
        return
    result = job.result
    if result is not None and not result.seeds_finished:
        st.error(md(result.message()), icon=":material/error:")  # nothing was saved: say why here


def uplift_panel(snap: Snapshot) -> None:
    """The whole panel, in an expander of its own, drawn while it is open (its form is kept in the workspace)."""
    panel = lazy_expander(
        _("Does this feedback help? Measure what an optimizer gains from it"),
        key=K.UPLIFT_OPEN,
        icon=":material/science:",
    )
    if panel is None:
        return
    with panel:
        st.caption(
            _(
                "Runs GEPA's reflection loop from the same instruction in three arms that differ only in what the "
                "reflection model reads: the metric's feedback, the score alone, or another case's feedback. The "
                "feedback's value is the validation gain with it minus the gain with the score alone."
            )
        )
        ready = models_line(snap)
        form_fields(snap)
        ready = plan_lines(snap) and ready if ready else False
        slot = studio.session().slot(SLOT)
        st.button(
            _("Run the experiment"),
            on_click=with_language(start),
            disabled=not ready or (slot.job is not None and slot.job.running),
            type="primary",
            icon=":material/play_arrow:",
            key="feedback.uplift.run",
        )
        if S.get(K.UPLIFT_REFUSED):
            st.warning(md(S[K.UPLIFT_REFUSED]), icon=":material/warning:")
        job_section()
        saved = studio.session().workspace.uplift.latest(snap.in_use)
        if saved is None:
            st.caption(_("No experiment has run on this dataset yet."))
        else:
            draw_result(snap, saved)
