"""Reward trade-offs: "A vs B", two weight sets side by side, and the cases that change rank between them."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import pandas as pd
import streamlit as st

from skynet_core.i18n import _, format_number, ngettext, with_language
from skynet_core.reward import NormalizedSpec, weight_vector
from skynet_core.reward.candidates import ScoredCandidates
from skynet_core.reward.tradeoffs import CandidateSummary, case_rank_changes, compare_weights, shares_text
from ui import keys as K
from ui.widgets.text import md

A_KEY = K.TRADEOFFS_WEIGHTS_A
MOVED_ROWS = 1000
S = st.session_state


def _pin_a(weights: Mapping[str, float]) -> None:
    S[A_KEY] = dict(weights)


def _unpin_a() -> None:
    S.pop(A_KEY, None)


def a_vs_b(
    scored: ScoredCandidates, summary: CandidateSummary, norm: NormalizedSpec, source_weights: Mapping[str, float]
) -> None:
    pinned = S.get(A_KEY)
    weights_a = pinned or dict(source_weights)
    weights_b = dict(norm.weights)
    st.subheader(_("A vs B: two weight sets side by side"))
    with st.container(horizontal=True, vertical_alignment="center"):
        st.caption(
            (_("A: the weights you pinned.") if pinned else _("A: the weights in metric.py's `REWARD_SPEC`."))
            + " "
            + _("B: the weights above. Both use the references above.")
        )
        st.button(
            _("Pin the current weights as A"),
            on_click=with_language(_pin_a),
            args=(weights_b,),
            icon=":material/push_pin:",
            key="tradeoffs.pin_a",
        )
        st.button(
            _("A: metric.py's weights"),
            on_click=with_language(_unpin_a),
            icon=":material/undo:",
            disabled=pinned is None,
            key="tradeoffs.unpin_a",
        )
    compared = compare_weights(summary, weights_a, weights_b)
    cols = st.columns(2)
    cols[0].metric(_("Winner under A"), md(summary.names[compared.winner_a]), border=True)
    cols[0].caption(shares_text(weights_a))
    cols[1].metric(_("Winner under B"), md(summary.names[compared.winner_b]), border=True)
    cols[1].caption(shares_text(weights_b))
    if np.allclose(weight_vector(weights_a), weight_vector(weights_b)):
        st.info(
            _("A and B are the same weights: move a weight (a slider, a box or a click on the map) to compare."),
            icon=":material/info:",
        )
        return
    st.dataframe(
        pd.DataFrame(
            {
                _("candidate"): summary.names,
                _("mean reward under A"): compared.reward_a,
                _("rank under A"): compared.rank_a,
                _("mean reward under B"): compared.reward_b,
                _("rank under B"): compared.rank_b,
            }
        ),
        hide_index=True,
        key="tradeoffs.ab_candidates",
        column_config={
            _("mean reward under A"): st.column_config.NumberColumn(format="%.3f"),
            _("mean reward under B"): st.column_config.NumberColumn(format="%.3f"),
        },
    )
    moved_cases(scored, norm, compared.winner_b, weights_a, weights_b)


def moved_cases(
    scored: ScoredCandidates,
    norm: NormalizedSpec,
    winner_b: int,
    weights_a: Mapping[str, float],
    weights_b: Mapping[str, float],
) -> None:
    """The cases of one candidate that change rank between A and B, largest moves first."""
    names = [candidate.name for candidate in scored.candidates]
    shown = st.selectbox(_("Cases of"), names, index=winner_b, key=f"tradeoffs.ab_shown.{'/'.join(names)}")
    moved = case_rank_changes(scored.candidates[names.index(shown)], norm, weights_a, weights_b)
    st.markdown(
        ngettext(
            "**{moved} of {total} case** of {name} changes rank between A and B (rank 1: the best reward).",
            "**{moved} of {total} cases** of {name} change rank between A and B (rank 1: the best reward).",
            moved.total,
        ).format(moved=len(moved.ids), total=moved.total, name=md(shown))
    )
    if moved.ids:
        rows = slice(0, MOVED_ROWS)
        st.dataframe(
            pd.DataFrame(
                {
                    _("case"): moved.ids[rows],
                    _("rank under A"): moved.rank_a[rows],
                    _("rank under B"): moved.rank_b[rows],
                    _("change"): [f"+{n} ↑" if n > 0 else f"−{-n} ↓" for n in moved.change[rows]],
                }
            ),
            hide_index=True,
            key="tradeoffs.ab_cases",
            height=320,
        )
        if len(moved.ids) > MOVED_ROWS:
            st.caption(_("The {shown} largest moves are listed.").format(shown=format_number(MOVED_ROWS)))
