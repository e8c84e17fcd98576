"""One case at a time: its input, output and expected shown literally, the keys that score it, a note, and the moves.

Keyboard first, with Streamlit's own button shortcuts: a digit sets the score on the scale, ``p`` / ``f`` pass and
fail, the arrows move through the order, ``n`` goes to the next unlabelled case, Delete removes the score.
Streamlit ignores a plain key pressed in a text box, so typing a note never scores a case.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence

import streamlit as st

from skynet_core.cases import Case
from skynet_core.human import HumanScore, LabelScale, ScaleKind, next_unlabelled, progress, step
from skynet_core.human.label_words import labelled_text
from skynet_core.i18n import _, with_language
from skynet_core.results import CaseResult
from skynet_core.reward.lines import localized_feedback
from skynet_core.workspace import DatasetInUse
from ui import keys as K
from ui import studio
from ui.widgets.disagreements import value_text
from ui.widgets.text import literal, long_text, md, number

S = st.session_state
HIDDEN = "human-hidden-keys"  # a container whose buttons only answer their keys (the pass/fail scale's digits)


def note_key(in_use: DatasetInUse, case_id: str) -> str:
    return K.human_note(in_use.data.source, in_use.candidate, case_id)


def give(case_id: str, value: float, order: Sequence[str], labelled: frozenset[str]) -> None:
    """Score the case (with the note typed), then move on to the next unlabelled case when that is chosen."""
    me = studio.session()
    in_use = me.workspace.data.in_use()
    me.workspace.human.set_score(case_id, value, str(S.get(note_key(in_use, case_id)) or ""), in_use=in_use)
    if S.get(K.HUMAN_ADVANCE, True):
        S[K.HUMAN_CASE] = next_unlabelled(order, labelled | {case_id}, case_id) or step(order, case_id, 1)


def clear(case_id: str) -> None:
    studio.session().workspace.human.clear_score(case_id)


def move(case_id: str | None) -> None:
    if case_id is not None:
        S[K.HUMAN_CASE] = case_id


def save_note(case_id: str, label: HumanScore | None) -> None:
    """A note typed on a scored case is kept at once; on an unscored one, with its score."""
    if label is not None:
        me = studio.session()
        in_use = me.workspace.data.in_use()
        me.workspace.human.set_score(case_id, label.value, str(S.get(note_key(in_use, case_id)) or ""), in_use=in_use)


def current_case(order: Sequence[str], labelled: frozenset[str]) -> str:
    """The case shown: the one chosen, else the first unlabelled one (the first of all when every case is)."""
    chosen = S.get(K.HUMAN_CASE)
    if chosen not in order:
        chosen = next_unlabelled(order, labelled, None) or order[0]
        S[K.HUMAN_CASE] = chosen
    return str(chosen)


def case_fields(case: Case) -> None:
    st.markdown("**" + _("Input") + "**")
    literal(value_text(case.input), key="human.input", name="input.txt")
    left, right = st.columns(2)
    with left:
        st.markdown("**" + _("Output") + "**")
        literal(value_text(case.output), key="human.output", name="output.txt")
    with right:
        st.markdown("**" + _("Expected") + "**")
        if case.expected is None:
            st.caption(_("None: this case has no expected value."))
        else:
            literal(value_text(case.expected), key="human.expected", name="expected.txt")


def metric_view(result: CaseResult | None) -> None:
    """The metric's score and feedback for the case, shown only on request (so they do not anchor the person)."""
    if not st.toggle(_("Show the metric's score and feedback"), key=K.HUMAN_SHOW_METRIC):
        return
    if result is None:
        st.caption(_("The latest scored run has no score for this case: score the cases on the Author page."))
        return
    named = " · ".join(f"{md(name)} {number(value)}" for name, value in result.scores.items())
    st.markdown(
        _("**Metric score** {score} · {status}").format(score=number(result.score), status=result.status.word)
        + (f" · {named}" if named else "")
    )
    long_text(localized_feedback(result.feedback), "human.feedback", empty=_("(no feedback)"))


def score_keys(case_id: str, scale: LabelScale, order: Sequence[str], labelled: frozenset[str]) -> None:
    """One button per level (its digit as the shortcut), then fail (f) and pass (p); on the pass/fail scale the
    digits 0 and 1 answer without a button of their own."""
    args = (order, labelled)
    shown = [(key, value) for key, value in scale.keys if scale.kind is not ScaleKind.PASS_FAIL or key in "fp"]
    with st.container(horizontal=True, key="human-score-keys"):
        for key, value in shown:
            text = {"f": _("fail"), "p": _("pass")}.get(key, scale.label_text(value))
            st.button(
                text,
                on_click=with_language(give),
                args=(case_id, value, *args),
                shortcut=key.upper(),
                key=f"human.key.{key}",
            )
    if scale.kind is ScaleKind.PASS_FAIL:
        st.html(f"<style>.st-key-{HIDDEN} {{ display: none; }}</style>")
        with st.container(key=HIDDEN):
            for key, value in scale.keys:
                if key not in "fp":
                    st.button(
                        key,
                        on_click=with_language(give),
                        args=(case_id, value, *args),
                        shortcut=key,
                        key=f"human.key.{key}",
                    )
    st.caption(scale.keys_help + " · " + _("← → move, `n`: the next unlabelled case, `Delete`: remove the score"))


def moves(case_id: str, label: HumanScore | None, order: Sequence[str], labelled: frozenset[str]) -> None:
    with st.container(horizontal=True):
        buttons = [
            (_("Previous"), move, step(order, case_id, -1), "Left", "human.prev", ":material/arrow_back:"),
            (_("Next"), move, step(order, case_id, 1), "Right", "human.next", ":material/arrow_forward:"),
            (
                _("Next unlabelled"),
                move,
                next_unlabelled(order, labelled, case_id),
                "N",
                "human.next_unlabelled",
                ":material/skip_next:",
            ),  # fmt: skip
            (_("Remove my score"), clear, case_id, "Delete", "human.clear", ":material/backspace:"),
        ]
        for text, action, target, shortcut, key, icon in buttons:
            st.button(
                text,
                on_click=with_language(action),
                args=(target,),
                shortcut=shortcut,
                key=key,
                icon=icon,
                disabled=key == "human.clear" and label is None,
            )


def labelling(
    in_use: DatasetInUse,
    order: Sequence[str],
    scale: LabelScale,
    mine: Mapping[str, HumanScore],
    anyone: Collection[str],
    results: Mapping[str, CaseResult],
) -> None:
    """The labelling view of the case chosen among ``order`` (every case id of the candidate and split in use):
    ``mine`` are the rater's scores, ``anyone`` the cases any rater scored (what the report counts)."""
    shown = set(order)
    labelled = frozenset(case_id for case_id in mine if case_id in shown)
    case_id = current_case(order, labelled)
    case = next(case for case in in_use.cases if case.id == case_id)
    label = mine.get(case_id)
    done = progress(order, labelled)
    st.progress(done.fraction, text=labelled_text(done.labelled, len(shown.intersection(anyone)), done.total))
    with st.container(border=True):
        place = _("{place} of {total} in this order").format(place=order.index(case_id) + 1, total=len(order))
        given = (
            _("your score: **{label}**").format(label=md(scale.label_text(label.value)))
            if label is not None
            else _("not labelled yet")
        )
        st.markdown(_("Case {id} · {split} · {place} · {given}").format(id=md(case_id), split=md(case.split),
                                                                       place=place, given=given))  # fmt: skip
        case_fields(case)
        metric_view(results.get(case_id))
        score_keys(case_id, scale, order, labelled)
        key = note_key(in_use, case_id)
        if key not in S:
            S[key] = label.note if label is not None else ""
        st.text_area(
            _("Note (optional): why this score"),
            key=key,
            on_change=with_language(save_note),
            args=(case_id, label),
            height=80,
            placeholder=_("Typing here never scores the case; leave the box (Tab or a click) to use the keys again."),
        )
        moves(case_id, label, order, labelled)
