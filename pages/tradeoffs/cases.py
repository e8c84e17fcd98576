"""Reward trade-offs, case by case: each case's reward curves and its reward split into its parts."""

from __future__ import annotations

import streamlit as st

from skynet_core.i18n import _
from skynet_core.reward import NormalizedSpec, reward_parts
from skynet_core.reward.candidates import ScoredCandidates
from skynet_core.reward.charts import curve_figure, stacked_reward_figure
from skynet_core.reward.tradeoffs import unmeasured

CURVE_WIDTH = 420


def case_by_case(scored: ScoredCandidates, norm: NormalizedSpec, winner: int) -> None:
    st.subheader(_("Case by case"))
    names = [candidate.name for candidate in scored.candidates]
    shown = st.selectbox(_("Candidate"), names, index=winner, key=f"tradeoffs.shown.{'/'.join(names)}")
    candidate = scored.candidates[names.index(shown)]
    curves = [("speed", norm.speed_ref, candidate.latency_ms), ("cost", norm.cost_ref, candidate.cost_usd)]
    if norm.accuracy_ref is not None:
        curves.append(("error", norm.accuracy_ref, candidate.accuracy))
    # Fixed-width charts in a wrapping row: two or three a row when wide, one when narrow, no title cut short.
    with st.container(horizontal=True, gap="medium"):
        for kind, ref, xs in curves:
            if ref is not None:
                figure = curve_figure(kind, ref, xs, candidate.ids)
                st.plotly_chart(figure, width=CURVE_WIDTH, height=380, key=f"tradeoffs.curve.{kind}")
    parts = reward_parts(candidate.accuracy, candidate.latency_ms, candidate.cost_usd, norm)[1]
    missing = {"speed": unmeasured(candidate.latency_ms), "cost": unmeasured(candidate.cost_usd)}
    st.plotly_chart(
        stacked_reward_figure(candidate.ids, parts, norm.weights, missing), height="content", key="tradeoffs.stacked"
    )
    st.caption(
        _(
            "Rewards here are recomputed from each case's stored accuracy and its observation, without running "
            "metric.py again. This is exact as long as the accuracy metric.py passes to reward() does not depend "
            "on `REWARD_SPEC`'s weights or references."
        )
    )
