"""Feedback review: one case side by side (input, output, expected, feedback, the rules it broke), its mark,
and the export of the review."""

from __future__ import annotations

from typing import Any

import streamlit as st

from pages.feedback.health import Pairs, action_row
from skynet_core.cases import Case
from skynet_core.feedback import Flag, Grade, Mark, MarkValue, Review, export_rows, rows_csv, rows_jsonl
from skynet_core.i18n import _, with_language
from skynet_core.results import CaseResult
from skynet_core.reward.lines import localized_feedback
from skynet_core.runs import SavedRun
from skynet_core.views import feedback as fv
from skynet_core.views.feedback import fmt, mark_text, suggestions
from ui import keys as K
from ui import studio
from ui.widgets.text import literal, long_text, md


def show_value(value: Any, key: str) -> None:
    """A case's input, output or expected: text literally (as the Author page's case in full shows it), else as JSON."""
    if isinstance(value, str):
        literal(value if value else _("(empty string)"), key=key)
    else:
        st.json(value, expanded=True)


def draw_case(
    run: SavedRun,
    case: Case,
    result: CaseResult,
    flags: list[Flag],
    titles: dict[str, str],
    mark: Mark | None,
    grade: Grade | None,
) -> None:
    st.markdown(
        "#### "
        + _("Case {case} · {split} · score {score}").format(
            case=md(case.id), split=md(case.split), score=fmt(result.score)
        )
    )
    # Input on its own row, output and expected side by side: three columns are too narrow for JSON at 900 px.
    st.markdown("**" + _("Input") + "**")
    show_value(case.input, "feedback.case.input")
    cols = st.columns(2)
    with cols[0]:
        st.markdown("**" + _("Output") + "**")
        show_value(case.output, "feedback.case.output")
    with cols[1]:
        st.markdown("**" + _("Expected") + "**")
        if case.expected is None:
            st.caption(_("None: this case has no expected value."))
        else:
            show_value(case.expected, "feedback.case.expected")
    left, right = st.columns(2, gap="medium")
    with left:
        st.markdown("**" + _("Feedback") + "**")
        long_text(localized_feedback(result.feedback), "feedback.case.feedback", empty=_("(empty)"))
        if result.scores:
            named = " · ".join(f"{md(name)} {fmt(value)}" for name, value in result.scores.items())
            st.markdown(_("**Named scores** · {scores}").format(scores=named))
        if result.extra:
            st.markdown("**" + _("Other side information") + "**")
            st.json(result.extra, expanded=False)
        mark_controls(run, case.id, mark)
    with right:
        if flags:
            st.markdown("**" + _("Rules broken ({count})").format(count=len(flags)) + "**")
            for flag in flags:
                st.markdown(f":red[:material/flag:] **{titles[flag.rule]}**: {md(flag.detail)}")
            st.markdown("**" + _("What the feedback should add") + "**")
            for suggestion in suggestions(flags):
                st.markdown(f"- {md(suggestion)}")
        else:
            st.success(_("This feedback broke no rule."), icon=":material/check_circle:")
        if grade is not None:
            verdict = (
                _("**{grade}/5** · {reason}").format(grade=grade.grade, reason=md(grade.reason))
                if grade.grade is not None
                else _("no grade: {error}").format(error=md(grade.error))
            )
            st.markdown(_(":blue[:material/smart_toy:] Model review (optional): {verdict}").format(verdict=verdict))


def mark_controls(run: SavedRun, case_id: str, mark: Mark | None) -> None:
    note_key = K.feedback_note(run.id, case_id)
    st.session_state.setdefault(note_key, mark.note if mark else "")
    ws = studio.session().workspace

    def set_mark(value: MarkValue) -> None:
        ws.runs.set_mark(run, case_id, value, st.session_state.get(note_key, "").strip())

    def clear() -> None:
        ws.runs.clear_mark(run, case_id)

    state = _("Marked **{mark}**.").format(mark=mark_text(mark)) if mark else _("Not marked yet.")
    st.markdown(_("**Is this feedback useful to the engines?** {state}").format(state=state))
    st.text_input(_("Note (optional)"), key=note_key, placeholder=_("why, in a few words"))
    with st.container(horizontal=True, wrap=True, gap="small"):
        for value, label, icon in (
            (MarkValue.USEFUL, _("Useful"), ":material/thumb_up:"),
            (MarkValue.WEAK, _("Weak"), ":material/thumb_down:"),
        ):
            st.button(
                label,
                on_click=with_language(set_mark),
                args=(value,),
                icon=icon,
                key=f"feedback.mark_{value.value}",
                type="primary" if mark and mark.value is value else "secondary",
            )
        st.button(_("Clear mark"), on_click=with_language(clear), disabled=mark is None, key="feedback.mark_clear")


def exports(run: SavedRun, pairs: Pairs, result: Review, marks: dict[str, Mark], grades: dict[str, Grade]) -> None:
    rows = export_rows(pairs, result, marks, grades or None)
    stem = fv.export_stem(run.id)
    with action_row():
        for label, data, ext, mime in (
            (_("Download CSV"), rows_csv(rows), "csv", "text/csv"),
            (_("Download JSONL"), rows_jsonl(rows), "jsonl", "application/jsonl"),
        ):
            st.download_button(
                label,
                data,
                file_name=f"{stem}.{ext}",
                mime=mime,
                on_click="ignore",
                icon=":material/download:",
                key=f"feedback.{ext}",
            )
        st.caption(fv.export_note(bool(grades)))
