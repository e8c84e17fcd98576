"""Plotly figures for the Reward trade-offs page, as plain functions that tests can call.

Each function takes computed values (from :mod:`skynet_core.reward` and
:mod:`skynet_core.tradeoffs`) and only draws: no maths is decided here. Every figure has a
title, labelled axes with units, and the white template, so it reads the same on screen and in
a screenshot. Parts keep one colour everywhere (accuracy blue, speed orange, cost green), and
candidate ``i`` keeps :func:`candidate_color` ``(i)`` in every figure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from numpy.typing import ArrayLike
from plotly.colors import qualitative
from plotly.subplots import make_subplots

from skynet_core.display import plotly_text
from skynet_core.i18n import _, format_number, ngettext
from skynet_core.reward import PARTS, validate_reward_spec, weight_vector
from skynet_core.tradeoffs import CandidateSummary, WinnerMap, iso_reward_line

PART_COLORS = {"accuracy": "#4C78A8", "speed": "#F58518", "cost": "#54A24B"}
_TEMPLATE = "plotly_white"
_CURVES = {
    "speed": ("Speed", "Latency (ms)", " ms"),
    "cost": ("Cost", "Cost (USD)", " USD"),
    "error": ("Error", "Error (the value metric.py passes as accuracy)", ""),
}
# Above this many cases, per-case bars become a stacked area: tens of thousands of bars are unreadable and slow.
_MAX_BARS = 500


def candidate_color(index: int) -> str:
    """The colour of candidate ``index`` in every figure (a colour-blind-safe palette)."""
    return qualitative.Safe[index % len(qualitative.Safe)]


def weights_figure(normalized_weights: Mapping[str, float]) -> go.Figure:
    """One bar per part: its share of the reward (the weights scaled to sum to 1)."""
    weights = weight_vector(normalized_weights)
    figure = go.Figure(
        go.Bar(
            x=list(PARTS),
            y=weights,
            marker_color=[PART_COLORS[part] for part in PARTS],
            text=[f"{value:.0%}" for value in weights],
            textposition="outside",
            hovertemplate="%{x}: %{y:.3f}<extra></extra>",
        )
    )
    return _layout(
        figure, "Normalised weights (they sum to 1)", "Part of the reward", "Share of the reward", yrange=(0, 1.12)
    )


def curve_figure(kind: str, ref: float, xs: ArrayLike, ids: Sequence[str] | None = None) -> go.Figure:
    """The curve ``ref / (ref + x)`` for ``kind`` (``speed``, ``cost`` or ``error``) and every case on it.

    ``xs`` are the cases' latencies (ms), costs (USD) or errors; NaN means not measured, and the
    count of those is given in the title. Negative values sit at 0, where the score is 1.
    """
    if kind not in _CURVES:
        raise ValueError(f"kind must be one of {', '.join(_CURVES)}; got {kind!r}.")
    label, axis, unit = _CURVES[kind]
    values = np.asarray(xs, dtype=float)
    shown = np.isfinite(values)
    points = np.maximum(values[shown], 0.0)
    top = max(3 * ref, float(points.max()) * 1.05 if points.size else 0.0)
    grid = np.linspace(0.0, top, 200)
    labels = [plotly_text(str(i)) for i in ids] if ids is not None else [str(i) for i in range(len(values))]
    hover_ids = np.asarray(labels, dtype=object)[shown]
    figure = go.Figure(
        [
            go.Scatter(
                x=grid,
                y=ref / (ref + grid),
                mode="lines",
                name=f"score = {_num(ref)} / ({_num(ref)} + x)",
                line={"color": "#555555"},
                hoverinfo="skip",
            ),
            go.Scatter(
                x=points,
                y=ref / (ref + points),
                mode="markers",
                name="cases",
                marker={"color": PART_COLORS["accuracy" if kind == "error" else kind], "size": 7, "opacity": 0.6},
                customdata=hover_ids,
                hovertemplate=f"case %{{customdata}}<br>%{{x:.4g}}{unit}<br>score %{{y:.3f}}<extra></extra>",
            ),
        ]
    )
    figure.add_vline(
        x=ref, line_dash="dash", line_color="#888888", annotation_text=f"reference {_num(ref)}{unit} scores 0.5"
    )
    missing = int(np.isnan(values).sum())
    title = f"{label}: the part's score falls as the {axis.split(' (')[0].lower()} grows"
    if missing:
        # On a line of its own: beside the title it is cut off when the figure is half a page wide.
        title += f"<br><sup>({missing} case{'s' if missing != 1 else ''} not measured, scored 0)</sup>"
    return _layout(figure, title, axis, "Part score (0 to 1)", yrange=(0, 1.05))


def stacked_reward_figure(ids: Sequence[str], parts: ArrayLike, weights: Mapping[str, float]) -> go.Figure:
    """Each case's reward as the sum of its weighted accuracy, speed and cost parts, best case first.

    ``parts`` is ``(n, 3)`` as from :func:`skynet_core.reward.reward_parts` (NaN, a part that is
    off, adds nothing). Up to 500 cases are bars; more are drawn as a stacked area over the cases'
    rank, which keeps the shape readable.
    """
    contributions = np.nan_to_num(np.asarray(parts, dtype=float), nan=0.0) * weight_vector(weights)
    order = np.argsort(-contributions.sum(axis=1), kind="stable")
    contributions = contributions[order]
    case_ids = [plotly_text(str(ids[i])) for i in order]  # plotly reads a little HTML in labels: show ids as text
    bars = len(case_ids) <= _MAX_BARS
    traces: list[Any] = []
    for column, part in enumerate(PARTS):
        y = contributions[:, column]
        hover = f"case %{{customdata}}<br>{part}: %{{y:.3f}}<extra></extra>"
        color = PART_COLORS[part]
        if bars:
            traces.append(
                go.Bar(x=case_ids, y=y, name=part, marker_color=color, customdata=case_ids, hovertemplate=hover)
            )
        else:
            traces.append(
                go.Scatter(
                    x=np.arange(1, len(case_ids) + 1),
                    y=y,
                    name=part,
                    mode="lines",
                    stackgroup="reward",
                    line={"width": 0, "color": color},
                    fillcolor=color,
                    customdata=case_ids,
                    hovertemplate=hover,
                )
            )
    figure = go.Figure(traces)
    # Plotly lists stacked bars top-down by default; keep the legend in PARTS order like every other figure.
    figure.update_layout(barmode="stack", bargap=0.1 if len(case_ids) <= 60 else 0, legend_traceorder="normal")
    if bars:
        figure.update_xaxes(type="category", showticklabels=len(case_ids) <= 40)
    x_title = "Case (best reward first)" if bars else "Case rank (best reward first)"
    return _layout(
        figure, "Each case's reward, split into its accuracy, speed and cost parts", x_title, "Reward (0 to 1)"
    )


def candidates_figure(summary: CandidateSummary, spec: Any) -> go.Figure:
    """Mean accuracy against mean latency (left) and mean cost (right), one point per candidate.

    Candidates on the Pareto front are filled diamonds, the others open circles. Dotted lines
    through each candidate are lines of equal reward under the current weights, counting the
    accuracy part and that panel's part (see :func:`skynet_core.tradeoffs.iso_reward_line`): a
    candidate above another's line beats it on those two parts. Always six traces (front, others
    and lines, per panel).
    """
    norm = validate_reward_spec(spec)
    w = summary.weights
    figure = make_subplots(
        rows=1,
        cols=2,
        shared_yaxes=True,
        horizontal_spacing=0.08,
        subplot_titles=("Accuracy against latency", "Accuracy against cost"),
    )
    panels = (("speed", summary.mean_latency_ms, " ms"), ("cost", summary.mean_cost_usd, " USD"))
    for col, (part, means, unit) in enumerate(panels, start=1):
        column = PARTS.index(part)
        for on_front in (True, False):
            chosen = np.flatnonzero(summary.pareto == on_front)
            figure.add_trace(
                go.Scatter(
                    x=means[chosen],
                    y=summary.mean_accuracy[chosen],
                    mode="markers+text",
                    name="on the Pareto front" if on_front else "beaten on every axis by another",
                    legendgroup="front" if on_front else "dominated",
                    showlegend=col == 1,
                    text=[plotly_text(summary.names[i]) for i in chosen],
                    textposition="top center",
                    # Names of candidates near an axis would otherwise be cut off.
                    cliponaxis=False,
                    marker={
                        "color": [candidate_color(int(i)) for i in chosen],
                        "size": 15 if on_front else 12,
                        "symbol": "diamond" if on_front else "circle-open",
                        "line": {"width": 2, "color": [candidate_color(int(i)) for i in chosen]},
                    },
                    customdata=summary.mean_reward[chosen],
                    hovertemplate=(
                        f"%{{text}}<br>mean {part} %{{x:.4g}}{unit}<br>mean accuracy %{{y:.3f}}"
                        "<br>mean reward %{customdata:.3f}<extra></extra>"
                    ),
                ),
                row=1,
                col=col,
            )
        line_x, line_y = _iso_lines(means, summary.mean_accuracy, w[0], w[column], norm.reference(part))
        figure.add_trace(
            go.Scatter(
                x=line_x,
                y=line_y,
                mode="lines",
                name="equal reward at the current weights",
                legendgroup="iso",
                showlegend=col == 1,
                line={"color": "#999999", "dash": "dot", "width": 1.5},
                hoverinfo="skip",
            ),
            row=1,
            col=col,
        )
    figure.update_xaxes(title_text="Mean latency (ms)", rangemode="tozero", row=1, col=1)
    figure.update_xaxes(title_text="Mean cost (USD)", rangemode="tozero", row=1, col=2)
    figure.update_yaxes(title_text="Mean accuracy score (0 to 1)", range=[0, 1.08], row=1, col=1)
    figure.update_layout(
        template=_TEMPLATE,
        title={"text": "Candidates: what each gives up in accuracy for speed and cost"},
        legend={"orientation": "h", "y": -0.2},
        margin={"t": 80, "b": 80},
    )
    return figure


def ternary_winner_figure(grid: WinnerMap, current_weights: Mapping[str, float]) -> go.Figure:
    """The winner at every grid point of the weight triangle, coloured by candidate, with the current weights starred.

    One trace per candidate (a candidate that never wins keeps an empty trace, marked so in the
    legend) and one for the current point.
    """
    size = float(np.clip(0.18 / grid.step, 2, 14))
    traces: list[Any] = []
    for index, name in enumerate(plotly_text(name) for name in grid.names):
        points = grid.weights[grid.winners == index]
        # plotly.js leaves a trace without points out of the legend; one blank point keeps it listed.
        a, b, c = (points[:, 0], points[:, 1], points[:, 2]) if len(points) else ([None], [None], [None])
        traces.append(
            go.Scatterternary(
                a=a,
                b=b,
                c=c,
                mode="markers",
                name=name if len(points) else f"{name} (never wins)",
                marker={"color": candidate_color(index), "size": size, "symbol": "square"},
                hovertemplate=(
                    f"{name} wins<br>accuracy %{{a:.2f}}<br>speed %{{b:.2f}}<br>cost %{{c:.2f}}<extra></extra>"
                ),
            )
        )
    current = weight_vector(current_weights)
    traces.append(
        go.Scatterternary(
            a=[current[0]],
            b=[current[1]],
            c=[current[2]],
            mode="markers",
            name="current weights",
            marker={"color": "black", "size": 18, "symbol": "star", "line": {"width": 1.5, "color": "white"}},
            hovertemplate="current weights<br>accuracy %{a:.2f}<br>speed %{b:.2f}<br>cost %{c:.2f}<extra></extra>",
        )
    )
    figure = go.Figure(traces)
    figure.update_layout(
        template=_TEMPLATE,
        title={"text": "Which candidate has the highest mean reward, for every mix of weights"},
        ternary={
            "sum": 1,
            "aaxis": {"title": {"text": "accuracy weight"}},
            "baxis": {"title": {"text": "speed weight"}},
            "caxis": {"title": {"text": "cost weight"}},
        },
        legend={"title": {"text": "winner"}},
        # Room for the corner axis titles, which themes with narrow side margins would cut off.
        margin={"l": 70, "r": 70, "t": 80, "b": 50},
    )
    return figure


def score_histogram(scores: ArrayLike) -> go.Figure:
    """How many cases got each score (NaN, a failed case, is left out; the count is in the title)."""
    values = np.asarray(scores, dtype=float)
    finite = values[np.isfinite(values)]
    bins: dict[str, float] = {}
    if finite.size and finite.min() >= 0 and finite.max() <= 1:
        # Scores in [0, 1] get fixed bins, so two histograms side by side compare bar for bar. Plotly's
        # bins are half-open, so the last one must reach a whole bin past 1.0 to count scores of exactly 1.
        bins = {"start": 0.0, "end": 1.05, "size": 0.05}
    figure = go.Figure(
        go.Histogram(
            x=finite,
            xbins=bins or None,
            marker_color=PART_COLORS["accuracy"],
            hovertemplate=_("score {x}<br>{y} cases").format(x="%{x}", y="%{y}") + "<extra></extra>",
        )
    )
    if bins:
        figure.update_xaxes(range=[0.0, 1.05])
    left_out = len(values) - len(finite)
    if left_out:
        title = ngettext(
            "How the scores are spread across cases ({count} without a score left out)",
            "How the scores are spread across cases ({count} without a score left out)",
            left_out,
        ).format(count=format_number(left_out))
    else:
        title = _("How the scores are spread across cases")
    return _layout(figure, title, _("Score"), _("Cases"))


def _iso_lines(
    xs: np.ndarray, accuracy: np.ndarray, w_accuracy: float, w_part: float, ref: float | None
) -> tuple[list[float | None], list[float | None]]:
    """Points of one line per candidate, joined into one trace with ``None`` gaps."""
    finite = xs[np.isfinite(xs)]
    top = max(float(finite.max()) * 1.3 if finite.size else 0.0, ref or 0.0) or 1.0
    grid = np.linspace(0.0, top, 120)
    line_x: list[float | None] = []
    line_y: list[float | None] = []
    for x0, a0 in zip(xs, accuracy, strict=True):
        if not np.isfinite(x0) or (w_accuracy == 0 and w_part == 0):
            continue
        if w_accuracy == 0:
            # Only this part counts, so equal reward means equal mean measurement: a vertical line.
            line_x += [float(x0), float(x0), None]
            line_y += [0.0, 1.0, None]
            continue
        ys = iso_reward_line(grid, float(x0), float(a0), w_accuracy, w_part, ref)
        line_x += [*grid.tolist(), None]
        line_y += [*(None if np.isnan(y) else float(y) for y in ys), None]
    return line_x, line_y


def _layout(
    figure: go.Figure, title: str, x_title: str, y_title: str, yrange: tuple[float, float] | None = None
) -> go.Figure:
    figure.update_layout(
        template=_TEMPLATE,
        title={"text": title},
        xaxis_title=x_title,
        yaxis_title=y_title,
        legend={"orientation": "h", "y": -0.25},
        margin={"t": 70},
    )
    if yrange is not None:
        figure.update_yaxes(range=list(yrange))
    return figure


def _num(value: float) -> str:
    return f"{value:g}"
