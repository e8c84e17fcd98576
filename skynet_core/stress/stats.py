"""The mean change of each perturbation's scores with its 95% percentile bootstrap interval over cases, every
perturbation in one pass, seeded: the same scores and seed give the same intervals.

The cases are resampled once for the whole run: each resample draws case positions, and each perturbation's
figure on it is the mean change over the drawn cases it changed (NaN, left out of its interval, when it changed
none of them). A case counts with all its perturbations at once, as it would in a run on other cases.

The draws are exactly scipy.stats.bootstrap's, as :mod:`skynet_core.human.bootstrap` makes them (its resamples,
seed and confidence, and its :func:`~skynet_core.human.bootstrap.interval`): ``numpy.random.default_rng(seed)``'s
integers, one block of ``(resamples, n)`` positions. They are drawn here with numpy alone: importing scipy.stats
costs 1.3 s of CPU, more than the rest of a 1,000-case run's own work (a test holds the two to the same numbers).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..engines.uplift.stats import Interval
from ..human.bootstrap import RESAMPLES, SEED, interval

_BLOCK_CELLS = 4_000_000  # resampled positions held at once: bounds the memory of a block, as human.bootstrap's


def resampled_means(sums: np.ndarray, hits: np.ndarray, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """``(rows, resamples)`` means: for each row, over each resample of the ``n`` case positions, the sum of
    ``sums`` (a row's value per case, 0 where it has none) over the drawn cases divided by the count of ``hits``
    (1 where the row has a value, else 0); NaN where a resample drew none of a row's cases."""
    rows, n = sums.shape
    found = np.empty((rows, resamples))
    rng = np.random.default_rng(seed)
    block = max(1, _BLOCK_CELLS // n)
    for start in range(0, resamples, block):
        size = min(block, resamples - start)
        draws = rng.integers(0, n, (size, n))  # what scipy.stats.bootstrap draws (rng_integers, one batch)
        with np.errstate(invalid="ignore", divide="ignore"):
            for row in range(rows):
                found[row, start : start + size] = sums[row][draws].sum(axis=1) / hits[row][draws].sum(axis=1)
    return found


def mean_changes(changes: Sequence[Sequence[float | None]], seed: int = SEED) -> list[Interval]:
    """One :class:`Interval` per row of ``changes``: each row holds, per case of the run (the same cases in every
    row), the change after − before, or ``None`` where the perturbation did not change the case.

    A row without changes has no value; with one, no interval (nothing to resample); with every change the same,
    an interval of zero width (every resample has that mean)."""
    if not changes:
        return []
    values = np.array([[np.nan if item is None else item for item in row] for row in changes], dtype=float)
    present = ~np.isnan(values)
    filled = np.where(present, values, 0.0)
    counts = present.sum(axis=1)
    found: list[Interval | None] = []
    for index, count in enumerate(counts):
        n, taken = int(count), values[index][present[index]]
        mean = float(taken.mean()) if n else None
        if mean is None:
            found.append(Interval(None, None, None, 0))
        elif n < 2:
            found.append(Interval(mean, None, None, n))
        elif bool(np.all(taken == taken[0])):
            found.append(Interval(mean, mean, mean, n))
        else:
            found.append(None)  # resampled below, with the others
    wanted = [index for index, item in enumerate(found) if item is None]
    if wanted and values.shape[1] >= 2:
        means = resampled_means(filled[wanted], present[wanted].astype(float), seed=seed)
        for index, resampled in zip(wanted, means, strict=True):
            low, high = interval(resampled)
            found[index] = Interval(float(values[index][present[index]].mean()), low, high, int(counts[index]))
    return [item if item is not None else Interval(None, None, None, 0) for item in found]


def mean_change(changes: Sequence[float], seed: int = SEED) -> Interval:
    """The mean of ``changes`` (after − before, one per case) and its percentile bootstrap interval."""
    return mean_changes([list(changes)], seed)[0]
