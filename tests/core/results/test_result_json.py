"""A result's JSON bytes (the CLI's and exports' bulk form) say exactly what ``to_json()`` says."""

from __future__ import annotations

import orjson
import pytest

from skynet_core.results import CaseResult, CaseStatus, JudgeUsage
from skynet_core.results.trace import LlmCall

CALL = LlmCall.make("Judge.", "Q", "PASS", model="openai/x", prompt_tokens=3, cost_usd=0.001, cached=True)
RESULTS = [
    CaseResult(id="1", score=1.0, feedback="Correct."),
    CaseResult(
        id="ü\n\x00", split="val", candidate="large", score=0.25, scores={"a": 1.0}, extra={"k": [1, {"x": None}]}
    ),
    CaseResult(id="3", status=CaseStatus.ERROR, error="boom", line=3, file="helpers.py", stdout="printed"),
    CaseResult(id="4", score=0.0, judge=JudgeUsage(1, 12.5, 3, 4, 0.001), _llm_calls=(CALL,)),
    CaseResult(id="5", score=0.0, judge=JudgeUsage(0, 0.0, 0, 0, 0.0)),
    CaseResult(id="6", score=0.5, extra={1: "a non-string key"}),
]


@pytest.mark.parametrize("result", RESULTS, ids=lambda result: result.id.encode().hex())
def test_json_bytes_are_the_json_of_to_json(result: CaseResult) -> None:
    full = result.to_json()
    assert result.to_json_bytes(trace=True) == orjson.dumps(full, option=orjson.OPT_NON_STR_KEYS)
    full.pop("llm_calls", None)
    assert result.to_json_bytes() == orjson.dumps(full, option=orjson.OPT_NON_STR_KEYS)
