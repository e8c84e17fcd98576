"""Plotly figures for the Reward trade-offs page, as plain functions that tests can call.

Each function takes computed values (from :mod:`skynet_core.reward` and
:mod:`skynet_core.reward.tradeoffs`) and only draws: no maths is decided here. Every figure has a
title and labelled axes with units; the page's theme (Streamlit's) draws the rest, and every trace
carries its own colour: parts keep one colour everywhere (accuracy blue, speed orange, cost green), and
candidate ``i`` keeps :func:`candidate_color` ``(i)`` in every figure. No figure names a template:
plotly validates a named template in full for each figure (10 ms, half of a trade-offs page's run),
where a figure built with the process's default one (Streamlit sets its own) takes it as it is.
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
from skynet_core.i18n import N_, _, format_number, ngettext
from skynet_core.reward.parts import PARTS, validate_reward_spec, weight_vector
from skynet_core.reward.tradeoffs import PART_LABELS, CandidateSummary, WinnerMap, iso_reward_line

PART_COLORS = {"accuracy": "#4C78A8", "speed": "#F58518", "cost": "#54A24B"}
# Per curve: its title, its x axis and the unit after a value (marked here, translated where drawn).
_CURVES = {
    "speed": (N_("Speed score: falls as latency grows"), N_("Latency (ms)"), N_("{value} ms")),
    "cost": (N_("Cost score: falls as cost grows"), N_("Cost (USD)"), N_("{value} USD")),
    "error": (
        N_("Error score: falls as the error grows"),
        N_("Error (the value metric.py passes as accuracy)"),
        "{value}",
    ),
}
# Above this many cases, per-case bars become a stacked area: tens of thousands of bars are unreadable and slow.
_MAX_BARS = 500


def candidate_color(index: int) -> str:
    """The colour of candidate ``index`` in every figure (a colour-blind-safe palette)."""
    return str(qualitative.Safe[index % len(qualitative.Safe)])


def curve_figure(kind: str, ref: float, xs: ArrayLike, ids: Sequence[str] | None = None) -> go.Figure:
    """The curve ``ref / (ref + x)`` for ``kind`` (``speed``, ``cost`` or ``error``) and every case on it.

    ``xs`` are the cases' latencies (ms), costs (USD) or errors; NaN means not measured, and the
    rule that such a case scores 0 is written in the plot, with their count. Negative values sit at 0,
    where the score is 1.
    """
    if kind not in _CURVES:
        raise ValueError(f"kind must be one of {', '.join(_CURVES)}; got {kind!r}.")
    title, axis, measured = (_(_CURVES[kind][0]), _(_CURVES[kind][1]), _(_CURVES[kind][2]))
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
                name=_("score = {ref} / ({ref} + x)").format(ref=_num(ref)),
                line={"color": "#555555"},
                hoverinfo="skip",
            ),
            go.Scatter(
                x=points,
                y=ref / (ref + points),
                mode="markers",
                name=_("cases"),
                marker={"color": PART_COLORS["accuracy" if kind == "error" else kind], "size": 7, "opacity": 0.6},
                customdata=hover_ids,
                hovertemplate=_("case %{customdata}<br>%{x:.4g}{unit}<br>score %{y:.3f}").replace(
                    "%{x:.4g}{unit}", measured.format(value="%{x:.4g}")
                )
                + "<extra></extra>",
            ),
        ]
    )
    figure.add_vline(
        x=ref,
        line_dash="dash",
        line_color="#888888",
        annotation_text=_("reference {value} scores 0.5").format(value=measured.format(value=_num(ref))),
    )
    if kind != "error":
        # Bottom right, at score 0, where the curve (at least 0.25 over the drawn range) never reaches.
        _unmeasured_note(figure, kind, int(np.isnan(values).sum()), x=0.99, y=0.03, xanchor="right", yanchor="bottom")
    return _layout(figure, title, axis, _("Part score (0 to 1)"), yrange=(0, 1.05))


def unmeasured_text(kind: str, count: int) -> str:
    """The rule for a case with no measured latency (``kind`` "speed") or cost ("cost"), with how many there are."""
    if kind == "speed":
        if not count:
            return _("A case with no measured latency<br>scores 0 on speed (none here)")
        return ngettext(
            "{count} case has no measured latency:<br>it scores 0 on speed",
            "{count} cases have no measured latency:<br>each scores 0 on speed",
            count,
        ).format(count=count)
    if not count:
        return _("A case with no measured cost<br>scores 0 on cost (none here)")
    return ngettext(
        "{count} case has no measured cost:<br>it scores 0 on cost",
        "{count} cases have no measured cost:<br>each scores 0 on cost",
        count,
    ).format(count=count)


def _unmeasured_note(figure: go.Figure, kind: str, count: int, text: str | None = None, **where: Any) -> None:
    """Write the rule for unmeasured cases in the plot itself: boxed and in the part's colour when some are."""
    figure.add_annotation(
        text=text or unmeasured_text(kind, count),
        xref="paper",
        yref="paper",
        showarrow=False,
        align=where.get("xanchor", "right"),
        font={"size": 13 if count else 11, "color": "#B03A00" if count else "#666666"},
        bordercolor=PART_COLORS[kind] if count else "rgba(0,0,0,0)",
        borderwidth=1.5,
        borderpad=4,
        bgcolor="rgba(255,255,255,0.9)",
        **where,
    )


def stacked_reward_figure(
    ids: Sequence[str],
    parts: ArrayLike,
    weights: Mapping[str, float],
    unmeasured: Mapping[str, int] | None = None,
) -> go.Figure:
    """Each case's reward as the sum of its weighted accuracy, speed and cost parts, best case first.

    ``parts`` is ``(n, 3)`` as from :func:`skynet_core.reward.reward_parts` (NaN, a part that is
    off, adds nothing). Up to 500 cases are bars; more are drawn as a stacked area over the cases'
    rank, which keeps the shape readable. ``unmeasured`` counts the cases without a measured latency
    ("speed") and cost ("cost"); those with some are named in the plot (they score 0 on that part).
    """
    contributions = np.nan_to_num(np.asarray(parts, dtype=float), nan=0.0) * weight_vector(weights)
    order = np.argsort(-contributions.sum(axis=1), kind="stable")
    contributions = contributions[order]
    case_ids = [plotly_text(str(ids[i])) for i in order]  # plotly reads a little HTML in labels: show ids as text
    # An object array: plotly validates it several times faster than a list of 10,000 strings.
    hover_ids = np.asarray(case_ids, dtype=object)
    bars = len(case_ids) <= _MAX_BARS
    traces: list[Any] = []
    for column, part in enumerate(PARTS):
        y = contributions[:, column]
        label = _(PART_LABELS[part])
        hover = _("case %{customdata}<br>{part}: %{y:.3f}").replace("{part}", label) + "<extra></extra>"
        color = PART_COLORS[part]
        if bars:
            marker = {"color": color, "line": {"color": "white", "width": 0.5}}  # each case's bar told apart
            traces.append(go.Bar(x=case_ids, y=y, name=label, marker=marker, customdata=hover_ids, hovertemplate=hover))
        else:
            traces.append(
                go.Scatter(
                    x=np.arange(1, len(case_ids) + 1),
                    y=y,
                    name=label,
                    mode="lines",
                    stackgroup="reward",
                    line={"width": 0, "color": color},
                    fillcolor=color,
                    customdata=hover_ids,
                    hovertemplate=hover,
                )
            )
    figure = go.Figure(traces)
    # Plotly lists stacked bars top-down by default; keep the legend in PARTS order like every other figure.
    figure.update_layout(barmode="stack", bargap=0.1 if len(case_ids) <= 60 else 0, legend_traceorder="normal")
    if bars:
        figure.update_xaxes(type="category", showticklabels=len(case_ids) <= 40)
    x_title = _("Case (best reward first)") if bars else _("Case rank (best reward first)")
    notes = [(kind, count) for kind, count in (unmeasured or {}).items() if count]
    _layout(figure, _("Each case's reward, part by part"), x_title, _("Reward (0 to 1)"))
    figure.update_layout(height=420)
    if notes:
        # In the legend's row, under the bars: on them they would hide the best cases.
        text = "<br>".join(unmeasured_text(kind, count) for kind, count in notes)
        _unmeasured_note(figure, notes[0][0], notes[0][1], text=text, x=0.0, y=-0.42, xanchor="left", yanchor="top")
        figure.update_layout(height=480, margin={"b": 120 + 35 * len(notes)}, legend={"y": -0.22, "yanchor": "top"})
    return figure


def candidates_figure(summary: CandidateSummary, spec: Any) -> go.Figure:
    """Mean accuracy against mean latency (left) and mean cost (right), one point per candidate.

    Candidates on the Pareto front are filled diamonds, the others open circles. Dotted lines
    through each candidate are lines of equal reward under the current weights, counting the
    accuracy part and that panel's part (see :func:`skynet_core.reward.tradeoffs.iso_reward_line`): a
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
        subplot_titles=(_("Accuracy against latency"), _("Accuracy against cost")),
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
                    name=_("on the Pareto front") if on_front else _("beaten on every axis by another"),
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
                    hovertemplate=_(
                        "%{text}<br>mean {part} %{x:.4g}{unit}<br>mean accuracy %{y:.3f}"
                        "<br>mean reward %{customdata:.3f}"
                    )
                    .replace("{part}", _(PART_LABELS[part]))
                    .replace("{unit}", unit)
                    + "<extra></extra>",
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
                name=_("equal reward at the current weights"),
                legendgroup="iso",
                showlegend=col == 1,
                line={"color": "#999999", "dash": "dot", "width": 1.5},
                hoverinfo="skip",
            ),
            row=1,
            col=col,
        )
    figure.update_xaxes(title_text=_("Mean latency (ms)"), rangemode="tozero", row=1, col=1)
    figure.update_xaxes(title_text=_("Mean cost (USD)"), rangemode="tozero", row=1, col=2)
    figure.update_yaxes(title_text=_("Mean accuracy score (0 to 1)"), range=[0, 1.08], row=1, col=1)
    figure.update_layout(
        title={"text": _("Candidates: what each gives up in accuracy for speed and cost")},
        legend={"orientation": "h", "y": -0.2},
        margin={"t": 80, "b": 80},
    )
    return figure


def ternary_winner_figure(
    grid: WinnerMap, current_weights: Mapping[str, float], unmeasured_latency: int = 0
) -> go.Figure:
    """The winner at every grid point of the weight triangle, coloured by candidate, with the current weights starred.

    One trace per candidate (a candidate that never wins keeps an empty trace, marked so in the
    legend) and one for the current point. Every point carries its weights ``[accuracy, speed,
    cost]`` as ``customdata``, so a click on the map (a points selection) says which weights were
    clicked; a selection dims nothing. ``unmeasured_latency`` (cases of all candidates without a
    measured latency) is named under the map when above 0: they score 0 on speed wherever it is.
    """
    size = float(np.clip(0.18 / grid.step, 2, 14))
    traces: list[Any] = []
    for index, name in enumerate(plotly_text(name) for name in grid.names):
        # Plain lists, not numpy arrays: plotly sends an array as a binary typed array, and plotly.js then gives
        # a clicked point's customdata as a Float64Array, which the selection Streamlit reports turns into
        # {"0": a, "1": s, "2": c}. A list row comes back as the list [a, s, c].
        points = grid.weights[grid.winners == index].tolist()
        # plotly.js leaves a trace without points out of the legend; one blank point keeps it listed.
        a, b, c = ([list(column) for column in zip(*points, strict=True)]) if points else ([None], [None], [None])
        traces.append(
            go.Scatterternary(
                a=a,
                b=b,
                c=c,
                customdata=points or None,
                mode="markers",
                name=name if points else _("{name} (never wins)").format(name=name),
                marker={"color": candidate_color(index), "size": size, "symbol": "square"},
                unselected={"marker": {"opacity": 1}},
                hovertemplate=_("{name} wins<br>accuracy %{a:.2f}<br>speed %{b:.2f}<br>cost %{c:.2f}").replace(
                    "{name}", name
                )
                + "<br>"
                + _("click to use these weights")
                + "<extra></extra>",
            )
        )
    current = weight_vector(current_weights)
    traces.append(
        go.Scatterternary(
            a=[current[0]],
            b=[current[1]],
            c=[current[2]],
            customdata=[current.tolist()],
            mode="markers",
            name=_("current weights"),
            marker={"color": "black", "size": 18, "symbol": "star", "line": {"width": 1.5, "color": "white"}},
            unselected={"marker": {"opacity": 1}},
            hovertemplate=_("current weights<br>accuracy %{a:.2f}<br>speed %{b:.2f}<br>cost %{c:.2f}")
            + "<extra></extra>",
        )
    )
    figure = go.Figure(traces)
    figure.update_layout(
        title={"text": _("The winner at each mix of weights (click to use one)")},
        ternary={
            "sum": 1,
            "aaxis": {"title": {"text": _("accuracy weight")}, "ticks": ""},
            "baxis": {"title": {"text": _("speed weight")}, "ticks": ""},
            "caxis": {"title": {"text": _("cost weight")}, "ticks": ""},
        },
        legend={"title": {"text": _("winner")}},
        clickmode="event+select",
        # Room for the corner axis titles, which themes with narrow side margins would cut off.
        margin={"l": 70, "r": 70, "t": 80, "b": 50 + (70 if unmeasured_latency else 0)},
    )
    if unmeasured_latency:
        # Under the speed axis's ticks and the corner titles, where it hides no square of the map.
        _unmeasured_note(figure, "speed", unmeasured_latency, x=0.5, y=-0.1, xanchor="center", yanchor="top")
    return figure


UNIT_BIN = 0.05  # the width of a bin of scores in [0, 1]
UNIT_BINS = 21  # [0, 0.05) … [0.95, 1.0) and [1.0, 1.05), which holds the scores of exactly 1.0
MAX_BINS = 40  # for values outside [0, 1]


def in_unit_range(values: np.ndarray) -> bool:
    """Every one of ``values`` (finite, at least one) lies in [0, 1]: the scores that get the fixed bins."""
    return bool(values.size) and float(values.min()) >= 0 and float(values.max()) <= 1


def histogram_counts(values: np.ndarray, bins: int | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``(edges, counts)`` of the finite ``values``: bin ``i`` is ``[edges[i], edges[i + 1])``,
    ``len(edges) == len(counts) + 1``, and the counts add up to ``len(values)``.

    Values all in [0, 1] get fixed bins 0.05 wide, so two histograms side by side compare bar for bar; a value
    on an edge goes to the bin it starts (0.15 to [0.15, 0.2), however the division rounds). Others get ``bins``
    bins of one width (numpy's choice without it, at most :data:`MAX_BINS`), one when every value is the same.
    The figure carries the counts, not the values: 900,000 scores made an 11.8 MB figure, sent on every run."""
    if not values.size:
        return np.array([0.0, 1.0]), np.array([0])
    if in_unit_range(values):
        index = np.floor(np.round(values / UNIT_BIN, 9)).astype(np.int64)
        counts = np.bincount(np.clip(index, 0, UNIT_BINS - 1), minlength=UNIT_BINS)
        return np.round(np.arange(UNIT_BINS + 1) * UNIT_BIN, 10), counts
    low, high = float(values.min()), float(values.max())
    if low == high:
        return np.array([low - 0.5, high + 0.5]), np.array([values.size])
    edges = np.histogram_bin_edges(values, bins="auto") if bins is None else np.linspace(low, high, bins + 1)
    if len(edges) - 1 > MAX_BINS:
        edges = np.linspace(low, high, MAX_BINS + 1)
    counts, _edges = np.histogram(values, bins=edges)
    return edges, counts


def histogram_bars(values: np.ndarray, color: str, bins: int | None = None, hover: str | None = None) -> go.Bar:
    """A histogram of ``values`` as bars of counts (:func:`histogram_counts`), each bar's range in its hover
    (``hover``: a translated text with ``{x}``, the range, and ``{y}``, the count; by default a score's)."""
    edges, counts = histogram_counts(values, bins)
    hover = hover or _("score {x}<br>{y} cases")
    return go.Bar(
        x=(edges[:-1] + edges[1:]) / 2,
        y=counts,
        width=np.diff(edges),
        customdata=[f"{_num(start)}–{_num(end)}" for start, end in zip(edges[:-1], edges[1:], strict=True)],
        marker={"color": color, "line": {"color": "white", "width": 1}},
        hovertemplate=hover.format(x="%{customdata}", y="%{y}") + "<extra></extra>",
    )


def score_histogram(scores: ArrayLike) -> go.Figure:
    """How many cases got each score (NaN, a failed case, is left out; the count is in the title)."""
    values = np.asarray(scores, dtype=float)
    finite = values[np.isfinite(values)]
    figure = go.Figure(histogram_bars(finite, PART_COLORS["accuracy"]))
    if in_unit_range(finite):
        figure.update_xaxes(range=[0.0, UNIT_BIN * UNIT_BINS])
    left_out = len(values) - len(finite)
    if left_out:
        title = ngettext(
            "How the scores are spread across cases ({count} without a score left out)",
            "How the scores are spread across cases ({count} without a score left out)",
            left_out,
        ).format(count=format_number(left_out))
    else:
        title = _("How the scores are spread across cases")
    return _layout(figure, title, _("Score"), _("Cases")).update_layout(bargap=0)


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
