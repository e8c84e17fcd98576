"""Issue 23's polish on the core side: one cost format everywhere, the CLI's check names the real file."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skynet_core.cli import run
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


def test_the_cli_check_names_the_metric_file_it_was_given(tmp_path: Path) -> None:
    metric = tmp_path / "metric_bug.py"
    metric.write_text("def score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n")
    data = tmp_path / "cases.jsonl"
    data.write_text(json.dumps({"id": "a", "input": {}, "output": "x", "expected": None}) + "\n")
    out = io.StringIO()
    assert run(["check", str(metric), "--data", str(data)], stdout=out, stderr=io.StringIO()) == 0
    assert "metric_bug.py compiles and imports" in out.getvalue()
    assert "metric.py" not in out.getvalue()
    out = io.StringIO()
    run(["check", str(tmp_path / "metric_bug.py"), "--data", str(data), "--json"], stdout=out, stderr=io.StringIO())
    load = json.loads(out.getvalue())["stages"][0]
    assert load["message"] == "metric_bug.py compiles and imports"
