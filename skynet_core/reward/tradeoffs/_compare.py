"""Two weight sets side by side: each candidate's reward and rank under both, and the cases whose rank moves."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from skynet_core.reward.parts import reward_parts, weight_vector

from ._summary import CandidateData, CandidateSummary, mean_rewards


@dataclass(frozen=True, eq=False)
class WeightComparison:
    """Candidates under two weight sets A and B (same references): mean rewards, ranks (1 best), winners."""

    names: tuple[str, ...]
    weights_a: np.ndarray
    weights_b: np.ndarray
    reward_a: np.ndarray
    reward_b: np.ndarray
    rank_a: np.ndarray
    rank_b: np.ndarray

    @property
    def winner_a(self) -> int:
        return int(np.argmax(self.reward_a))

    @property
    def winner_b(self) -> int:
        return int(np.argmax(self.reward_b))


@dataclass(frozen=True, eq=False)
class CaseRankChanges:
    """One candidate's cases ranked by reward under A and under B (1: best; ties share the better rank).

    Only the cases whose rank differs are held, largest move first (then by rank under A);
    ``change`` is ``rank_a - rank_b``, so a positive change means the case ranks higher under B.
    ``total`` counts all the candidate's cases.
    """

    candidate: str
    ids: tuple[str, ...]
    rank_a: np.ndarray
    rank_b: np.ndarray
    change: np.ndarray
    reward_a: np.ndarray
    reward_b: np.ndarray
    total: int


def ranks(values: ArrayLike) -> np.ndarray:
    """Competition ranks, highest value first: 1 + how many values are strictly higher (ties share a rank)."""
    v = -np.asarray(values, dtype=float)
    return np.searchsorted(np.sort(v), v, side="left") + 1


def compare_weights(
    summary: CandidateSummary, weights_a: Mapping[str, float], weights_b: Mapping[str, float]
) -> WeightComparison:
    """Each candidate's mean reward and rank under weights A and B (the summary's references for both)."""
    a, b = weight_vector(weights_a), weight_vector(weights_b)
    reward_a = mean_rewards(summary.mean_parts, a)
    reward_b = mean_rewards(summary.mean_parts, b)
    return WeightComparison(summary.names, a, b, reward_a, reward_b, ranks(reward_a), ranks(reward_b))


def case_rank_changes(
    candidate: CandidateData, spec: Any, weights_a: Mapping[str, float], weights_b: Mapping[str, float]
) -> CaseRankChanges:
    """Which of ``candidate``'s cases change rank between weights A and B, under ``spec``'s references."""
    _, parts = reward_parts(candidate.accuracy, candidate.latency_ms, candidate.cost_usd, spec)
    counted = np.nan_to_num(parts, nan=0.0)
    reward_a = counted @ weight_vector(weights_a)
    reward_b = counted @ weight_vector(weights_b)
    rank_a, rank_b = ranks(reward_a), ranks(reward_b)
    change = rank_a - rank_b
    moved = np.flatnonzero(change)
    order = moved[np.lexsort((rank_a[moved], -np.abs(change[moved])))]
    return CaseRankChanges(
        candidate=candidate.name,
        ids=tuple(candidate.ids[i] for i in order),
        rank_a=rank_a[order],
        rank_b=rank_b[order],
        change=change[order],
        reward_a=reward_a[order],
        reward_b=reward_b[order],
        total=len(candidate.ids),
    )


def unmeasured(values: ArrayLike) -> int:
    """How many cases have no measurement (NaN): each scores 0 on that part."""
    return int(np.isnan(np.asarray(values, dtype=float)).sum())
