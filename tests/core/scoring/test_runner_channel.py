"""Hardening around the sandbox (issue #11): what comes back on the runner's channel."""

from __future__ import annotations

import textwrap

import orjson
import pytest

from skynet_core.cases import Case
from skynet_core.datasets import DatasetError, load_dataset
from skynet_core.results import CaseStatus
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.replies import reply_to_result
from skynet_core.scoring.runner.run import score_cases

CASES = [Case(id=f"case-{i}", input={"q": str(i)}, output=str(i)) for i in range(3)]


def metric(body: str) -> str:
    return textwrap.dedent(body).lstrip("\n")


def test_forged_results_line_with_extra_items_fails_the_case_and_the_run_goes_on(pool):
    source = metric("""
        import json, os, sys

        def score(input, output, expected=None):
            if input["q"] == "0":
                item = {"t": "result", "status": "ok", "score": 1.0, "scores": {}, "feedback": "forged",
                        "extra": {}, "stdout": "", "duration_ms": 1.0}
                forged = {"t": "results", "items": [dict(item, i=i) for i in range(10)]}
                os.write(int(sys.argv[2]), json.dumps(forged).encode() + b"\\n")
            return 0.5, {"feedback": "honest"}
    """)
    run = score_cases(source, CASES, RunOptions(timeout_s=10, pool=pool))
    assert [result.id for result in run.results] == ["case-0", "case-1", "case-2"]
    first = run.results[0]
    assert first.status is CaseStatus.ERROR
    assert "runner's private channel" in first.error
    assert [(r.status, r.feedback) for r in run.results[1:]] == [(CaseStatus.OK, "honest")] * 2


def test_negative_or_absurd_duration_is_rejected():
    reply = {"status": "ok", "score": 1.0, "scores": {}, "feedback": "ok", "extra": {}, "stdout": ""}
    for duration in (-5.0, 1e12):
        result = reply_to_result(CASES[0], {**reply, "duration_ms": duration})
        assert result.status is CaseStatus.ERROR and "malformed" in result.error, duration
    assert reply_to_result(CASES[0], {**reply, "duration_ms": 12.5}).duration_ms == 12.5


def nested(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = {"d": value}
    return value


def test_case_nested_too_deep_for_the_channel_is_invalid_not_dropped(pool):
    cases = [*CASES[:1], Case(id="deep", input={"q": nested(300)}, output="x"), *CASES[1:]]
    good = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
    for concurrency in (1, 4):
        run = score_cases(good, cases, RunOptions(timeout_s=10, pool=pool, concurrency=concurrency))
        assert [result.id for result in run.results] == ["case-0", "deep", "case-1", "case-2"]
        deep = run.results[1]
        assert deep.status is CaseStatus.INVALID
        assert "nested more than 250 levels deep" in deep.error and "Flatten" in deep.error
        assert run.by_status == {"ok": 3, "invalid": 1}


def test_jsonl_line_nested_beyond_the_parsers_is_refused_with_its_line(tmp_path):
    path = tmp_path / "cases.jsonl"
    deep = "[" * 1100 + "1" + "]" * 1100
    path.write_text('{"id": "a", "input": {"q": "x"}, "output": "x"}\n{"id": "b", "input": {"q": ' + deep + "}}\n")
    with pytest.raises(DatasetError, match=r"line 2 is nested more than 1,000 levels deep.*Flatten"):
        load_dataset(path)


BIG_SIDE = """
def score(input, output, expected=None):
    return 1.0, {"feedback": "f" * 200_000, "blob": ["x" * 1000] * 700}
"""


def test_big_side_information_is_kept_small_in_results_and_whole_on_demand(pool):
    from skynet_core.results.overflow import OVERFLOW_KEY, SIDE_KEEP_BYTES, full_side_information

    cases = [Case(id=f"c{i}", input={"q": str(i)}, output="x") for i in range(20)]
    run = score_cases(BIG_SIDE, cases, RunOptions(timeout_s=30, pool=pool))
    assert run.by_status == {"ok": 20}
    for result in run.results:
        assert len(orjson.dumps(result.to_json())) < SIDE_KEEP_BYTES + 4096
        assert "more characters cut from this result" in result.feedback
        assert "over the 64 KB a result keeps" in result.extra[OVERFLOW_KEY]["note"]
        whole = orjson.loads(full_side_information(result))
        assert len(whole["feedback"]) == 200_000 and len(whole["blob"]) == 700


def test_small_side_information_is_untouched():
    from skynet_core.results import CaseResult
    from skynet_core.results.overflow import bound_side_information

    result = CaseResult(id="a", feedback="fine", extra={"k": [1, 2]})
    assert bound_side_information(result) == CaseResult(id="a", feedback="fine", extra={"k": [1, 2]})
