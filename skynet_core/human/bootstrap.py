"""Percentile bootstrap intervals over cases: scipy's resampling, every figure of a report in one pass.

A report's figures share their resamples: :func:`bootstrap` hands the statistics a block of
resamples as case positions (one row per resample, ``n`` positions drawn with replacement), and
they return one value per row for each figure, NaN where the figure is undefined on that resample
(a resample that repeats one case has no correlation). The draws are scipy.stats.bootstrap's, from
``numpy.random.default_rng(seed)``: the same cases and seed give the same intervals.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable

import numpy as np

from .estimate import Estimate, Undefined
from .report import MIN_LABELLED

RESAMPLES = 1000
"""Resamples per interval."""
SEED = 0
"""The fixed seed: the same data always gives the same figures."""
CONFIDENCE = 0.95
_BLOCK_CELLS = 4_000_000  # resamples x cases per block handed to the statistics: bounds the memory of a block

Statistics = Callable[[np.ndarray], np.ndarray]
"""Takes a block of draws (``(rows, n)`` case positions) and returns ``(figures, rows)`` values, NaN = undefined."""


def bootstrap(
    n: int, statistics: Statistics, figures: int, *, resamples: int = RESAMPLES, seed: int = SEED
) -> np.ndarray:
    """The ``(figures, resamples)`` values of ``statistics`` on ``resamples`` resamples of ``n`` cases.

    Fewer than :data:`.report.MIN_LABELLED` cases give no interval: every value is then NaN. Resamples of two
    cases are the two cases or one of them twice (undefined), so every defined one had the same value and the
    "interval" was a point, 1.000 [1.000, 1.000]; a handful of cases is hardly better.
    """
    if n < max(2, MIN_LABELLED) or resamples < 1:
        return np.full((figures, max(resamples, 0)), np.nan)
    from scipy.stats import DegenerateDataWarning
    from scipy.stats import bootstrap as scipy_bootstrap

    def statistic(draws: np.ndarray, axis: int = -1) -> np.ndarray:
        return statistics(np.asarray(draws, dtype=np.intp).reshape(-1, n))

    with warnings.catch_warnings():
        # NaN (undefined) resamples make scipy's own interval NaN; ours below leaves them out.
        warnings.simplefilter("ignore", DegenerateDataWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        result = scipy_bootstrap(
            (np.arange(n),),
            statistic,
            n_resamples=resamples,
            batch=max(1, _BLOCK_CELLS // n),
            vectorized=True,
            method="percentile",
            confidence_level=CONFIDENCE,
            rng=np.random.default_rng(seed),
        )
    return np.asarray(result.bootstrap_distribution, dtype=float).reshape(figures, resamples)


def interval(values: np.ndarray, confidence: float = CONFIDENCE) -> tuple[float | None, float | None]:
    """The percentile interval of the finite values (the resamples where the figure is defined), or
    ``(None, None)`` when there is none. The same quantiles as scipy.stats.bootstrap's percentile method."""
    finite = values[np.isfinite(values)]
    if not finite.size:
        return None, None
    tail = (1 - confidence) / 2
    low, high = np.quantile(finite, [tail, 1 - tail])
    return float(low), float(high)


def estimate(value: float | None, reason: Undefined | None, resampled: np.ndarray) -> Estimate:
    """An :class:`Estimate`: ``value`` with the interval of its ``resampled`` values, or undefined for ``reason``
    (a value that overflowed is too large, never "too few")."""
    if reason is not None or value is None:
        return Estimate.undefined(reason or Undefined.TOO_FEW)
    if not math.isfinite(value):
        return Estimate.undefined(Undefined.TOO_LARGE)
    low, high = interval(resampled)
    return Estimate(float(value), low, high)
