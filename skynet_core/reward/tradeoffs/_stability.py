"""How firmly the ranking holds when the references move: Kendall's tau over perturbed references."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from skynet_core.reward.parts import PARTS, validate_reward_spec

from ._summary import CandidateData, summarize

# Rows of (perturbations x cases) computed at once when perturbing references; bounds memory for big datasets.
_CHUNK_CELLS = 4_000_000


@dataclass(frozen=True, eq=False)
class Stability:
    """How firmly the ranking holds when weights and references move by up to ``spread``.

    ``taus`` holds Kendall's tau between the base ranking and each perturbed one (1: same order,
    -1: reversed); ``mean_tau`` is their mean; ``winner_kept`` the share of perturbations in which
    the base winner still wins.
    """

    mean_tau: float
    winner_kept: float
    taus: np.ndarray
    spread: float


def kendall_tau(base: ArrayLike, others: ArrayLike) -> np.ndarray:
    """Kendall's tau-b between the order of ``base`` (k values) and each row of ``others`` (``(k,)`` or ``(p, k)``).

    1 when every pair of candidates is in the same order, -1 when every pair is reversed. A pair
    tied in either ranking counts neither way (tau-b). With fewer than two candidates, or when
    both rankings are all ties, tau is 1 (nothing is reordered); when only one is all ties, 0.
    Returns shape ``others.shape[:-1]``.
    """
    a = np.asarray(base, dtype=float)
    b = np.asarray(others, dtype=float)
    rows = np.atleast_2d(b)
    i, j = np.triu_indices(len(a), k=1)
    sign_a = np.sign(a[i] - a[j])
    sign_b = np.sign(rows[:, i] - rows[:, j])
    concordance = (sign_b * sign_a).sum(axis=1)
    untied_a = np.count_nonzero(sign_a)
    untied_b = np.count_nonzero(sign_b, axis=1)
    denominator = np.sqrt(untied_a * untied_b)
    both_tied = (untied_a == 0) & (untied_b == 0)
    safe = np.where(denominator > 0, denominator, 1.0)
    taus = np.where(denominator > 0, concordance / safe, np.where(both_tied, 1.0, 0.0))
    return taus[0] if b.ndim == 1 else taus


def rank_stability(
    candidates: Sequence[CandidateData], spec: Any, n: int = 200, spread: float = 0.10, seed: int = 0
) -> Stability:
    """Kendall's tau between the ranking under ``spec`` and under ``n`` seeded perturbations of it.

    Each perturbation multiplies every weight and every reference by its own factor drawn
    uniformly from ``[1 - spread, 1 + spread]`` (weights are then scaled to sum 1, so a weight of
    0 stays 0). The same ``seed`` gives the same result.
    """
    if not 0 <= spread < 1:
        raise ValueError(f"spread must be at least 0 and below 1; got {spread}.")
    norm = validate_reward_spec(spec)
    base = summarize(candidates, norm)
    rng = np.random.default_rng(seed)
    weights = base.weights * rng.uniform(1 - spread, 1 + spread, size=(n, 3))
    weights /= weights.sum(axis=1, keepdims=True)
    factors = rng.uniform(1 - spread, 1 + spread, size=(n, 3))
    perturbed = np.empty((n, len(candidates)))
    for index, candidate in enumerate(candidates):
        parts = np.zeros((n, 3))
        if norm.accuracy_ref is None:
            parts[:, 0] = base.mean_parts[index, 0]
        else:
            parts[:, 0] = _mean_part_scores(candidate.accuracy, norm.accuracy_ref * factors[:, 0])
        for column, x in ((1, candidate.latency_ms), (2, candidate.cost_usd)):
            ref = norm.reference(PARTS[column])
            if ref is not None:
                parts[:, column] = _mean_part_scores(x, ref * factors[:, column])
        perturbed[:, index] = weights[:, 0] * parts[:, 0] + weights[:, 1] * parts[:, 1] + weights[:, 2] * parts[:, 2]
    taus = kendall_tau(base.mean_reward, perturbed)
    kept = np.argmax(perturbed, axis=1) == base.winner
    return Stability(mean_tau=float(taus.mean()), winner_kept=float(kept.mean()), taus=taus, spread=spread)


def _mean_part_scores(x: np.ndarray, refs: np.ndarray) -> np.ndarray:
    """For each reference, the mean over all cases of ``ref / (ref + x)``; an unmeasured (NaN) case scores 0."""
    measured = np.maximum(x[~np.isnan(x)], 0.0)
    means = np.zeros(len(refs))
    if measured.size == 0:
        return means
    rows = max(1, _CHUNK_CELLS // measured.size)
    for start in range(0, len(refs), rows):
        chunk = refs[start : start + rows, None]
        means[start : start + rows] = (chunk / (chunk + measured[None, :])).sum(axis=1) / len(x)
    return means
