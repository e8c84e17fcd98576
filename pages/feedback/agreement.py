"""Feedback review's human side: the run's agreement with the human scores, and each feedback rule's precision and
recall against the useful / weak marks given on this page (a weak mark says a rule should flag the feedback)."""

from __future__ import annotations

import streamlit as st

from pages.feedback.health import Pairs
from skynet_core.feedback import Review
from skynet_core.human import rules_against_marks, rules_table
from skynet_core.i18n import _
from skynet_core.runs import SavedRun
from ui import studio
from ui.widgets.agreement import agreement_report

PERCENT = "%.2f"


def rules_panel(run: SavedRun, result: Review) -> None:
    """Which rules to trust on this data: each rule's precision and recall against the marks, with intervals."""
    st.markdown("#### " + _("The rules against your marks"))
    marks = studio.session().workspace.runs.marks_for(run)
    marked = [case_id for case_id in result.case_ids if case_id in marks]
    if not marked:
        st.caption(
            _(
                "Mark some cases' feedback useful or weak (a weak mark says a rule should flag it): each rule's "
                "precision and recall against your marks show here."
            )
        )
        return
    number, text = st.column_config.NumberColumn, st.column_config.TextColumn
    st.dataframe(
        rules_table(rules_against_marks(result, marks)),
        hide_index=True,
        width="stretch",
        column_config={
            "rule": text(_("rule"), width="medium"),
            "flagged_weak": number(_("flagged, marked weak")),
            "flagged_useful": number(_("flagged, marked useful")),
            "missed_weak": number(_("not flagged, marked weak")),
            "precision": number(_("precision"), format=PERCENT),
            "precision_low": number(_("95% low"), format=PERCENT),
            "precision_high": number(_("95% high"), format=PERCENT),
            "recall": number(_("recall"), format=PERCENT),
            "recall_low": number(_("95% low"), format=PERCENT),
            "recall_high": number(_("95% high"), format=PERCENT),
        },
    )
    st.caption(
        _(
            "Over the {count} marked cases. Precision: of the feedback a rule flags, the share you marked weak. "
            "Recall: of the feedback you marked weak, the share the rule flags."
        ).format(count=len(marked))
    )


def draw_agreement(run: SavedRun, pairs: Pairs, result: Review) -> None:
    """The agreement report of the run reviewed, then the rules against the marks."""
    with st.container(border=True, key="feedback-agreement"):
        cases = [case for case, _result in pairs]
        agreement_report(run.results, cases, run.key.dataset, run.key.candidate, key="feedback.agreement")
        rules_panel(run, result)
