"""Noise GEPA would accept: how often an unchanged candidate passes GEPA's acceptance test on a judge's noise alone.

GEPA keeps a proposal when its scores on a minibatch (3 cases by default) sum to strictly more than its
parent's on the same cases. Give it the parent's own text back and a deterministic metric scores both the
same, so the proposal is rejected; a model-as-judge that scores the same output differently from call to
call lets the copy win by chance, and the optimizer then chases that noise.

:func:`noise_acceptance` estimates that chance from :func:`~skynet_core.judge.judge_consistency`'s runs: each
case's repeated scores are taken as the judge's distribution on that case, and the chance is computed
exactly (the parent's and the copy's scores are independent draws from it), averaged over every minibatch
of distinct cases (a seeded sample of them when there are very many). It also computes the chance when every
case's score is the median of several votes (the majority, for pass/fail), one of the two things that
lower it; the other is temperature 0 for the metric model.
"""

from __future__ import annotations

import itertools
import math
import random
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..i18n import _, format_number
from .consistency import Consistency

GEPA_MINIBATCH = 3
DEFAULT_VOTES = 3
MAX_MINIBATCHES = 2_000  # above this many minibatches, a seeded sample of them
_DIGITS = 9  # scores equal to 9 decimals are the same score

Distribution = Mapping[float, float]
"""Score → probability."""


@dataclass(frozen=True)
class NoiseAcceptance:
    """How often an unchanged candidate would score strictly higher than its parent on a minibatch.

    ``rate`` is that chance with one judge call per case, as the consistency runs judged; ``voted_rate`` with
    the median of ``votes`` calls per case. Both lie in [0, 0.5] (the copy and the parent are exchangeable, so
    it wins at most half the time) and are ``None`` when no case was scored twice. ``cases`` counts the cases
    scored at least twice (what the estimate rests on), ``minibatch`` the cases per minibatch used (GEPA's 3,
    or all cases when there are fewer).
    """

    rate: float | None
    voted_rate: float | None
    minibatch: int
    cases: int
    votes: int = DEFAULT_VOTES

    def describe(self) -> str:
        """One paragraph for people: the chance, and what lowers it."""
        if self.rate is None:
            return _("No case was scored twice, so the noise GEPA would accept cannot be estimated; see the errors.")
        if self.rate == 0:
            return _(
                "The judge gave each case the same score every time, so GEPA would never accept an unchanged "
                "candidate on noise alone."
            )
        return _(
            "An unchanged candidate would pass GEPA's acceptance test (a strictly higher sum on a minibatch of "
            "{minibatch}) in {rate} of tries: the optimizer would accept noise that often. The median of {votes} "
            "votes per case (the majority, for pass/fail) would bring it to {voted}; temperature 0 for the metric "
            "model lowers it too."
        ).format(
            minibatch=self.minibatch,
            rate=_percent(self.rate),
            votes=self.votes,
            voted=_percent(self.voted_rate or 0.0),
        )


def noise_acceptance(
    consistency: Consistency, minibatch: int = GEPA_MINIBATCH, votes: int = DEFAULT_VOTES, seed: int = 0
) -> NoiseAcceptance:
    """The noise GEPA would accept on a minibatch of ``minibatch`` cases, from ``consistency``'s repeated scores;
    ``votes`` (odd) is the number of calls whose median the voted rate takes."""
    if minibatch < 1:
        raise ValueError(f"minibatch must be at least 1, not {minibatch}")
    if votes < 1 or votes % 2 == 0:
        raise ValueError(f"votes must be an odd number, 1 or more, not {votes}")
    judged = [_distribution(case.scores) for case in consistency.compared]
    size = min(minibatch, len(judged))
    if not judged:
        return NoiseAcceptance(None, None, minibatch, 0, votes)
    voted = [_median_of(distribution, votes) for distribution in judged]
    return NoiseAcceptance(_win_rate(judged, size, seed), _win_rate(voted, size, seed), size, len(judged), votes)


def _distribution(scores: Sequence[float]) -> dict[float, float]:
    counts = Counter(round(score, _DIGITS) for score in scores)
    return {score: count / len(scores) for score, count in counts.items()}


def _median_of(distribution: Distribution, votes: int) -> dict[float, float]:
    """The distribution of the median of ``votes`` independent draws from ``distribution``."""
    needed = votes // 2 + 1  # the median is at most v when at least this many draws are
    found: dict[float, float] = {}
    below = 0.0  # P(median <= the previous value)
    cumulative = 0.0
    for value in sorted(distribution):
        cumulative = min(1.0, cumulative + distribution[value])
        at_most = sum(
            math.comb(votes, k) * cumulative**k * (1 - cumulative) ** (votes - k) for k in range(needed, votes + 1)
        )
        found[value] = at_most - below
        below = at_most
    return found


def _win_rate(distributions: Sequence[Distribution], size: int, seed: int) -> float:
    """The chance that a minibatch's summed scores are strictly higher for the copy than for its parent, averaged
    over minibatches of ``size`` distinct cases.

    Both sums are independent draws from the same distribution ``S``, so the copy wins with probability
    ``(1 - P(tie)) / 2`` where ``P(tie)`` is the sum of ``S``'s squared probabilities.
    """
    total = 0.0
    count = 0
    for batch in _minibatches(len(distributions), size, seed):
        summed: dict[float, float] = {0.0: 1.0}
        for index in batch:
            summed = _convolve(summed, distributions[index])
        total += (1.0 - sum(p * p for p in summed.values())) / 2
        count += 1
    return total / count


def _convolve(left: Distribution, right: Distribution) -> dict[float, float]:
    found: dict[float, float] = {}
    for (a, p), (b, q) in itertools.product(left.items(), right.items()):
        key = round(a + b, _DIGITS)
        found[key] = found.get(key, 0.0) + p * q
    return found


def _minibatches(population: int, size: int, seed: int) -> Iterable[tuple[int, ...]]:
    """Every set of ``size`` distinct cases, or a seeded sample of :data:`MAX_MINIBATCHES` of them."""
    if math.comb(population, size) <= MAX_MINIBATCHES:
        return itertools.combinations(range(population), size)
    rng = random.Random(f"judge-noise/{seed}")
    return [tuple(rng.sample(range(population), size)) for _draw in range(MAX_MINIBATCHES)]


def _percent(share: float) -> str:
    return format_number(100.0 * share, 1) + "%"
