"""Candidates' stored values summed up once: each one's mean part scores and measured means, the Pareto front."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from skynet_core.i18n import _
from skynet_core.reward.parts import reward_parts, validate_reward_spec, weight_vector


@dataclass(frozen=True, eq=False)
class CandidateData:
    """One candidate's cases, as arrays of one length.

    ``accuracy`` is what the metric passed to ``reward`` (a score in [0, 1], or an error when the
    spec sets ``accuracy.reference``); ``latency_ms`` and ``cost_usd`` are the observations, NaN
    where not measured. Leave out cases whose metric failed: they have no accuracy.
    """

    name: str
    ids: Sequence[str]
    accuracy: np.ndarray
    latency_ms: np.ndarray
    cost_usd: np.ndarray

    def __post_init__(self) -> None:
        # Frozen, so the conversions go through object.__setattr__ once, here.
        object.__setattr__(self, "ids", tuple(str(case_id) for case_id in self.ids))
        for name in ("accuracy", "latency_ms", "cost_usd"):
            object.__setattr__(self, name, np.asarray(getattr(self, name), dtype=float))
        lengths = {len(self.ids), len(self.accuracy), len(self.latency_ms), len(self.cost_usd)}
        if len(lengths) != 1:
            raise ValueError(
                f"Candidate {self.name!r}: ids, accuracy, latency_ms and cost_usd must have one length; got "
                f"{len(self.ids)}, {len(self.accuracy)}, {len(self.latency_ms)} and {len(self.cost_usd)}."
            )
        if not self.ids:
            raise ValueError(f"Candidate {self.name!r} has no cases; give it at least one scored case.")


@dataclass(frozen=True, eq=False)
class CandidateSummary:
    """Per-candidate means under one spec; arrays are indexed like ``names``.

    - ``weights``: the spec's weights in PARTS order, summing to 1.
    - ``mean_parts``: ``(k, 3)`` mean part scores (a missing measurement counts 0); a column is
      NaN for a part that is off (weight 0, no reference).
    - ``mean_reward``: ``weights . mean_parts`` (equal to the mean of the cases' rewards up to
      rounding).
    - ``mean_accuracy``: the mean accuracy part (the score itself, or the error's score under
      ``accuracy.reference``), so higher is better either way.
    - ``mean_latency_ms``, ``mean_cost_usd``: over measured cases only; NaN when none was measured.
    - ``pareto``: on the Pareto front of (accuracy up, latency down, cost down).
    """

    names: tuple[str, ...]
    weights: np.ndarray
    mean_parts: np.ndarray
    mean_reward: np.ndarray
    mean_accuracy: np.ndarray
    mean_latency_ms: np.ndarray
    mean_cost_usd: np.ndarray
    pareto: np.ndarray

    @property
    def winner(self) -> int:
        """Index of the candidate with the highest mean reward."""
        return int(np.argmax(self.mean_reward))


def summarize(candidates: Sequence[CandidateData], spec: Any) -> CandidateSummary:
    """Means, mean rewards and the Pareto front of ``candidates`` under ``spec`` (a dict or NormalizedSpec)."""
    if not candidates:
        raise ValueError(_("There are no candidates to compare; load a dataset with at least one candidate."))
    norm = validate_reward_spec(spec)
    weights = weight_vector(norm.weights)
    mean_parts = np.array(
        [reward_parts(c.accuracy, c.latency_ms, c.cost_usd, norm)[1].mean(axis=0) for c in candidates]
    )
    mean_latency = np.array([_measured_mean(c.latency_ms) for c in candidates])
    mean_cost = np.array([_measured_mean(c.cost_usd) for c in candidates])
    return CandidateSummary(
        names=tuple(c.name for c in candidates),
        weights=weights,
        mean_parts=mean_parts,
        mean_reward=mean_rewards(mean_parts, weights),
        mean_accuracy=mean_parts[:, 0],
        mean_latency_ms=mean_latency,
        mean_cost_usd=mean_cost,
        pareto=pareto_front(mean_parts[:, 0], mean_latency, mean_cost),
    )


def mean_rewards(mean_parts: ArrayLike, weights: ArrayLike) -> np.ndarray:
    """Mean reward per candidate from ``(k, 3)`` mean parts, for one ``(3,)`` or many ``(m, 3)`` weights.

    Returns ``(k,)`` or ``(m, k)``. A NaN part (off) counts 0. Every caller goes through here, so
    the winner at given weights is the same wherever it is computed.
    """
    parts = np.nan_to_num(np.asarray(mean_parts, dtype=float), nan=0.0)
    w = np.asarray(weights, dtype=float)
    grid = np.atleast_2d(w)
    rewards = grid[:, 0:1] * parts[:, 0] + grid[:, 1:2] * parts[:, 1] + grid[:, 2:3] * parts[:, 2]
    chosen: np.ndarray = rewards[0] if w.ndim == 1 else rewards
    return chosen


def pareto_front(accuracy: ArrayLike, latency_ms: ArrayLike, cost_usd: ArrayLike) -> np.ndarray:
    """Which candidates no other beats: none has accuracy as high, latency and cost as low, and one strictly better.

    A NaN mean counts as the worst value (an unmeasured latency never beats a measured one).
    Candidates with identical means are all on the front.
    """
    acc = np.nan_to_num(np.asarray(accuracy, dtype=float), nan=-np.inf)
    lat = np.nan_to_num(np.asarray(latency_ms, dtype=float), nan=np.inf)
    cost = np.nan_to_num(np.asarray(cost_usd, dtype=float), nan=np.inf)
    # better_eq[i, j]: candidate j is at least as good as candidate i on every axis.
    better_eq = (acc[None, :] >= acc[:, None]) & (lat[None, :] <= lat[:, None]) & (cost[None, :] <= cost[:, None])
    strictly = (acc[None, :] > acc[:, None]) | (lat[None, :] < lat[:, None]) | (cost[None, :] < cost[:, None])
    front: np.ndarray = ~(better_eq & strictly).any(axis=1)
    return front


def _measured_mean(values: np.ndarray) -> float:
    measured = values[~np.isnan(values)]
    return float(measured.mean()) if measured.size else float("nan")
