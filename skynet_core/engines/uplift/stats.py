"""The statistics of an uplift experiment: a mean over seeds and its 95% interval.

The interval is Student's t-interval (the t quantile from ``scipy.special.stdtrit``, which imports in a
fraction of ``scipy.stats``'s time), not a bootstrap: an experiment has few seeds
(3 by default), and a bootstrap of 3 values has only 10 distinct resamples and an interval that is far
too narrow, while the t-interval widens as it should when there are few values. It assumes the per-seed
values are roughly normal around their mean, which a mean of many validation cases tends to be.

The feedback value is paired: seed ``s`` of the feedback arm and seed ``s`` of the score-only arm read
the same minibatches, so the interval is the t-interval of the per-seed differences.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

CONFIDENCE = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean of ``n`` values with its 95% t-interval.

    ``value`` is ``None`` when there are no values; ``low`` and ``high`` are ``None`` with fewer than two
    (a single seed has no spread to measure). When set, ``low <= value <= high``; equal values give an
    interval of zero width.
    """

    value: float | None
    low: float | None
    high: float | None
    n: int

    @property
    def excludes_zero(self) -> bool:
        """Whether the whole interval lies on one side of 0: the effect is there at the 95% level."""
        return self.low is not None and self.high is not None and (self.low > 0 or self.high < 0)

    def to_json(self) -> dict[str, Any]:
        """``{"value", "low", "high"}``: the command line's and the store's shape."""
        return {"value": self.value, "low": self.low, "high": self.high}

    @classmethod
    def from_json(cls, data: Any, n: int) -> Interval:
        data = data if isinstance(data, dict) else {}
        return cls(_number(data.get("value")), _number(data.get("low")), _number(data.get("high")), n)


def mean_interval(values: Sequence[float], confidence: float = CONFIDENCE) -> Interval:
    """The mean of ``values`` and its t-interval at ``confidence`` (95% by default)."""
    if not values:
        return Interval(None, None, None, 0)
    mean = statistics.fmean(values)
    if len(values) < 2:
        return Interval(mean, None, None, len(values))
    error = statistics.stdev(values) / math.sqrt(len(values))
    if error == 0:
        return Interval(mean, mean, mean, len(values))
    from scipy.special import stdtrit

    half = float(stdtrit(len(values) - 1, (1 + confidence) / 2)) * error
    return Interval(mean, mean - half, mean + half, len(values))


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None
