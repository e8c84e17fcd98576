"""The mean change of a perturbation's scores with its 95% bootstrap interval: the studio's seeded percentile
bootstrap over cases (:mod:`skynet_core.human.bootstrap`, scipy's resampling), so the same scores and seed give
the same interval."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engines.uplift.stats import Interval
from ..human.bootstrap import bootstrap, interval


def mean_change(changes: Sequence[float], seed: int = 0) -> Interval:
    """The mean of ``changes`` (after − before, one per case) and its percentile bootstrap interval.

    No value without changes; no interval with one (nothing to resample); an interval of zero width when every
    change is the same (every resample has that mean)."""
    n = len(changes)
    if not n:
        return Interval(None, None, None, 0)
    values = np.asarray(changes, dtype=float)
    mean = float(values.mean())
    if n < 2:
        return Interval(mean, None, None, n)
    if bool(np.all(values == values[0])):
        return Interval(mean, mean, mean, n)
    resampled = bootstrap(n, lambda draws: values[draws].mean(axis=1)[np.newaxis, :], 1, seed=seed)
    low, high = interval(resampled[0])
    return Interval(mean, low, high, n)
