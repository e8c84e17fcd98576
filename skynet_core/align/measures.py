"""How far a judge agrees with people on some cases: the objective GEPA maximizes, and the figures reported.

The objective of a set of cases: the mean agreement per case (:meth:`.labelled.Scale.agreement`: a match at the
threshold for pass/fail, ``1 - |judge - human| / span`` for a numeric scale) minus the absolute mean signed bias
(on the scale's span), so that a judge is not rewarded for trading false passes for false fails. A case the
metric could not score counts as no agreement and no bias.

The figures (each with a seeded 95% percentile bootstrap interval over the cases, from
:mod:`skynet_core.human.bootstrap`): Cohen's κ at the threshold, Spearman's ρ (:func:`spearman_estimate`), the
accuracy at the threshold and the mean signed bias; and the paired gain of κ between two judges on the same
cases, each resample drawing the same cases for both.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from ..human.bootstrap import RESAMPLES, bootstrap, estimate
from ..human.estimate import Estimate, Undefined
from ..human.statistics import kappa_of, spearman_estimate
from .labelled import RaterPair, Scale

Floats = npt.NDArray[np.float64]
Judged = Mapping[str, float]
"""The judge's score of each case it scored, by case id."""


def objective(judged: Judged, humans: Judged, scale: Scale, ids: Sequence[str]) -> float:
    """The objective of the judge's scores ``judged`` against the human scores ``humans`` on the cases ``ids`` (see
    the module's docstring); 0 for no case."""
    if not ids:
        return 0.0
    return float(np.mean(per_case(judged, humans, scale, ids)))


def per_case(judged: Judged, humans: Judged, scale: Scale, ids: Sequence[str]) -> list[float]:
    """Each case's share of the objective: its agreement minus the absolute mean bias of ``ids``; their mean is the
    objective, so GEPA's mean over a minibatch or over dev is the objective there."""
    scored = [case_id for case_id in ids if case_id in judged]
    bias = float(np.mean([scale.bias(judged[i], humans[i]) for i in scored])) / scale.span if scored else 0.0
    return [
        (scale.agreement(judged[case_id], humans[case_id]) if case_id in judged else 0.0) - abs(bias) for case_id in ids
    ]


@dataclass(frozen=True)
class Figures:
    """A judge's agreement with people on ``n`` scored cases, each figure with its interval (``objective``: the
    objective on the same cases, a plain number)."""

    kappa: Estimate
    spearman: Estimate
    accuracy: Estimate
    bias: Estimate
    n: int
    objective: float

    def to_json(self) -> dict[str, Any]:
        """``{"kappa", "spearman", "accuracy", "bias"}``, each ``{"value", "low", "high"}``, and ``"n"``."""
        figures = {"kappa": self.kappa, "spearman": self.spearman, "accuracy": self.accuracy, "bias": self.bias}
        return {**{name: value.to_json() for name, value in figures.items()}, "n": self.n}


def figures(
    judged: Judged, humans: Judged, scale: Scale, ids: Sequence[str], *, seed: int = 0, resamples: int = RESAMPLES
) -> Figures:
    """The figures of the judge's scores ``judged`` against ``humans`` on the cases ``ids`` it scored (a case it
    failed on is left out of them). Two raters compare the same way, one of them as the judge."""
    scored = [case_id for case_id in ids if case_id in judged]
    judge = np.array([judged[i] for i in scored], dtype=float)
    human = np.array([humans[i] for i in scored], dtype=float)
    n = len(scored)
    if not n:
        nothing = Estimate.undefined(Undefined.TOO_FEW)
        return Figures(nothing, nothing, nothing, nothing, 0, objective(judged, humans, scale, ids))
    statistics = _statistics(judge, human, scale)
    points = statistics(np.arange(n)[np.newaxis])[:, 0]
    resampled = bootstrap(n, statistics, 3, resamples=resamples, seed=seed)
    kappa, accuracy, bias = (
        estimate(None if np.isnan(value) else float(value), reason if np.isnan(value) else None, values)
        for value, values, reason in zip(
            points, resampled, (Undefined.ONE_CLASS, Undefined.TOO_FEW, Undefined.TOO_FEW), strict=True
        )
    )
    spearman = spearman_estimate(judge, human, resamples=resamples, seed=seed)
    return Figures(kappa, spearman, accuracy, bias, n, objective(judged, humans, scale, ids))


def paired_gain(
    before: Judged,
    after: Judged,
    humans: Judged,
    scale: Scale,
    ids: Sequence[str],
    *,
    seed: int = 0,
    resamples: int = RESAMPLES,
) -> Estimate:
    """κ after minus κ before on the cases of ``ids`` both judges scored, with the interval of the same difference
    over resamples that draw the same cases for both."""
    both = [case_id for case_id in ids if case_id in before and case_id in after]
    human = np.array([humans[i] for i in both], dtype=float)
    first = _statistics(np.array([before[i] for i in both], dtype=float), human, scale)
    second = _statistics(np.array([after[i] for i in both], dtype=float), human, scale)

    def gain(draws: npt.NDArray[np.intp]) -> Floats:
        result: Floats = (second(draws)[0] - first(draws)[0])[np.newaxis]
        return result

    if not both:
        return Estimate.undefined(Undefined.TOO_FEW)
    value = float(gain(np.arange(len(both))[np.newaxis])[0, 0])
    reason = Undefined.ONE_CLASS if np.isnan(value) else None
    return estimate(None if reason else value, reason, bootstrap(len(both), gain, 1, resamples=resamples, seed=seed)[0])


def _statistics(judge: Floats, human: Floats, scale: Scale) -> Any:
    """The bootstrap's statistics: per resample (a row of case positions) κ at the threshold, the accuracy and the
    mean signed bias, NaN where κ is undefined (every case on one side for both)."""
    judge_pass, human_pass = judge >= scale.threshold, human >= scale.threshold
    signed = (judge_pass.astype(float) - human_pass.astype(float)) if scale.pass_fail else judge - human

    def rows(draws: npt.NDArray[np.intp]) -> Floats:
        m, h = judge_pass[draws], human_pass[draws]
        tp, fp = (m & h).sum(axis=1).astype(float), (m & ~h).sum(axis=1).astype(float)
        fn, tn = (~m & h).sum(axis=1).astype(float), (~m & ~h).sum(axis=1).astype(float)
        accuracy = (tp + tn) / draws.shape[1]
        result: Floats = np.vstack([kappa_of(tp, fp, fn, tn), accuracy, signed[draws].mean(axis=1)])
        return result

    return rows


def ceiling(pairs: Sequence[RaterPair], scale: Scale, *, seed: int = 0) -> list[tuple[RaterPair, Figures]]:
    """Each pair of raters' agreement with each other, the first rater taken as the judge: the ceiling a judge can
    reach on these labels."""
    found = []
    for pair in pairs:
        ids = list(pair.scores)
        first = {case_id: scores[0] for case_id, scores in pair.scores.items()}
        second = {case_id: scores[1] for case_id, scores in pair.scores.items()}
        found.append((pair, figures(first, second, scale, ids, seed=seed)))
    return found
