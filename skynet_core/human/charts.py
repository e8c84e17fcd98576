"""The agreement report's figures and tables, as plain functions the pages call (and tests can build)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from skynet_core.display import plotly_text
from skynet_core.i18n import _

from .bootstrap import SEED
from .pairing import Pairing
from .report import DEFAULT_THRESHOLD, Confusion

if TYPE_CHECKING:
    import pandas as pd
    import plotly.graph_objects as go

JITTER = 0.015
"""Points that share their exact place are spread by up to this share of each axis's range."""
_COLORS = {"agree": "#4C78A8", "false_pass": "#E45756", "false_fail": "#F58518"}


def _jitter(values: np.ndarray, tied: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    spread = float(np.ptp(values)) if values.size else 0.0
    noise = rng.uniform(-1, 1, values.size) * JITTER * (spread or 1.0)
    return np.where(tied, values + noise, values)


def agreement_scatter(pairing: Pairing, threshold: float = DEFAULT_THRESHOLD, *, seed: int = SEED) -> go.Figure:
    """The metric's score (x) against the human score (y), one point per labelled case.

    Points that share their place with another (ties: pass/fail labels, few score levels) are
    jittered a little, with a seeded generator (the same figure every time); the hover gives the
    true values. Each point's ``customdata`` is ``[case id, score, human score]``, so a page can
    open the case a click selects. False passes (the metric passes, the person fails: bottom right)
    are red, false fails orange; the threshold is drawn on both axes and ``y = x`` dotted.
    """
    import plotly.graph_objects as go

    score = np.array([case.score for case in pairing.cases], dtype=float)
    human = np.array([case.human for case in pairing.cases], dtype=float)
    places = list(zip(score.tolist(), human.tolist(), strict=True))
    counts: dict[tuple[float, float], int] = {}
    for place in places:
        counts[place] = counts.get(place, 0) + 1
    tied = np.array([counts[place] > 1 for place in places], dtype=bool)
    rng = np.random.default_rng(seed)
    x, y = _jitter(score, tied, rng), _jitter(human, tied, rng)
    kinds = np.where(
        (score >= threshold) & (human < threshold),
        "false_pass",
        np.where((score < threshold) & (human >= threshold), "false_fail", "agree"),
    )
    names = {"agree": _("agree at the threshold"), "false_pass": _("false pass"), "false_fail": _("false fail")}
    figure = go.Figure()
    for kind in ("agree", "false_pass", "false_fail"):
        chosen = kinds == kind
        if not chosen.any():
            continue
        figure.add_trace(
            go.Scatter(
                x=x[chosen],
                y=y[chosen],
                mode="markers",
                name=names[kind],
                marker={"color": _COLORS[kind], "size": 8, "opacity": 0.8},
                customdata=[
                    [case.id, case.score, case.human]
                    for case, keep in zip(pairing.cases, chosen.tolist(), strict=True)
                    if keep
                ],
                text=[plotly_text(case.id) for case, keep in zip(pairing.cases, chosen.tolist(), strict=True) if keep],
                hovertemplate=_("case %{text}<br>score %{customdata[1]:.3f}<br>human %{customdata[2]:.3f}")
                + "<extra></extra>",
            )
        )
    low = float(min([threshold, *score.tolist(), *human.tolist()]))
    high = float(max([threshold, *score.tolist(), *human.tolist()]))
    figure.add_shape(type="line", x0=low, y0=low, x1=high, y1=high, line={"dash": "dot", "color": "#999999"})
    figure.add_vline(x=threshold, line={"dash": "dash", "color": "#BBBBBB"})
    figure.add_hline(y=threshold, line={"dash": "dash", "color": "#BBBBBB"})
    figure.update_layout(
        title=_("Metric score against human score ({n} labelled cases)").format(n=pairing.n),
        xaxis_title=_("Metric score"),
        yaxis_title=_("Human score"),
        clickmode="event+select",
        legend={"orientation": "h", "y": -0.2},
    )
    return figure


def confusion_table(confusion: Confusion) -> pd.DataFrame:
    """The confusion counts as a 2 × 2 table: rows the person's verdict, columns the metric's."""
    import pandas as pd

    metric_pass, metric_fail = _("metric passes"), _("metric fails")
    return pd.DataFrame(
        {metric_pass: [confusion.tp, confusion.fp], metric_fail: [confusion.fn, confusion.tn]},
        index=[_("person passes"), _("person fails")],
    )


def confusion_figure(confusion: Confusion, threshold: float = DEFAULT_THRESHOLD) -> go.Figure:
    """The confusion counts as an annotated heatmap; the false passes' cell is named as such."""
    import plotly.graph_objects as go

    table = confusion_table(confusion)
    figure = go.Figure(
        go.Heatmap(
            z=table.to_numpy(),
            x=list(table.columns),
            y=list(table.index),
            text=[[str(value) for value in row] for row in table.to_numpy().tolist()],
            texttemplate="%{text}",
            colorscale="Blues",
            showscale=False,
            hovertemplate="%{y}, %{x}: %{z}<extra></extra>",
        )
    )
    figure.add_annotation(
        x=table.columns[0],
        y=table.index[1],
        text=_("false passes"),
        yshift=-22,
        showarrow=False,
        font={"color": "#E45756"},
    )
    figure.update_layout(
        title=_("Pass/fail at threshold {threshold:g}").format(threshold=threshold),
        xaxis={"ticks": ""},
        yaxis={"autorange": "reversed", "ticks": ""},
    )
    return figure
