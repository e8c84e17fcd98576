"""Two metric versions' feedback values side by side: the difference of two independent means with Welch's interval,
read back from each side's own t-interval, and an interval as people read it."""

from __future__ import annotations

import math
import statistics

import pytest
from scipy import stats

from skynet_core.engines.uplift.stats import Interval, difference, mean_interval


def welch(a: list[float], b: list[float]) -> tuple[float, float]:
    """The 95% Welch interval of mean(a) − mean(b), straight from the samples (the reference)."""
    va, vb = statistics.variance(a) / len(a), statistics.variance(b) / len(b)
    freedom = (va + vb) ** 2 / (va**2 / (len(a) - 1) + vb**2 / (len(b) - 1))
    half = stats.t.ppf(0.975, freedom) * math.sqrt(va + vb)
    centre = statistics.fmean(a) - statistics.fmean(b)
    return centre - half, centre + half


def test_the_difference_of_two_versions_values_has_welchs_interval_from_their_own_intervals() -> None:
    later, earlier = [0.30, 0.45, 0.50, 0.41], [0.05, -0.10, 0.12]
    found = difference(mean_interval(later), mean_interval(earlier))
    low, high = welch(later, earlier)
    assert found.value == pytest.approx(statistics.fmean(later) - statistics.fmean(earlier))
    assert found.low == pytest.approx(low) and found.high == pytest.approx(high)
    assert found.n == 3


def test_a_side_without_an_interval_gives_the_difference_alone() -> None:
    one_seed = mean_interval([0.2])
    found = difference(mean_interval([0.5, 0.6, 0.7]), one_seed)
    assert found.value == pytest.approx(0.4) and found.low is None and found.high is None
    assert difference(mean_interval([]), one_seed).value is None


def test_equal_seeds_on_both_sides_give_an_interval_of_zero_width() -> None:
    found = difference(mean_interval([0.5, 0.5]), mean_interval([0.25, 0.25, 0.25]))
    assert (found.value, found.low, found.high) == (0.25, 0.25, 0.25)


def test_one_side_without_spread_leaves_the_others_interval() -> None:
    spread = [0.3, 0.5, 0.4]
    found = difference(mean_interval(spread), mean_interval([0.1, 0.1]))
    alone = mean_interval([value - 0.1 for value in spread])
    assert found.low == pytest.approx(alone.low) and found.high == pytest.approx(alone.high)


def test_an_interval_reads_signed_to_three_decimals() -> None:
    assert Interval(0.25, 0.1, 0.4, 3).describe() == "+0.250 (95% interval +0.100 to +0.400)"
    assert Interval(-0.5, None, None, 1).describe() == "-0.500"
    assert Interval(None, None, None, 0).describe() == "-"
