"""Which candidate wins under which weights, and how firmly: the maths of the Reward trade-offs page.

A candidate is one version of the artifact, scored over the same kind of cases. Everything here
starts from stored values (the accuracy each case passed to ``reward`` and its observation), so
nothing re-runs the metric.

The fact the page leans on: a candidate's mean reward is linear in the weights,
``mean(w . p_i) = w . mean(p_i)``. Once each candidate's three mean part scores are known, the
mean reward under any weights costs three multiplications, so the whole simplex map costs
(grid points x candidates) whatever the number of cases. Ties go to the earlier candidate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from skynet_core.i18n import _
from skynet_core.reward import PARTS, reward_parts, validate_reward_spec, weight_vector
from skynet_core.tradeoff_weights import PART_LABELS as PART_LABELS
from skynet_core.tradeoff_weights import controls_from_spec as controls_from_spec
from skynet_core.tradeoff_weights import renormalize as renormalize
from skynet_core.tradeoff_weights import shares_text as shares_text
from skynet_core.tradeoff_weights import spec_from_controls as spec_from_controls
from skynet_core.tradeoff_weights import weights_from_point as weights_from_point

# Rows of (perturbations x cases) computed at once when perturbing references; bounds memory for big datasets.
_CHUNK_CELLS = 4_000_000


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


def _measured_mean(values: np.ndarray) -> float:
    measured = values[~np.isnan(values)]
    return float(measured.mean()) if measured.size else float("nan")


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


# --- who wins, as the page shows it ------------------------------------------------------------------


@dataclass(frozen=True, eq=False)
class Verdict:
    """Who wins at the current weights, and how firmly: what the page's "Who wins" section shows.

    ``grid`` is the winner map (``None`` when it cannot be drawn: ``grid_problem`` says why); ``change``
    the nearest weights where another candidate wins (``None`` without a map); ``winner`` indexes the
    summary's names: the map's winner at these weights when there is a map, else the summary's (the two
    agree but for ties); ``stability`` the ranking under perturbed weights and references.
    """

    winner: int
    grid: WinnerMap | None
    grid_problem: str
    change: WinnerChange | None
    stability: Stability


def who_wins(
    candidates: Sequence[CandidateData],
    summary: CandidateSummary,
    spec: Any,
    *,
    step: float = 0.02,
    perturbations: int = 200,
    spread: float = 0.10,
) -> Verdict:
    """The :class:`Verdict` for ``candidates`` under ``spec`` (``summary``: :func:`summarize` of them)."""
    norm = validate_reward_spec(spec)
    try:
        grid, problem = winner_map(summary, step), ""
    except ValueError as exc:
        grid, problem = None, str(exc)
    change = nearest_change(summary, grid, norm.weights) if grid is not None else None
    winner = change.winner if change is not None else summary.winner
    stability = rank_stability(candidates, norm, n=perturbations, spread=spread)
    return Verdict(winner, grid, problem, change, stability)


# --- two weight sets side by side ------------------------------------------------------------


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
