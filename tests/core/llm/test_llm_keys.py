"""Where provider keys go and where they never reach: a typed API base never gets the server's key, keys echoed in
error texts or answers are redacted.

Every call goes to tests/fake_openai.py on 127.0.0.1; no outside host, no real key."""

from __future__ import annotations

import pytest

from skynet_core.cases import Case
from skynet_core.llm import (
    ModelConfig,
    ModelSettings,
    check_connection,
    complete,
    env_keys_allowed,
    key_status,
    load_settings,
    make_handler,
    save_settings,
)
from skynet_core.redact import redact
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases
from skynet_core.store import Store
from tests.fake_openai import FakeOpenAI
from tests.provider_keys import ENV_KEY, SESSION_KEY

JUDGE = """
from skynet import llm

def score(input, output, expected=None):
    return 1.0, {"feedback": llm("Answer PASS or FAIL.", input="x")}
"""


pytestmark = pytest.mark.usefixtures("env_key")  # the server's environment holds a key, as a deployed one's would


def typed(server: FakeOpenAI, key: str | None = None) -> ModelSettings:
    """Settings as a page visitor types them: the model ``openai/gpt-4o`` at the fake server's URL."""
    return ModelSettings(metric=ModelConfig("openai/gpt-4o", api_base=server.url, api_key=key), backoff_s=0.01)


def test_test_connection_to_a_typed_api_base_never_carries_the_servers_key(server):
    check = check_connection(typed(server))
    assert check.ok, check.error
    assert ENV_KEY not in (server.requests[-1].authorization or "")


def test_saved_typed_api_base_gets_no_server_key_from_the_cli_either(server, tmp_path):
    store = Store(tmp_path)
    save_settings(store, typed(server))
    settings = load_settings(store)  # what the CLI's machine_settings() reads
    complete(settings, "Say OK.")
    assert ENV_KEY not in (server.requests[-1].authorization or "")


def test_a_key_typed_for_the_typed_api_base_is_sent(server):
    complete(typed(server, SESSION_KEY), "Say OK.")
    assert server.requests[-1].authorization == f"Bearer {SESSION_KEY}"


def test_an_api_base_set_in_the_servers_environment_gets_the_servers_key(server, monkeypatch):
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url + "/")
    complete(typed(server), "Say OK.")
    assert server.requests[-1].authorization == f"Bearer {ENV_KEY}"


def test_the_one_rule_for_where_keys_go():
    env = {"SKYNET_METRIC_API_BASE": "http://127.0.0.1:11434/v1"}
    assert env_keys_allowed(ModelConfig("openai/gpt-4o"), env)  # the provider's own endpoint
    assert env_keys_allowed(ModelConfig("openai/x", "http://127.0.0.1:11434/v1/"), env)
    assert not env_keys_allowed(ModelConfig("openai/gpt-4o", "http://127.0.0.1:18080/v1"), env)
    assert not env_keys_allowed(ModelConfig("openai/gpt-4o", "http://127.0.0.1:18080/v1"), {})


def test_key_status_says_a_typed_api_base_gets_no_server_key(server):
    status = key_status(typed(server).metric)
    assert status.text.startswith("none") and "typed in the browser" in status.text
    assert ENV_KEY[-4:] not in status.text


# -- item 4: keys in error texts --------------------------------------------------------------------


def test_redact_hides_known_keys_and_key_shaped_text():
    text = f"Authorization: Bearer abc.def-123 sk-proj-Zz9_0123456789 {ENV_KEY} typed-secret-42 ok"
    shown = redact(text, extra=["typed-secret-42"])
    assert shown == "Authorization: Bearer [redacted] [redacted] [redacted] [redacted] ok"


def test_an_echoed_authorization_header_never_reaches_the_error(server, monkeypatch):
    server.echo_authorization = True
    server.require_key = "the-right-key"
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url)
    for settings, key in ((typed(server), ENV_KEY), (typed(server, SESSION_KEY), SESSION_KEY)):
        check = check_connection(settings)
        assert not check.ok and "request had Authorization: Bearer [redacted]" in check.error, check.error
        assert key not in check.error and "sk-" not in check.error


def test_an_echoed_key_never_reaches_the_metric_or_its_result(server, monkeypatch, pool):
    server.echo_authorization = True
    server.script = [400]
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url)
    run = score_cases(
        JUDGE, [Case(id="a", input={"q": "1"}, output="x")], RunOptions(llm=make_handler(typed(server)), pool=pool)
    )
    result = run.results[0]
    assert not result.ok and "Bearer [redacted]" in result.error
    assert ENV_KEY not in str(result.to_json())
