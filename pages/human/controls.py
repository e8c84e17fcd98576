"""The Human scores page's choices: who is labelling, on which scale, and which case comes next."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import streamlit as st

from skynet_core.human import LabelOrder, LabelScale, ScaleKind, labelling_order
from skynet_core.human.bootstrap import SEED
from skynet_core.i18n import N_, _, with_language
from ui import keys as K
from ui import studio
from ui.widgets.messages import say, show
from ui.widgets.text import md

S = st.session_state
STEPS = (0.25, 0.2, 0.5, 1.0)
SCALE_NAMES = {
    ScaleKind.UNIT: N_("0 to 1 in steps"),
    ScaleKind.FIVE: N_("1 to 5"),
    ScaleKind.PASS_FAIL: N_("pass or fail"),
}


def save_rater() -> None:
    """Keep the name typed (an empty one goes back to the OS user); a bad one is said and not kept."""
    ws = studio.session().workspace
    try:
        S[K.HUMAN_RATER] = ws.human.set_rater(str(S.get(K.HUMAN_RATER, "")))
        S.pop(K.HUMAN_RATER_FLASH, None)  # a name refused before is no longer the news
    except ValueError as exc:
        say(K.HUMAN_RATER_FLASH, None, md(str(exc)), "error")
        S[K.HUMAN_RATER] = ws.human.rater()


def rater_field() -> str:
    """The rater's name (the same setting as on the Settings page); returns the name in force."""
    ws = studio.session().workspace
    if K.HUMAN_RATER not in S:
        S[K.HUMAN_RATER] = ws.human.rater()
    st.text_input(
        _("Your name as a rater"),
        key=K.HUMAN_RATER,
        on_change=with_language(save_rater),
        max_chars=100,
        help=_("The scores you give here are kept under this name; another person's under theirs."),
        width=240,
    )
    return ws.human.rater()


def scale_choice() -> LabelScale:
    """The scale the person labels on (the value kept is always on the metric's scale, 0 to 1)."""
    kind = st.selectbox(
        _("Scale"), list(ScaleKind), format_func=lambda kind: _(SCALE_NAMES[kind]), key=K.HUMAN_SCALE, width=180
    )
    step = STEPS[0]
    if kind is ScaleKind.UNIT:
        step = st.selectbox(_("Step"), STEPS, format_func=lambda value: f"{value:g}", key=K.HUMAN_STEP, width=100)
    return LabelScale(kind or ScaleKind.UNIT, step or STEPS[0])


def order_choice(
    case_ids: Sequence[str], scores: Mapping[str, float], threshold: float
) -> tuple[list[str], LabelOrder]:
    """Every case id once, in the order chosen (the unlabelled ones come first when moving on), and the order."""
    order = st.selectbox(
        _("Then"), list(LabelOrder), format_func=lambda item: item.label, key=K.HUMAN_ORDER, width=260,
        help=_("Unlabelled cases come first; among them, this order."),
    ) or LabelOrder.LISTED  # fmt: skip
    seed = SEED
    if order is LabelOrder.RANDOM:
        seed = int(st.number_input(_("Seed"), min_value=0, step=1, value=SEED, key=K.HUMAN_SEED, width=120))
    return labelling_order(case_ids, (), order, seed=seed, scores=scores, threshold=threshold), order


def choices(case_ids: Sequence[str], scores: Mapping[str, float], threshold: float) -> tuple[LabelScale, list[str]]:
    """The row of choices; returns the scale and the order of the case ids."""
    with st.container(horizontal=True, vertical_alignment="bottom"):
        rater_field()
        scale = scale_choice()
        order, kind = order_choice(case_ids, scores, threshold)
        st.toggle(_("Move on after scoring"), value=True, key=K.HUMAN_ADVANCE)
    show(K.HUMAN_RATER_FLASH, None)  # a refused name, under its field
    if kind is LabelOrder.LEAST_SURE and not scores:
        st.caption(_("Where the metric is least sure needs its scores: score the cases first (as listed until then)."))
    return scale, order
