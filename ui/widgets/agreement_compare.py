"""Two sets of scores of one candidate (two versions on History, two runs on Runs) against the same human scores:
each figure for A and B, and the labelled cases whose score moved toward the person's score or away from it."""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial

import streamlit as st

from skynet_core.human import comparison_table, moves_table
from skynet_core.i18n import _, format_number
from skynet_core.results import CaseResult
from ui.studio import session

MOVES_SHOWN = 200


def agreement_change(
    results_a: Sequence[CaseResult], results_b: Sequence[CaseResult], source: str, candidate: str, *, key: str
) -> None:
    """Whether B agrees with the people better than A: nothing but a hint while the cases have no human score."""
    found = session().workspace.human.compare_agreement(results_a, results_b, source, candidate)
    st.markdown("#### " + _("Agreement with human scores, A against B"))
    if found is None:
        st.caption(
            _("Score some of these cases on the Human scores page: whether B agrees with you better shows here.")
        )
        return
    row = st.container(horizontal=True, gap="large")
    metric = partial(row.metric, width="content")
    metric(_("Labelled cases, A"), format_number(found.a.n))
    metric(_("Labelled cases, B"), format_number(found.b.n))
    metric(_("Moved toward the person's score"), format_number(len(found.toward)))
    metric(_("Moved away"), format_number(len(found.away)))
    number = st.column_config.NumberColumn
    st.dataframe(
        comparison_table(found),
        hide_index=True,
        width="stretch",
        key=f"{key}.figures",
        column_config={
            "figure": st.column_config.TextColumn(_("figure")),
            "a": number("A", format="%.3f"),
            "b": number("B", format="%.3f"),
            "change": number(_("change (B − A)"), format="%+.3f"),
        },
    )
    if found.moves:
        st.caption(_("The labelled cases whose gap to the person's score changed, the largest change first."))
        st.dataframe(
            moves_table(found, limit=MOVES_SHOWN),
            hide_index=True,
            width="stretch",
            key=f"{key}.moves",
            column_config={
                "id": st.column_config.TextColumn(_("case"), pinned=True),
                "human": number(_("human score"), format="%.3f"),
                "score_a": number(_("score A"), format="%.3f"),
                "score_b": number(_("score B"), format="%.3f"),
                "change": number(_("change of gap (B − A)"), format="%+.3f"),
                "movement": st.column_config.TextColumn(_("movement")),
            },
        )
