"""What the studio draws of an uplift result, as plain functions that tests can call.

- :func:`scores_figure`: each arm's validation score, a point per seed and a bar for the mean, over a dashed
  line at the start's score;
- :func:`gains_figure`: each arm's gain and the feedback value with their 95% intervals, beside 0;
- :func:`instruction_diff`: an arm's final instruction of one seed as a unified diff from the start.

Only drawing is decided here; every number comes from :class:`~.result.UpliftResult`. Texts that came from a
model (the instructions) are shown escaped and clipped.
"""

from __future__ import annotations

import plotly.graph_objects as go

from ...display import plotly_text
from ...i18n import _, format_number
from ...reward.charts import _layout  # the studio's one figure style (title, axes, white template)
from ...runs.history import unified_diff
from .config import Arm
from .result import UpliftResult
from .stats import Interval

ARM_COLORS = {Arm.FEEDBACK: "#4C78A8", Arm.SCORE_ONLY: "#9D9D9D", Arm.SHUFFLED: "#F58518"}
VALUE_COLOR = "#54A24B"
_SPREAD = 0.08  # how far apart a seed's point sits from the next one of the same arm


def scores_figure(result: UpliftResult) -> go.Figure:
    """Each arm's final instructions scored on the validation cases: a point per seed, a bar for their mean."""
    figure = go.Figure()
    arms = list(result.arms.values())
    for position, found in enumerate(arms):
        color = ARM_COLORS[found.arm]
        middle = (len(found.ends) - 1) / 2
        figure.add_trace(
            go.Scatter(
                x=[position + (seed - middle) * _SPREAD for seed in range(len(found.ends))],
                y=list(found.ends),
                mode="markers",
                marker={"color": color, "size": 10, "line": {"width": 1, "color": "white"}},
                name=found.arm.label,
                text=[
                    _("seed {seed}: {score}").format(seed=seed + 1, score=format_number(end, 3))
                    + "<br>"
                    + plotly_text(instruction, 300)
                    for seed, (end, instruction) in enumerate(zip(found.ends, found.instructions, strict=True))
                ],
                hovertemplate="%{text}<extra></extra>",
            )
        )
        if found.ends:
            mean = sum(found.ends) / len(found.ends)
            figure.add_trace(
                go.Scatter(
                    x=[position - 0.25, position + 0.25],
                    y=[mean, mean],
                    mode="lines",
                    line={"color": color, "width": 4},
                    name=_("{arm}: mean {score}").format(arm=found.arm.label, score=format_number(mean, 3)),
                    hoverinfo="name",
                )
            )
    if result.start is not None:
        figure.add_hline(
            y=result.start,
            line={"dash": "dash", "color": "#555555"},
            annotation_text=_("start {score}").format(score=format_number(result.start, 3)),
            annotation_position="top left",
        )
    # Every arm's column whole, its name under it; no legend: the names are the ticks, the means in the hover.
    figure.update_xaxes(
        tickvals=list(range(len(arms))), ticktext=[found.arm.label for found in arms], range=[-0.5, len(arms) - 0.5]
    )
    figure.update_layout(showlegend=False)
    return _layout(figure, _("Validation score of each arm's final instruction"), _("Arm"), _("Mean score"))


def gains_figure(result: UpliftResult) -> go.Figure:
    """Each arm's gain over the start and the feedback value (gain with feedback − gain with the score only),
    each with its 95% interval across seeds, beside a line at 0."""
    rows: list[tuple[str, Interval, str]] = [
        (found.arm.label, found.gain, ARM_COLORS[found.arm]) for found in result.arms.values()
    ]
    rows.append((_("feedback value"), result.feedback_value, VALUE_COLOR))
    shown = [(label, interval, color) for label, interval, color in rows if interval.value is not None]
    figure = go.Figure()
    for label, interval, color in shown:
        value = interval.value or 0.0
        low = interval.low if interval.low is not None else value
        high = interval.high if interval.high is not None else value
        figure.add_trace(
            go.Scatter(
                x=[value],
                y=[label],
                mode="markers",
                marker={"color": color, "size": 12},
                error_x={"type": "data", "symmetric": False, "array": [high - value], "arrayminus": [value - low]},
                name=label,
                hovertemplate=_("{label}: {value} (95% interval {low} to {high})").format(
                    label=plotly_text(label),
                    value=format_number(value, 3),
                    low=format_number(low, 3),
                    high=format_number(high, 3),
                )
                + "<extra></extra>",
                showlegend=False,
            )
        )
    figure.add_vline(x=0, line={"color": "#555555"})
    figure.update_yaxes(autorange="reversed")
    return _layout(figure, _("Gain over the start, with 95% intervals across seeds"), _("Change in mean score"), "")


def instruction_diff(result: UpliftResult, arm: Arm, seed: int) -> str:
    """The unified diff from the given instruction to ``arm``'s final one of seed ``seed`` (from 0); "" when
    they are equal."""
    run = next(run for run in result.runs_of(arm) if run.seed == seed)
    return unified_diff(
        _ended(result.config.instruction),
        _ended(run.instruction),
        _("start"),
        _("{arm}, seed {seed}").format(arm=arm.label, seed=seed + 1),
    )


def _ended(text: str) -> str:
    """``text`` ending in a newline, so its last line and the next one of the diff stay apart."""
    return text if text.endswith("\n") else text + "\n"
