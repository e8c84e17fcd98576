"""Hardening (issue #11): metric.py that the server's parser cannot read fails soft."""

from __future__ import annotations

import pytest

from skynet_core.cli import run
from skynet_core.metric.contract import check_metric
from skynet_core.metric.pysource import SourceTooDeep, parse
from skynet_core.metric.reward_spec import reward_spec_line
from skynet_core.reward import MetricSourceError, replace_reward_spec
from skynet_core.scoring import RunOptions

DEEP = (
    'REWARD_SPEC = {"weights": {"accuracy": 1, "speed": 0, "cost": 0}, "accuracy": {}, "speed": {"reference": 1},'
    ' "cost": {"reference": 1}}\n'
    "\n"
    "x = " + "+".join(["1"] * 2975) + "\n"
    "\n"
    "def score(input, output, expected=None):\n"
    '    return 1.0, {"feedback": "ok"}\n'
)


def _deep_stack(depth: int, call):
    """Call ``call`` under ``depth`` extra frames, as a Streamlit page script is."""
    return call() if depth == 0 else _deep_stack(depth - 1, call)


def test_too_deep_source_is_a_syntax_error_with_its_line():
    with pytest.raises(SourceTooDeep) as caught:
        _deep_stack(50, lambda: parse(DEEP))
    assert caught.value.lineno == 3
    assert "nested too deeply" in caught.value.msg and "split it" in caught.value.msg


def test_too_deep_source_fails_soft_where_the_server_reads_it():
    assert _deep_stack(50, lambda: reward_spec_line(DEEP)) is None
    with pytest.raises(MetricSourceError, match="nested too deeply"):
        _deep_stack(50, lambda: replace_reward_spec(DEEP, {"weights": {"accuracy": 1, "speed": 0, "cost": 0}}))


def test_check_of_too_deep_source_reports_stages_not_a_traceback(pool, cases):
    report = _deep_stack(
        50, lambda: check_metric(DEEP, cases, RunOptions(timeout_s=20, pool=pool, stop_on_timeout=True))
    )
    assert report.stages  # a report, whatever the sandbox's compiler made of it


def test_cli_check_of_too_deep_source_prints_a_report(tmp_path, capsys):
    metric = tmp_path / "metric.py"
    metric.write_text(DEEP)
    data = tmp_path / "cases.jsonl"
    data.write_text('{"id": "a", "input": {"q": "q"}, "output": "x"}\n')
    code = _deep_stack(50, lambda: run(["check", str(metric), "--data", str(data)]))
    captured = capsys.readouterr()
    assert "Traceback" not in captured.out + captured.err
    assert code in (0, 1)
