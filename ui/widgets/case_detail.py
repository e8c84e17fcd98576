"""One case of a scoring run in full: input, output, expected, side information, error, prints, and the trace of
its ``llm()`` calls. Text from metric code or data is shown literally (``ui.widgets.text``)."""

from __future__ import annotations

import streamlit as st

from skynet_core.cases import Case
from skynet_core.i18n import _
from skynet_core.results import CaseResult
from skynet_core.results.overflow import full_side_information
from skynet_core.views.author import side_information
from ui.widgets.text import literal, long_text
from ui.widgets.trace import show_calls


def case_details(case_id: str, results: list[CaseResult], cases: list[Case]) -> None:
    """One case in full: input, output, expected, side information, error and what metric.py printed."""
    result = next(r for r in results if r.id == case_id)
    case = next((c for c in cases if c.id == case_id), None)
    st.markdown("#### " + _("The selected case"))
    st.text(_("Case {id} · {split} · {status}").format(id=case_id, split=result.split, status=result.status.word))
    cols = st.columns(3)
    with cols[0]:
        st.markdown("**" + _("Input") + "**")
        st.json(case.input if case else {}, expanded=True)
    with cols[1]:
        st.markdown("**" + _("Output") + "**")
        if case is not None and isinstance(case.output, str):
            literal(case.output, key=f"cases.output.{case_id}")
        else:
            st.json(case.output if case else None)
    with cols[2]:
        st.markdown("**" + _("Expected") + "**")
        if case is not None and case.expected is None:
            st.caption(_("None: this case has no expected value."))
        else:
            st.json(case.expected if case else None)
    left, right = st.columns(2)
    with left:
        st.markdown("**" + _("Side information") + "**")
        side = side_information(result)
        if side is None:
            st.caption(_("None: the metric returned no side information for this case (it did not score)."))
        else:
            st.json(side, expanded=True)
        whole = full_side_information(result) if side is not None else None
        if whole is not None:
            st.download_button(
                _("Download the full side information"),
                whole,
                file_name=f"side-information-{case_id}.json",
                mime="application/json",
                on_click="ignore",
                icon=":material/download:",
                key=f"cases.side.{case_id}",
            )
        if result.error:
            st.markdown("**" + _("Error") + "**")
            long_text(result.error, key=f"cases.error.{case_id}")
    with right:
        st.markdown("**" + _("Printed by metric.py") + "**")
        if result.stdout:
            long_text(result.stdout, key=f"cases.stdout.{case_id}")
        else:
            st.caption(_("Nothing was printed."))
    show_calls(result, key="cases.trace")
