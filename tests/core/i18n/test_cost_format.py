"""One cost format everywhere: traces, Settings, reward lines and the judge's summary write a cost the same way, and
an unknown cost says so."""

from __future__ import annotations

import pytest

from skynet_core.i18n import format_cost, use_language
from skynet_core.judge import JudgeSummary
from skynet_core.scoring.sandbox.skynet._reward import _usd


@pytest.mark.parametrize(
    ("usd", "shown"),
    [
        (0.000045, "$0.000045"),  # what Settings showed; the trace showed $0.00004
        (0.00072, "$0.00072"),
        (0.002, "$0.0020"),
        (0.0123456, "$0.0123"),
        (0.0, "$0.0000"),
        (12.5, "$12.50"),
        (1234.5, "$1,234.50"),
    ],
)
def test_one_cost_format_for_traces_settings_and_reward_lines(usd: float, shown: str) -> None:
    assert format_cost(usd) == shown
    assert _usd(usd) == shown.replace(",", "")  # the sandbox's reward lines: the same digits


def test_an_unknown_cost_says_so() -> None:
    assert format_cost(None) == "unknown"
    with use_language("zh_CN"):
        assert format_cost(None) != "unknown"


def test_the_judge_summary_uses_the_one_cost_format() -> None:
    summary = JudgeSummary(cases=1000, calls=1000, total_ms=200_000.0, total_cost_usd=0.045, unpriced_cases=0)
    assert "$0.045" in summary.describe()  # per 1,000 cases: 0.045, as Settings would show it
