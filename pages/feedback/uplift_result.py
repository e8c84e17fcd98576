"""A saved uplift experiment on Feedback review: how it ended, the feedback value and its verdict, each arm's
validation scores and gains (``skynet_core.engines.uplift.charts``), and each arm's final instruction as a diff from
the start. Instructions came from a model: they are shown literally, never as markdown."""

from __future__ import annotations

from datetime import datetime

import streamlit as st

from skynet_core.engines.uplift import Arm, UpliftResult
from skynet_core.engines.uplift.charts import gains_figure, instruction_diff, scores_figure
from skynet_core.engines.uplift.saved import SavedUplift
from skynet_core.i18n import _, format_datetime, format_number, ngettext
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui.widgets.stale import stale_banner, stale_changes
from ui.widgets.text import literal, md, number


def header(snap: Snapshot, saved: SavedUplift) -> None:
    result = saved.result
    task, reflection = result.models
    st.markdown(
        _(
            "**Latest experiment** · {when} · task model {task} · reflection model {reflection} · {rounds}, minibatch "
            "{minibatch} · `metric.py` `{version}`"
        ).format(
            when=format_datetime(datetime.fromtimestamp(saved.created_at)),
            task=md(task),
            reflection=md(reflection),
            rounds=ngettext("{count} round", "{count} rounds", result.config.rounds).format(count=result.config.rounds),
            minibatch=result.config.minibatch,
            version=saved.metric.digest[:12],
        )
    )
    stale_banner(
        stale_changes(saved.provenance, snap.provenance), _("These results"), None, key="feedback.uplift.stale"
    )
    (st.success if result.complete else st.warning)(md(result.message()), icon=":material/flag:")


def value_line(result: UpliftResult) -> None:
    """The feedback value with its interval, and what it says."""
    value = result.feedback_value
    st.markdown(
        ngettext(
            "**Feedback value: {value}** · gain with feedback − gain with the score only, over {seeds} seed",
            "**Feedback value: {value}** · gain with feedback − gain with the score only, over {seeds} seeds",
            result.seeds_finished,
        ).format(value=value.describe(), seeds=format_number(result.seeds_finished))
    )
    verdict = result.verdict()
    if value.excludes_zero and (value.value or 0) > 0:
        st.success(verdict, icon=":material/thumb_up:")
    elif value.excludes_zero:
        st.error(verdict, icon=":material/thumb_down:")
    else:
        st.info(verdict, icon=":material/help:")


def arms_table(result: UpliftResult) -> None:
    rows = [
        {
            _("arm"): found.arm.label,
            _("validation score per seed"): " · ".join(format_number(end, 3) for end in found.ends) or "–",
            _("mean"): number(sum(found.ends) / len(found.ends) if found.ends else None),
            _("gain over the start"): found.gain.describe(),
        }
        for found in result.arms.values()
    ]
    st.dataframe(rows, hide_index=True, width="stretch")


def spent_line(result: UpliftResult) -> None:
    known = result.known_cost_usd
    cost = "\\$" + format_number(known, 4) if known is not None else _("unknown")
    text = _("Calls: {calls} · cost {cost}").format(calls=result.calls.describe(), cost=cost)
    if result.unpriced:
        text += " · " + _("no price known for {models}: enter one on the Settings page").format(
            models=md(", ".join(result.unpriced))
        )
    st.caption(text)


def instructions(result: UpliftResult) -> None:
    """Each arm's final instruction of one seed, as a diff from the start and in full."""
    st.markdown("**" + _("Final instructions") + "**")
    arms = [arm.value for arm, found in result.arms.items() if found.ends]
    if not arms:
        return
    left, right = st.columns(2)
    arm = Arm(left.selectbox(_("Arm"), arms, format_func=lambda chosen: Arm(chosen).label, key=K.UPLIFT_ARM))
    seeds = [run.seed for run in result.runs_of(arm)]
    seed = right.selectbox(_("Seed"), seeds, format_func=lambda chosen: format_number(chosen + 1), key=K.UPLIFT_SEED)
    if seed not in seeds:
        return
    run = next(run for run in result.runs_of(arm) if run.seed == seed)
    for step in run.rounds:
        if step.refused:
            st.caption(_("Round {round}: {reason}").format(round=step.index + 1, reason=md(step.refused)))
    diff = instruction_diff(result, arm, seed)
    if diff:
        st.code(diff, language="diff", wrap_lines=True, height=min(420, 60 + 22 * diff.count("\n")))
    else:
        st.caption(_("No proposal was kept: this arm ended where it started."))
    with st.expander(_("The final instruction in full")):
        literal(run.instruction, key="feedback.uplift.full", name="instruction.txt")


def draw_result(snap: Snapshot, saved: SavedUplift) -> None:
    result = saved.result
    header(snap, saved)
    if result.start is not None:
        st.caption(
            ngettext(
                "Start: the given instruction scores {score} on the {count} validation case.",
                "Start: the given instruction scores {score} on the {count} validation cases.",
                len(result.val_ids),
            ).format(score=format_number(result.start, 3), count=format_number(len(result.val_ids)))
        )
    value_line(result)
    # One above the other: side by side at 1000 px their titles and the arms' names were cut.
    st.plotly_chart(scores_figure(result), width="stretch", key="feedback.uplift.scores")
    st.plotly_chart(gains_figure(result), width="stretch", key="feedback.uplift.gains")
    arms_table(result)
    spent_line(result)
    instructions(result)
