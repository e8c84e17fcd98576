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

from ...i18n import _

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

    def describe(self) -> str:
        """The value with its interval for people, signed to 3 decimals: "+0.250 (95% interval +0.100 to +0.400)";
        "-" without a value, the value alone without an interval."""
        if self.value is None:
            return "-"
        value = f"{self.value:+.3f}"
        if self.low is None or self.high is None:
            return value
        return _("{value} (95% interval {low} to {high})").format(
            value=value, low=f"{self.low:+.3f}", high=f"{self.high:+.3f}"
        )

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


def difference(later: Interval, earlier: Interval, confidence: float = CONFIDENCE) -> Interval:
    """``later − earlier`` for two means from independent experiments (two metric versions' feedback values), with
    Welch's t-interval: each side's standard error is read back from its own t-interval (half its width over its t
    quantile) and the degrees of freedom are Welch–Satterthwaite's. No interval when either side has none; ``n`` is
    the smaller side's."""
    if later.value is None or earlier.value is None:
        return Interval(None, None, None, 0)
    value = later.value - earlier.value
    n = min(later.n, earlier.n)
    first, second = _standard_error(later, confidence), _standard_error(earlier, confidence)
    if first is None or second is None:
        return Interval(value, None, None, n)
    (error_a, n_a), (error_b, n_b) = first, second
    spread = error_a**2 + error_b**2
    if spread == 0:
        return Interval(value, value, value, n)
    freedom = spread**2 / sum(error**4 / (count - 1) for error, count in ((error_a, n_a), (error_b, n_b)) if error)
    from scipy.special import stdtrit

    half = float(stdtrit(freedom, (1 + confidence) / 2)) * math.sqrt(spread)
    return Interval(value, value - half, value + half, n)


def _standard_error(interval: Interval, confidence: float) -> tuple[float, int] | None:
    """(standard error, n) of a t-interval, or ``None`` when it has no interval."""
    if interval.low is None or interval.high is None or interval.value is None or interval.n < 2:
        return None
    from scipy.special import stdtrit

    return (interval.high - interval.low) / 2 / float(stdtrit(interval.n - 1, (1 + confidence) / 2)), interval.n
