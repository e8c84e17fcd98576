"""Who wins on the Reward trade-offs page: the winner and its margins, the summary table, the clickable
weight map, and where the winner changes. ``skynet_core.reward.tradeoffs.who_wins`` computes it; this module draws."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from pages.tradeoffs import controls
from skynet_core.display import markdown_frame
from skynet_core.i18n import _, format_cost, format_number, with_language
from skynet_core.reward import NormalizedSpec
from skynet_core.reward.candidates import ScoredCandidates
from skynet_core.reward.charts import ternary_winner_figure
from skynet_core.reward.tradeoffs import (
    CandidateSummary,
    Stability,
    WinnerChange,
    unmeasured,
    weights_from_point,
    who_wins,
)
from ui import keys as K
from ui.widgets.text import md

GRID_STEP = 0.02
PERTURBATIONS = 200
SPREAD = 0.10
MAP_KEY = K.TRADEOFFS_MAP
METRIC_WIDTH = 205
S = st.session_state


def _map_clicked() -> None:
    """A click on the weight map selects a point whose customdata is its weights: make them the controls'."""
    state = S.get(MAP_KEY)
    for point in state.selection.points if state else []:
        if point.get("customdata"):
            controls.set_weights(weights_from_point(point["customdata"]))
            return


def _summary_table(summary: CandidateSummary, winner: int) -> pd.DataFrame:
    """One row per candidate, as text: a person reads it whole at any width (a canvas grid scrolled sideways
    at 1000 px and kept its figures out of the page's text). Names come from the data file: clipped, escaped."""

    def shown(value: float, digits: int) -> str:
        return "–" if pd.isna(value) else format_number(float(value), digits)

    yes = _("yes")
    frame = pd.DataFrame(
        {
            _("candidate"): summary.names,
            _("mean accuracy"): [shown(value, 3) for value in summary.mean_accuracy],
            _("mean latency (ms)"): [shown(value, 0) for value in summary.mean_latency_ms],
            _("mean cost (USD)"): [format_cost(float(usd)) if pd.notna(usd) else "–" for usd in summary.mean_cost_usd],
            _("mean reward"): [shown(value, 3) for value in summary.mean_reward],
            _("Pareto front"): [yes if on else _("no") for on in summary.pareto],
            _("winner"): [yes if index == winner else "" for index in range(len(summary.names))],
        }
    )
    return markdown_frame(frame)


def who_wins_section(scored: ScoredCandidates, summary: CandidateSummary, norm: NormalizedSpec) -> int:
    verdict = who_wins(scored.candidates, summary, norm, step=GRID_STEP, perturbations=PERTURBATIONS, spread=SPREAD)
    grid, change, winner, stability = verdict.grid, verdict.change, verdict.winner, verdict.stability

    st.subheader(_("Who wins"))
    # Fixed-width metrics in a wrapping row: four a row when wide, two when narrow, none cut short.
    _stats(summary, winner, change, stability)
    st.table(_summary_table(summary, winner), hide_index=True)
    st.caption(
        _(
            "Mean accuracy is the accuracy part (higher is better, also when it comes from an error). Latency and "
            "cost are means over measured cases; a case with no measured latency or cost scores 0 on that part. On "
            "the Pareto front: no other candidate is at least as accurate, as fast and as cheap, and better on one."
        )
    )
    with st.container():
        if grid is None:
            st.info(verdict.grid_problem, icon=":material/info:")
        else:
            missing = sum(unmeasured(candidate.latency_ms) for candidate in scored.candidates)
            st.plotly_chart(
                ternary_winner_figure(grid, norm.weights, missing),
                height=540,
                key=MAP_KEY,
                on_select=with_language(_map_clicked),
                selection_mode="points",
            )
    _where_winner_changes(summary, change, stability, winner)
    return winner


def _stats(summary: CandidateSummary, winner: int, change: WinnerChange | None, stability: Stability) -> None:
    """The winner, its reward, the distance to another winner, the ranking's stability: four numbers in a row."""
    stats = [st.container(horizontal=True)] * 4
    stats[0].metric(
        _("Winner at these weights"),
        md(summary.names[winner]),
        border=True,
        width=METRIC_WIDTH,
        help=_("The candidate with the highest mean reward."),
    )
    stats[1].metric(
        _("Its mean reward"), format_number(summary.mean_reward[winner], 3), border=True, width=METRIC_WIDTH
    )
    if change is None or change.distance is None:
        stats[2].metric(
            _("Distance to new winner"),
            "–" if change is None else _("none"),
            border=True,
            width=METRIC_WIDTH,
            help=None if change is None else _("One candidate wins at every mix of weights."),
        )
    else:
        stats[2].metric(
            _("Distance to new winner"),
            format_number(change.distance, 3),
            border=True,
            width=METRIC_WIDTH,
            help=_(
                "How far the weights are from the nearest mix where another candidate wins: Euclidean distance in "
                "normalised weights (at most 1.414), to about the grid step of {step}."
            ).format(step=GRID_STEP),
        )
    stats[3].metric(
        _("Rank stability (±{spread})").format(spread=f"{SPREAD:.0%}"),
        _("τ {tau}").format(tau=format_number(stability.mean_tau, 2)),
        border=True,
        width=METRIC_WIDTH,
        help=_(
            "Mean Kendall tau between this ranking and the rankings when every weight and reference moves by up "
            "to ±{spread} at random ({count} times); 1 means the order never changes."
        ).format(spread=f"{SPREAD:.0%}", count=PERTURBATIONS),
    )


def _where_winner_changes(
    summary: CandidateSummary, change: WinnerChange | None, stability: Stability, winner: int
) -> None:
    left, right = st.columns(2, gap="medium")
    left.markdown(_("**Where the winner changes**"))
    if change is not None and change.nearest_weights is not None:
        a, s, c = change.nearest_weights
        left.markdown(
            _(
                "The nearest weights where another candidate wins are {distance} away: accuracy {a} · speed {s} · "
                "cost {c}, where **{name}** wins."
            ).format(
                distance=format_number(change.distance or 0.0, 3),
                a=f"{a:.2f}",
                s=f"{s:.2f}",
                c=f"{c:.2f}",
                name=md(change.nearest_winner or ""),
            )
        )
    elif change is not None:
        left.markdown(_("**{name}** wins at every mix of weights, with these references.").format(name=md(change.name)))
    right.markdown(
        _(
            "**How firm the ranking is**  \nWhen every weight and reference moves by up to ±{spread} at random "
            "({count} times), the order of the candidates keeps a mean Kendall tau of {tau} (1: never reordered) "
            "and **{name}** stays the winner in {kept} of them."
        ).format(
            spread=f"{SPREAD:.0%}",
            count=PERTURBATIONS,
            tau=format_number(stability.mean_tau, 2),
            name=md(summary.names[winner]),
            kept=f"{stability.winner_kept:.0%}",
        )
    )
    st.caption(
        _(
            "Each square of the map is a mix of normalised weights (they sum to 1), coloured by the candidate with "
            "the highest mean reward there, in steps of {step}; the star marks the current weights. **Click a "
            "square to use its weights.** The references stay as set."
        ).format(step=GRID_STEP)
    )
