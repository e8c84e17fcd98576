"""A failed model call's kind says what happened: a refused connection is "connection refused" in the judge's
failed-call summary, not the ``InternalServerError`` litellm files it under; provider errors keep their class."""

from __future__ import annotations

import socket

import pytest

from skynet_core.cases import Case
from skynet_core.i18n import use_language
from skynet_core.judge import judge_summary
from skynet_core.llm import LlmError, ModelConfig, ModelSettings, complete, make_handler
from skynet_core.scoring import LocalScorer, RunOptions
from tests.fake_openai import FakeOpenAI

JUDGE = """
from skynet import llm

def score(input, output, expected=None):
    return 1.0, {"feedback": llm("Answer PASS or FAIL.", input=str(output))}
"""


def closed_port() -> int:
    """A port on 127.0.0.1 that nothing listens on (bound, then closed)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def nowhere(**changes: object) -> ModelSettings:
    config = ModelConfig("openai/judge", f"http://127.0.0.1:{closed_port()}/v1", api_key="unused")
    return ModelSettings(metric=config, max_retries=0, backoff_s=0.01, **changes)


def test_a_refused_connection_is_its_own_kind() -> None:
    with pytest.raises(LlmError) as caught:
        complete(nowhere(), "Say OK.")
    assert caught.value.kind == "ConnectionRefused"
    assert "could not reach" in str(caught.value)


def test_the_judge_summary_says_connection_refused(pool) -> None:
    cases = [Case(id=f"c{i}", input={"q": i}, output="x") for i in range(3)]
    run = LocalScorer()(JUDGE, cases, RunOptions(llm=make_handler(nowhere()), pool=pool))
    summary = judge_summary(run.results)
    assert summary.failed == 3 and dict(summary.errors) == {"ConnectionRefused": 3}
    assert "3 failed (connection refused 3)" in summary.describe()
    assert "InternalServerError" not in summary.describe()
    with use_language("zh_CN"):
        assert "connection refused" not in summary.error_kinds()


def test_a_provider_error_keeps_its_class_name(server: FakeOpenAI) -> None:
    server.script = [429]
    config = ModelConfig("openai/judge", server.url, api_key="unused")
    with pytest.raises(LlmError) as caught:
        complete(ModelSettings(metric=config, max_retries=0), "Say OK.")
    assert caught.value.kind == "RateLimitError"
