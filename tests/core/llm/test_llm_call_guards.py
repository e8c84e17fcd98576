"""Issue 21 items 5 and 16: a model's answer that echoes a key is redacted before it reaches the metric, and a
prompt over the size cap fails with a message about the prompt.

Every call goes to tests/fake_openai.py on 127.0.0.1; no outside host, no real key.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from skynet_core.cases import Case
from skynet_core.llm import ModelConfig, ModelSettings, make_handler
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases
from skynet_core.scoring.runner.values import LlmRequest
from tests.fake_openai import FakeOpenAI, Received

ENV_KEY = "sk-environment-fedcba9876543210"
SESSION_KEY = "typed-session-key-0123456789"
ECHO = """
from skynet import llm

def score(input, output, expected=None):
    return 1.0, {"feedback": llm("Answer PASS or FAIL.", input="x")}
"""


def echo(received: Received) -> str:
    return f"PASS. You sent {received.authorization}; the other key is {ENV_KEY}; and sk-unknown-abcdefghij012345."


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    for name in ("SKYNET_METRIC_MODEL", "SKYNET_REFLECTION_MODEL", "SKYNET_METRIC_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    with FakeOpenAI(reply=echo) as fake:
        yield fake


def settings(server: FakeOpenAI) -> ModelSettings:
    return ModelSettings(metric=ModelConfig("openai/gpt-4o", api_base=server.url, api_key=SESSION_KEY))


def test_an_answer_that_echoes_the_key_is_redacted_before_it_reaches_the_metric(server):
    reply = make_handler(settings(server))(LlmRequest("Answer PASS or FAIL.", "x"))
    assert reply["text"].startswith("PASS. You sent Bearer [redacted]")
    for secret in (SESSION_KEY, ENV_KEY, "sk-unknown-abcdefghij012345"):
        assert secret not in reply["text"]


def test_the_echoed_key_is_in_no_feedback_or_result(server, pool):
    run = score_cases(
        ECHO, [Case(id="a", input={"q": "1"}, output="x")], RunOptions(llm=make_handler(settings(server)), pool=pool)
    )
    result = run.results[0]
    assert result.ok and "[redacted]" in result.feedback
    text = result.to_json_bytes(True).decode()
    assert SESSION_KEY not in text and ENV_KEY not in text and "sk-unknown" not in text


BIG_PROMPT = """
from skynet import llm, LlmError

def score(input, output, expected=None):
    try:
        llm("Judge this.", input="x" * 3_000_000)
    except LlmError as exc:
        return 0.0, {"feedback": str(exc)}
    return 1.0, {"feedback": "sent"}
"""


def test_a_prompt_over_the_cap_fails_with_its_own_message_and_is_not_sent(server, pool):
    run = score_cases(
        BIG_PROMPT,
        [Case(id="a", input={"q": "1"}, output="x")],
        RunOptions(llm=make_handler(settings(server)), pool=pool),
    )
    result = run.results[0]
    assert result.ok, result.error
    assert "the prompt given to llm() is 3.0 MB" in result.feedback and "at most 1 MB" in result.feedback
    assert "side information" not in result.feedback and "reply" not in result.feedback
    assert server.requests == []
