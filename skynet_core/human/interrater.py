"""Agreement between two raters: Krippendorff's α at the interval level, and the cases they disagree on.

Two people's agreement is the ceiling a metric can be expected to reach: a metric that agrees with
one rater better than the other rater does is fitting that person's habits.

For two raters at the interval level α has a closed form. With ``u`` cases rated by both, their
``N = 2u`` values ``v`` and each case's two scores ``a`` and ``b``::

    α = 1 - (N - 1) · Σ (a - b)² / (N · Σ (v - mean v)²)

which is Krippendorff's ``1 - D_o / D_e`` with the coincidences of two values per case written
out. The ``krippendorff`` package computes the same from a coincidence matrix over the distinct
values, which for 1,000 resamples of continuous scores takes minutes; the form above takes all the
resamples at once, and the tests check it against the package. Cases rated by only one of the
two cannot be paired and are left out, as α does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from .bootstrap import RESAMPLES, SEED, bootstrap, estimate
from .estimate import Estimate, Undefined
from .statistics import rescaled

Floats = npt.NDArray[np.float64]


@dataclass(frozen=True)
class RaterDisagreement:
    """A case the two raters scored differently: ``gap`` = ``|first - second|`` > 0."""

    id: str
    first: float
    second: float
    gap: float


@dataclass(frozen=True)
class RaterAgreement:
    """How well two raters agree.

    ``n`` cases were scored by both (α and its interval are computed on them); ``only_first`` and
    ``only_second`` count the cases only one of them scored. ``alpha`` is Krippendorff's α at the
    interval level (1: the same scores; 0: no better than chance; below 0: worse), with its 95%
    percentile bootstrap interval over the cases. ``disagreements`` are the cases with a gap above
    0, largest first.
    """

    first: str
    second: str
    n: int
    only_first: int
    only_second: int
    alpha: Estimate
    disagreements: tuple[RaterDisagreement, ...] = ()


def alpha_interval(first: Floats, second: Floats) -> float | None:
    """Krippendorff's α (interval) of two raters' scores of the same cases, or ``None`` when undefined
    (fewer than two cases: one case's two values always give 0; or every value the same). α is scale-free: huge
    values are rescaled first (:func:`.statistics.rescaled`), so no sum of squares overflows."""
    if len(first) < 2:
        return None
    values, scale = rescaled(np.concatenate([first, second]))
    first, second = first / scale, second / scale
    spread = float(np.sum((values - values.mean()) ** 2)) if values.size else 0.0
    if spread == 0:
        return None
    total = values.size
    return 1 - (total - 1) * float(np.sum((first - second) ** 2)) / (total * spread)


def _alpha_rows(first: Floats, second: Floats) -> Floats:
    """α of each row (one resample a row), NaN where every value of the row is the same."""
    values = np.concatenate([first, second], axis=1)
    spread = np.sum((values - values.mean(axis=1, keepdims=True)) ** 2, axis=1)
    total = values.shape[1]
    gaps = np.sum((first - second) ** 2, axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = 1 - (total - 1) * gaps / (total * spread)
    result: Floats = np.where(spread == 0, np.nan, alpha)
    return result


def rater_agreement(
    first: Mapping[str, float],
    second: Mapping[str, float],
    *,
    names: tuple[str, str] = ("", ""),
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> RaterAgreement:
    """α between two raters' scores (by case id, on the metric's scale) and the cases they disagree on."""
    both = [case_id for case_id in first if case_id in second]
    a = np.array([first[case_id] for case_id in both], dtype=float)
    b = np.array([second[case_id] for case_id in both], dtype=float)
    value = alpha_interval(a, b)
    reason = Undefined.TOO_FEW if len(both) < 2 else Undefined.CONSTANT_RATINGS if value is None else None
    scale = rescaled(np.concatenate([a, b]))[1]

    def figures(draws: npt.NDArray[np.intp]) -> Floats:
        return _alpha_rows(a[draws] / scale, b[draws] / scale)[np.newaxis]

    alpha = estimate(value, reason, bootstrap(len(both), figures, 1, resamples=resamples, seed=seed)[0])
    found = [
        RaterDisagreement(case_id, first[case_id], second[case_id], abs(first[case_id] - second[case_id]))
        for case_id in both
        if first[case_id] != second[case_id]
    ]
    found.sort(key=lambda item: (-item.gap, item.id))
    return RaterAgreement(
        first=names[0],
        second=names[1],
        n=len(both),
        only_first=sum(1 for case_id in first if case_id not in second),
        only_second=sum(1 for case_id in second if case_id not in first),
        alpha=alpha,
        disagreements=tuple(found),
    )
