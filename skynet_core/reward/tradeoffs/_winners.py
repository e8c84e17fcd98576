"""Who wins where on the weight simplex: the grid, the winner map, the nearest weights where the winner
changes, and a candidate's iso-reward line."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from skynet_core.i18n import _
from skynet_core.reward.parts import PARTS, weight_vector
from skynet_core.reward.weights import PART_LABELS

from ._summary import CandidateSummary, mean_rewards


@dataclass(frozen=True, eq=False)
class WinnerMap:
    """The winner at every point of a triangular grid on the weight simplex.

    ``weights`` is ``(m, 3)`` in PARTS order, each row summing to 1, in steps of ``step``;
    ``winners[i]`` indexes ``names``; ``rewards`` is ``(m, k)`` mean reward per point and candidate.
    """

    names: tuple[str, ...]
    step: float
    weights: np.ndarray
    winners: np.ndarray
    rewards: np.ndarray


@dataclass(frozen=True)
class WinnerChange:
    """The winner at some weights and the nearest grid point where another candidate wins.

    ``distance`` is Euclidean in normalised-weight space (so at most sqrt(2)), precise to about
    the grid step; it and the ``nearest_*`` fields are ``None`` when one candidate wins everywhere.
    """

    winner: int
    name: str
    distance: float | None
    nearest_weights: tuple[float, float, float] | None
    nearest_winner: str | None


def simplex_grid(step: float = 0.02) -> np.ndarray:
    """All weights ``(accuracy, speed, cost)`` on the simplex in steps of ``step`` (which must divide 1).

    Step 0.02 gives 1326 points, corners and edges included.
    """
    count = round(1 / step)
    if count < 1 or abs(count * step - 1) > 1e-9:
        raise ValueError(f"The grid step must divide 1 (0.1, 0.05, 0.02, ...); got {step}.")
    a, s = np.meshgrid(np.arange(count + 1), np.arange(count + 1), indexing="ij")
    keep = a + s <= count
    a, s = a[keep], s[keep]
    return np.stack([a, s, count - a - s], axis=1) / count


def winner_map(summary: CandidateSummary, step: float = 0.02) -> WinnerMap:
    """The winner at every point of :func:`simplex_grid`.

    Every part needs a reference (the map gives each part some weight); raises ``ValueError`` otherwise.
    """
    off = [PARTS[i] for i in range(3) if np.isnan(summary.mean_parts[:, i]).any()]
    if off:
        labels = [_(PART_LABELS[part]) for part in off]
        message = (
            _("The weight map gives every part some weight, so it needs a {part} reference; set one.")
            if len(labels) == 1
            else _("The weight map gives every part some weight, so it needs references for {parts}; set them.")
        )
        raise ValueError(message.format(part=labels[0], parts=_(", ").join(labels)))
    weights = simplex_grid(step)
    rewards = mean_rewards(summary.mean_parts, weights)
    return WinnerMap(
        names=summary.names, step=step, weights=weights, winners=np.argmax(rewards, axis=1), rewards=rewards
    )


def nearest_change(summary: CandidateSummary, grid: WinnerMap, weights: Mapping[str, float]) -> WinnerChange:
    """Who wins at ``weights`` (scaled to sum 1) and how far away, on ``grid``, another candidate wins."""
    w = weight_vector(weights)
    winner = int(np.argmax(mean_rewards(summary.mean_parts, w)))
    others = np.flatnonzero(grid.winners != winner)
    if others.size == 0:
        return WinnerChange(winner, summary.names[winner], None, None, None)
    distances = np.linalg.norm(grid.weights[others] - w, axis=1)
    nearest = others[int(np.argmin(distances))]
    point = grid.weights[nearest]
    return WinnerChange(
        winner=winner,
        name=summary.names[winner],
        distance=float(distances.min()),
        nearest_weights=(float(point[0]), float(point[1]), float(point[2])),
        nearest_winner=summary.names[int(grid.winners[nearest])],
    )


def iso_reward_line(
    xs: ArrayLike, x0: float, a0: float, w_accuracy: float, w_part: float, ref: float | None
) -> np.ndarray:
    """Accuracy along the line of equal ``w_accuracy * A + w_part * ref / (ref + x)`` through ``(x0, a0)``.

    It is the line a candidate would move along, trading mean accuracy for mean latency (or
    cost), without its accuracy-plus-that-part reward changing; it treats the mean measurement as
    if every case had it. Values outside [0, 1] are NaN (no candidate can be there). Needs
    ``w_accuracy > 0`` (otherwise the line is vertical, at ``x0``); ``ref`` may be ``None`` only
    when ``w_part`` is 0.
    """
    if w_accuracy <= 0:
        raise ValueError("With accuracy weight 0 the line of equal reward is vertical; draw it at x0 instead.")
    x = np.asarray(xs, dtype=float)
    if w_part == 0 or ref is None:
        accuracy = np.full_like(x, a0)
    else:
        level = w_accuracy * a0 + w_part * ref / (ref + max(x0, 0.0))
        accuracy = (level - w_part * ref / (ref + np.maximum(x, 0.0))) / w_accuracy
    return np.where((accuracy >= 0) & (accuracy <= 1), accuracy, np.nan)
