"""What the studio draws of an alignment, as plain functions that tests can call.

- :func:`rounds_figure`: the objective on dev round by round: the best so far as a step line from the starting
  prompts, each kept proposal as a point, each round that kept nothing as a mark on the line (its reason on hover);
- :func:`before_after_figure`: the figures on test before and after, each with its 95% interval.

Only drawing is decided here; every number comes from :class:`~.result.AlignResult`. Texts that came from a model
or a person (notes, proposals) are shown escaped and clipped.
"""

from __future__ import annotations

import plotly.graph_objects as go

from ..display import plotly_text
from ..i18n import _, format_number
from ..reward.charts import _layout  # the studio's one figure style (title, axes, white template)
from .result import AlignResult
from .text import FIGURES, figure_label, figure_of

BEFORE_COLOR = "#9D9D9D"
AFTER_COLOR = "#4C78A8"
KEPT_COLOR = "#54A24B"


def rounds_figure(result: AlignResult) -> go.Figure:
    """The objective on dev after each round (see the module's docstring)."""
    start = result.before.dev.objective if result.before is not None else 0.0
    rounds = [0, *(record.round for record in result.rounds)]
    best = [start, *(max(start, record.best) for record in result.rounds)]
    figure = go.Figure()
    figure.add_trace(
        go.Scatter(
            x=rounds,
            y=best,
            mode="lines",
            line={"shape": "hv", "color": AFTER_COLOR, "width": 3},
            name=_("best on dev so far"),
            hovertemplate=_("after round %{x}: %{y:.2f}") + "<extra></extra>",
        )
    )
    kept = [record for record in result.rounds if record.accepted and record.dev is not None]
    figure.add_trace(
        go.Scatter(
            x=[record.round for record in kept],
            y=[record.dev for record in kept],
            mode="markers",
            marker={"color": KEPT_COLOR, "size": 12, "line": {"width": 1, "color": "white"}},
            name=_("proposal kept (scored on dev)"),
            text=[
                _("round {round}: {value} on dev, κ {kappa}").format(
                    round=record.round,
                    value=format_number(record.dev or 0.0, 2),
                    kappa=format_number(record.dev_kappa, 2) if record.dev_kappa is not None else "–",
                )
                for record in kept
            ],
            hovertemplate="%{text}<extra></extra>",
        )
    )
    skipped = [record for record in result.rounds if not record.accepted]
    figure.add_trace(
        go.Scatter(
            x=[record.round for record in skipped],
            y=[best[rounds.index(record.round)] for record in skipped],
            mode="markers",
            marker={"color": BEFORE_COLOR, "size": 9, "symbol": "x"},
            name=_("nothing kept"),
            text=[plotly_text(record.note, 200) for record in skipped],
            hovertemplate=_("round %{x}") + ": %{text}<extra></extra>",
        )
    )
    figure.update_xaxes(tickvals=rounds, range=[-0.3, max(rounds) + 0.3])
    figure.update_yaxes(range=[min(0.0, *best) - 0.05, 1.05])
    figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.25, "x": 0})
    return _layout(
        figure, _("Agreement with people on the dev cases, round by round"), _("Round"), _("Agreement − |bias| on dev")
    )


def before_after_figure(result: AlignResult) -> go.Figure:
    """The figures on test with the starting prompts and the final ones, each with its 95% interval."""
    figure = go.Figure()
    measured = (
        (_("before"), result.before, BEFORE_COLOR, -0.12),
        (_("after"), result.after, AFTER_COLOR, 0.12),
    )
    labels = [figure_label(name, result.threshold) for name, _label in FIGURES]
    for label, found, color, offset in measured:
        if found is None:
            continue
        points = [(index, figure_of(found.test, name)) for index, (name, _label) in enumerate(FIGURES)]
        shown = [(index, estimate) for index, estimate in points if estimate.value is not None]
        figure.add_trace(
            go.Scatter(
                x=[estimate.value for _index, estimate in shown],
                y=[index + offset for index, _estimate in shown],
                mode="markers",
                marker={"color": color, "size": 11},
                error_x={
                    "type": "data",
                    "symmetric": False,
                    "array": [(estimate.high or estimate.value or 0) - (estimate.value or 0) for _i, estimate in shown],
                    "arrayminus": [
                        (estimate.value or 0) - (estimate.low or estimate.value or 0) for _i, estimate in shown
                    ],
                },
                name=label,
                text=[
                    f"{plotly_text(labels[index])}: {format_number(estimate.value or 0.0, 3)}"
                    + (
                        f" [{format_number(estimate.low, 3)}, {format_number(estimate.high, 3)}]"
                        if estimate.low is not None and estimate.high is not None
                        else ""
                    )
                    for index, estimate in shown
                ],
                hovertemplate="%{text}<extra>" + plotly_text(label) + "</extra>",
            )
        )
    figure.add_vline(x=0, line={"color": "#555555", "width": 1})
    figure.update_yaxes(tickvals=list(range(len(labels))), ticktext=labels, autorange="reversed")
    figure.update_xaxes(range=[-1.05, 1.05])
    figure.update_layout(legend={"orientation": "h", "yanchor": "top", "y": -0.2, "x": 0})
    n = result.before.test.n if result.before is not None else 0
    return _layout(figure, _("On the {n} test cases, before and after, with 95% intervals").format(n=n), "", "")
