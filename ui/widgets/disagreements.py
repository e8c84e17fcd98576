"""The cases where the metric and the person disagree, as text side by side: input, output, expected, the metric's
feedback and the rater's note. False passes first (what an optimizer exploits), then the largest gap."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import streamlit as st

from skynet_core.cases import Case
from skynet_core.datasets.typed_case import case_json
from skynet_core.human import Agreement, Disagreement
from skynet_core.i18n import _, ngettext, with_language
from skynet_core.results import CaseResult
from skynet_core.reward.lines import localized_feedback
from ui.widgets.text import literal, long_text, md, number

S = st.session_state
PAGE = 10


def value_text(value: Any) -> str:
    """A case's field as text: a string as written, anything else as indented JSON."""
    return value if isinstance(value, str) else case_json(value)


def _field(title: str, value: Any, key: str, empty: str) -> None:
    st.markdown(f"**{title}**")
    if value is None:
        st.caption(empty)
    else:
        literal(value_text(value), key=key, name=f"{key}.txt")


def case_card(
    item: Disagreement, case: Case | None, result: CaseResult | None, note: str, *, key: str, heading: str = ""
) -> None:
    """One disagreement: the numbers on a line, then the case's texts and the note, literally."""
    with st.container(border=True):
        verdict = (
            " · :red[" + _("false pass") + "]"
            if item.false_pass
            else " · :orange[" + _("false fail") + "]"
            if item.false_fail
            else ""
        )
        st.markdown(
            heading
            + _("Case {id} · metric {score} · human {human} · gap {gap}").format(
                id=md(item.id), score=number(item.score), human=number(item.human), gap=number(item.gap)
            )
            + verdict
        )
        if case is None:
            st.caption(_("This case is not in the data in use: its input and output cannot be shown."))
        else:
            _field(_("Input"), case.input, f"{key}.input", _("(none)"))
            left, right = st.columns(2)
            with left:
                _field(_("Output"), case.output, f"{key}.output", _("(none)"))
            with right:
                _field(_("Expected"), case.expected, f"{key}.expected", _("None: this case has no expected value."))
        left, right = st.columns(2)
        with left:
            st.markdown("**" + _("The metric's feedback") + "**")
            long_text(
                localized_feedback(result.feedback) if result is not None else "",
                f"{key}.feedback",
                empty=_("(no feedback)"),
            )
        with right:
            st.markdown("**" + _("The rater's note") + "**")
            if note:
                literal(note, key=f"{key}.note", name=f"{key}.note.txt")
            else:
                st.caption(_("(no note)"))


def opened_case(
    case_id: str,
    agreement: Agreement,
    cases: Mapping[str, Case],
    results: Mapping[str, CaseResult],
    notes: Mapping[str, str],
) -> None:
    """The case a click on the scatter chose, in full."""
    item = next((found for found in agreement.disagreements if found.id == case_id), None)
    if item is None:
        result = results.get(case_id)
        score = float(result.score) if result is not None and result.score is not None else 0.0
        item = Disagreement(case_id, score, score, 0.0)
    st.markdown("#### " + _("The case clicked"))
    case_card(item, cases.get(case_id), results.get(case_id), notes.get(case_id, ""), key="agreement.opened")


def disagreements(
    agreement: Agreement,
    cases: Mapping[str, Case],
    results: Mapping[str, CaseResult],
    notes: Mapping[str, str],
    *,
    key: str,
) -> None:
    """The disagreements, a page at a time, false passes first, then the largest gap."""
    found = agreement.disagreements
    st.markdown("#### " + _("Where the metric and the person disagree"))
    if not found:
        st.success(_("The metric gave every labelled case the person's own score."), icon=":material/task_alt:")
        return
    shown_key = f"{key}.shown"
    shown = min(len(found), int(S.get(shown_key, PAGE)))
    st.caption(
        ngettext(
            "{count} case where the scores differ (false passes: {false_passes}). False passes first: the metric "
            "passes what the person fails, and an optimizer will exploit them.",
            "{count} cases where the scores differ (false passes: {false_passes}). False passes first: the metric "
            "passes what the person fails, and an optimizer will exploit them.",
            len(found),
        ).format(count=len(found), false_passes=len(agreement.false_passes))
    )
    for index, item in enumerate(found[:shown]):
        heading = f"**{index + 1}.** "
        case_card(
            item,
            cases.get(item.id),
            results.get(item.id),
            notes.get(item.id, ""),
            key=f"{key}.d{index}",
            heading=heading,
        )
    if shown < len(found):

        def more() -> None:
            S[shown_key] = shown + PAGE

        st.button(
            _("Show {count} more").format(count=min(PAGE, len(found) - shown)),
            on_click=with_language(more),
            key=f"{key}.more",
            icon=":material/expand_more:",
        )
