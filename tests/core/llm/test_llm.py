"""The metric's llm(): settings, real HTTP through litellm to a local fake server, costs, retries, errors, keys.

Every call goes to tests/fake_openai.py on 127.0.0.1 (or is refused before
any network use); no outside host, no real key.
"""

from __future__ import annotations

import gc
import socket
import time

import pytest

from skynet_core.cases import Case
from skynet_core.llm import (
    NO_MODEL_MESSAGE,
    STORE_KEY,
    LlmError,
    ModelConfig,
    ModelSettings,
    check_connection,
    complete,
    key_status,
    known_price,
    load_settings,
    make_handler,
    save_settings,
)
from skynet_core.results import CaseStatus
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import WorkerPool
from skynet_core.scoring.runner.run import score_cases
from skynet_core.store import Store
from tests.fake_openai import FakeOpenAI
from tests.provider_keys import ENV_KEY, SESSION_KEY

JUDGE = """
from skynet import llm

def score(input, output, expected=None):
    verdict = llm("Answer PASS or FAIL.", input=f"Q: {input['question']} A: {output}")
    return (1.0 if verdict.startswith("PASS") else 0.0), {"feedback": verdict}
"""
SNOOP = """
import os
from skynet import llm

def score(input, output, expected=None):
    seen = repr(dict(os.environ))
    for path in ("/proc/self/environ", f"/proc/{os.getppid()}/environ", "/proc/1/environ"):
        try:
            seen += open(path, "rb").read().decode("utf-8", "replace")
        except OSError:
            pass
    verdict = llm("Answer PASS or FAIL.", input="anything")
    return 1.0, {"feedback": verdict, "seen": seen}
"""


def local(server: FakeOpenAI, model: str = "openai/judge-model", **changes) -> ModelSettings:
    """Settings whose metric model is the fake server, with fast retries."""
    config = ModelConfig(
        model,
        api_base=server.url,
        api_key=changes.pop("api_key", None),
        price_per_million=changes.pop("price_per_million", None),
    )
    return ModelSettings(metric=config, backoff_s=0.01, **changes)


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def cases(count: int = 3) -> list[Case]:
    return [
        Case(id=f"case-{i}", input={"question": f"q{i}"}, output="billing", expected={"label": "billing"})
        for i in range(count)
    ]


# -- settings --------------------------------------------------------------


def test_from_env_reads_models_and_api_bases() -> None:
    settings = ModelSettings.from_env(
        {
            "SKYNET_METRIC_MODEL": "openai/gpt-4o-mini",
            "SKYNET_REFLECTION_MODEL": "anthropic/claude-3-5-haiku-latest",
            "SKYNET_REFLECTION_API_BASE": "http://127.0.0.1:11434/v1",
        }
    )
    assert settings.metric == ModelConfig("openai/gpt-4o-mini")
    assert settings.reflection == ModelConfig("anthropic/claude-3-5-haiku-latest", "http://127.0.0.1:11434/v1")


def test_an_api_base_alone_names_the_servers_default_model() -> None:
    settings = ModelSettings.from_env({"SKYNET_METRIC_API_BASE": "http://127.0.0.1:8000/v1"})
    assert settings.metric == ModelConfig("openai/default", "http://127.0.0.1:8000/v1")


def test_effective_model_falls_back_to_the_reflection_model_then_none() -> None:
    metric, reflection = ModelConfig("openai/a"), ModelConfig("openai/b")
    assert ModelSettings(metric=metric, reflection=reflection).effective() == (metric, "metric model")
    config, why = ModelSettings(reflection=reflection).effective()
    assert config == reflection and why.startswith("reflection model")
    assert ModelSettings().effective() is None


def test_saved_settings_round_trip_without_the_keys(tmp_path) -> None:
    store = Store(tmp_path)
    settings = ModelSettings(
        metric=ModelConfig(
            "openai/judge", "http://127.0.0.1:9999/v1", api_key=SESSION_KEY, price_per_million=(0.5, 1.5)
        ),
        reflection=ModelConfig("openai/gpt-4o"),
        temperature=0.7,
        request_timeout_s=12.0,
        concurrency=5,
        max_retries=4,
    )
    save_settings(store, settings)
    assert SESSION_KEY not in repr(store.get(STORE_KEY))
    loaded = load_settings(store, keys={"metric": SESSION_KEY})
    assert loaded == settings
    assert load_settings(store).metric.api_key is None


def test_saved_settings_win_over_the_environment_and_a_cleared_model_stays_cleared(tmp_path) -> None:
    store = Store(tmp_path)
    env = {"SKYNET_METRIC_MODEL": "openai/from-env", "SKYNET_REFLECTION_MODEL": "openai/reflect-env"}
    assert load_settings(store, env=env).metric.model == "openai/from-env"
    save_settings(store, ModelSettings(metric=ModelConfig("openai/saved"), reflection=None))
    loaded = load_settings(store, env=env)
    assert loaded.metric.model == "openai/saved"
    assert loaded.reflection is None


def test_out_of_range_saved_values_fall_back_to_defaults() -> None:
    settings = ModelSettings.resolve(
        {"temperature": 9, "request_timeout_s": 0, "concurrency": True, "max_retries": "3", "metric": {"model": "  "}},
        env={},
    )
    assert settings == ModelSettings()


def test_session_keys_attach_to_their_model_only() -> None:
    settings = ModelSettings(metric=ModelConfig("openai/a"), reflection=ModelConfig("openai/b"))
    keyed = settings.with_keys({"reflection": SESSION_KEY, "metric": ""})
    assert keyed.metric.api_key is None and keyed.reflection.api_key == SESSION_KEY
    assert SESSION_KEY not in repr(keyed)
    assert keyed.reflection.masked_key == "…cdef"


# -- calls against the fake server ----------------------------------------


def test_instructions_are_the_system_message_and_input_the_user_message(server) -> None:
    reply = complete(local(server), "Answer PASS or FAIL.", "Question: 2+2? Answer: 4")
    assert reply.text == "PASS. The triage fits."
    received = server.requests[-1]
    assert received.model == "judge-model"
    assert received.system == "Answer PASS or FAIL." and received.user == "Question: 2+2? Answer: 4"
    assert [m["role"] for m in received.messages] == ["system", "user"]


def test_the_session_key_goes_in_the_authorization_header(server) -> None:
    server.require_key = SESSION_KEY
    complete(local(server, api_key=SESSION_KEY), "Say OK.")
    assert server.requests[-1].authorization == f"Bearer {SESSION_KEY}"


def test_the_environment_key_is_sent_when_none_was_typed(server, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url)  # the server's keys go only where it says
    complete(local(server), "Say OK.")
    assert server.requests[-1].authorization == f"Bearer {ENV_KEY}"


def test_costs_come_from_litellms_cost_map(server) -> None:
    reply = complete(local(server, "openai/gpt-4o-mini"), "Say OK.")
    price_in, price_out = known_price(ModelConfig("openai/gpt-4o-mini"))
    assert (reply.prompt_tokens, reply.completion_tokens) == (20, 5)
    assert reply.cost_usd == pytest.approx((20 * price_in + 5 * price_out) / 1e6)
    assert reply.cost_usd > 0


def test_an_entered_price_prices_a_model_litellm_does_not_know(server) -> None:
    assert known_price(ModelConfig("openai/judge-model")) is None
    assert complete(local(server), "Say OK.").cost_usd is None
    priced = complete(local(server, price_per_million=(1.0, 2.0)), "Say OK.")
    assert priced.cost_usd == pytest.approx((20 * 1.0 + 5 * 2.0) / 1e6)


def test_rate_limits_and_server_errors_are_retried_then_succeed(server) -> None:
    server.script = [429, 500, 503]
    reply = complete(local(server, max_retries=3), "Say OK.")
    assert reply.text and reply.attempts == 4
    assert len(server.requests) == 4


def test_retries_are_bounded_and_the_error_carries_the_providers_message(server) -> None:
    server.script = [503] * 10
    with pytest.raises(LlmError) as caught:
        complete(local(server, max_retries=2), "Say OK.")
    assert len(server.requests) == 3
    message = str(caught.value)
    assert "tried 3 times" in message and "currently overloaded" in message and server.url in message


def test_a_rate_limit_that_persists_says_to_lower_the_calls_in_flight(server) -> None:
    server.script = [429] * 3
    with pytest.raises(LlmError, match="rate limit.*lower the calls in flight.*Rate limit reached"):
        complete(local(server, max_retries=1), "Say OK.")


def test_a_rejected_key_is_not_retried_and_says_where_to_set_one(server) -> None:
    server.require_key = "sk-the-right-one"
    with pytest.raises(LlmError, match="rejected the API key for openai/judge-model.*Settings page"):
        complete(local(server, api_key="sk-wrong-key-1234", max_retries=3), "Say OK.")
    assert len(server.requests) == 1


def test_a_slow_server_fails_with_the_timeout_and_what_to_do(server) -> None:
    server.latency_s = 3.0
    started = time.monotonic()
    with pytest.raises(LlmError, match=r"did not answer within 1 s.*raise the request timeout"):
        complete(local(server, request_timeout_s=1.0, max_retries=0), "Say OK.")
    assert time.monotonic() - started < 2.9


def test_a_model_the_server_does_not_serve_is_named(server) -> None:
    server.models = {"judge-model"}
    with pytest.raises(LlmError, match="does not know the model 'openai/other-model'.*check its name"):
        complete(local(server, "openai/other-model"), "Say OK.")


def test_a_model_litellm_does_not_know_asks_for_the_provider_prefix() -> None:
    with pytest.raises(LlmError, match="litellm does not know the model 'no-such-model-xyz'.*openai/gpt-4o-mini"):
        complete(ModelSettings(metric=ModelConfig("no-such-model-xyz")), "Say OK.")


def test_an_unreachable_server_is_reported_as_such() -> None:
    settings = ModelSettings(
        metric=ModelConfig("openai/judge", f"http://127.0.0.1:{closed_port()}/v1"), max_retries=1, backoff_s=0.01
    )
    with pytest.raises(LlmError, match="could not reach http://127.0.0.1:.*tried 2 times.*is the server running"):
        complete(settings, "Say OK.")


def test_a_missing_key_is_refused_before_any_network_call() -> None:
    with pytest.raises(LlmError, match="no API key for openai/gpt-4o-mini: set OPENAI_API_KEY .*Settings page"):
        complete(ModelSettings(metric=ModelConfig("openai/gpt-4o-mini")), "Say OK.")


def test_an_empty_key_variable_counts_as_no_key(monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "")
    with pytest.raises(LlmError, match="no API key for openai/gpt-4o-mini: set the provider's key variable"):
        complete(ModelSettings(metric=ModelConfig("openai/gpt-4o-mini"), max_retries=3), "Say OK.")


def test_no_model_is_refused_with_the_setup_message() -> None:
    with pytest.raises(LlmError) as caught:
        complete(ModelSettings(), "Say OK.")
    assert str(caught.value) == NO_MODEL_MESSAGE


def test_litellms_objects_are_kept_out_of_full_collections() -> None:
    """Streamlit collects after every script run; scanning litellm's objects each time stalled judge calls."""
    complete(
        ModelSettings(metric=ModelConfig("openai/gpt-4o-mini", api_key="sk-unused-0000")), "x", mock_response="PASS"
    )
    assert gc.get_freeze_count() > 100_000


def test_mock_response_needs_no_server() -> None:
    reply = complete(
        ModelSettings(metric=ModelConfig("openai/gpt-4o-mini", api_key="sk-unused-0000")),
        "Judge.",
        "x",
        mock_response="PASS. mocked",
    )
    assert reply.text == "PASS. mocked"


def test_check_connection_reports_reply_latency_and_cost(server) -> None:
    server.latency_s = 0.05
    result = check_connection(local(server, "openai/gpt-4o-mini"))
    assert result.ok and result.reply == "PASS. The triage fits."
    assert result.latency_ms >= 50 and result.cost_usd and result.cost_usd > 0
    assert result.model == "openai/gpt-4o-mini"


def test_check_connection_does_not_retry_and_reports_the_error(server) -> None:
    server.script = [500, 500]
    result = check_connection(local(server, max_retries=5))
    assert not result.ok and "failed to answer" in result.error
    assert len(server.requests) == 1
    assert check_connection(ModelSettings()).error == NO_MODEL_MESSAGE


def test_key_status_says_where_the_key_comes_from_masked(monkeypatch) -> None:
    assert (
        key_status(ModelConfig("openai/gpt-4o-mini", api_key=SESSION_KEY)).text == "typed in for this session (…cdef)"
    )
    missing = key_status(ModelConfig("openai/gpt-4o-mini"))
    assert not missing.ok and "OPENAI_API_KEY" in missing.text
    assert key_status(ModelConfig("openai/local", "http://127.0.0.1:8000/v1")).ok
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    status = key_status(ModelConfig("openai/gpt-4o-mini"))
    assert status.ok and status.text == "OPENAI_API_KEY from the server's environment (…3210)"
    assert ENV_KEY not in status.text


# -- through the runner: the metric's process ------------------------------


def test_a_judge_metric_scores_through_the_runner_and_records_usage(server, pool) -> None:
    server.latency_s = 0.05
    run = score_cases(JUDGE, cases(3), RunOptions(llm=make_handler(local(server, "openai/gpt-4o-mini")), pool=pool))
    assert [r.status for r in run.results] == [CaseStatus.OK] * 3
    for result in run.results:
        assert result.score == 1.0 and result.feedback == "PASS. The triage fits."
        assert result.judge.calls == 1 and result.judge.latency_ms >= 50
        assert (result.judge.prompt_tokens, result.judge.completion_tokens) == (20, 5)
        assert result.judge.cost_usd == pytest.approx(complete(local(server, "openai/gpt-4o-mini"), "x").cost_usd)
        assert result.to_json()["judge"]["cost_usd"] == result.judge.cost_usd
    assert server.requests[0].user == "Q: q0 A: billing"


def test_the_metric_process_never_sees_the_key_the_parent_sends(server, monkeypatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url)
    fresh = WorkerPool(spares=0)  # started now, while this process's environment holds the key
    try:
        for settings, key in ((local(server), ENV_KEY), (local(server, api_key=SESSION_KEY), SESSION_KEY)):
            run = score_cases(SNOOP, cases(1), RunOptions(llm=make_handler(settings), pool=fresh))
            result = run.results[0]
            assert result.ok, result.error
            assert server.requests[-1].authorization == f"Bearer {key}"
            assert result.extra["seen"] and key not in result.extra["seen"]
            assert "sk-" not in result.extra["seen"]
    finally:
        fresh.close()


def test_without_a_model_the_case_fails_with_the_setup_message(pool) -> None:
    run = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(ModelSettings.from_env({})), pool=pool))
    result = run.results[0]
    assert result.status is CaseStatus.ERROR
    assert NO_MODEL_MESSAGE in result.error and "metric.py line 5" in result.error


def test_without_a_key_the_case_fails_saying_where_to_set_one(pool) -> None:
    run = score_cases(
        JUDGE,
        cases(1),
        RunOptions(llm=make_handler(ModelSettings(metric=ModelConfig("openai/gpt-4o-mini"))), pool=pool),
    )
    assert "no API key for openai/gpt-4o-mini: set OPENAI_API_KEY" in run.results[0].error


def test_with_an_unknown_model_the_case_fails_naming_it(server, pool) -> None:
    server.models = {"judge-model"}
    run = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(local(server, "openai/typo-model")), pool=pool))
    assert "does not know the model 'openai/typo-model'" in run.results[0].error
    run = score_cases(
        JUDGE, cases(1), RunOptions(llm=make_handler(ModelSettings(metric=ModelConfig("typo-model"))), pool=pool)
    )
    assert "litellm does not know the model 'typo-model'" in run.results[0].error


def test_exhausted_retries_fail_that_case_only(server, pool) -> None:
    server.script = [500, 500, 500]
    run = score_cases(JUDGE, cases(3), RunOptions(llm=make_handler(local(server, max_retries=2)), pool=pool))
    statuses = [r.status for r in run.results]
    assert statuses == [CaseStatus.ERROR, CaseStatus.OK, CaseStatus.OK]
    assert "tried 3 times" in run.results[0].error and "had an error while processing" in run.results[0].error


def test_a_handler_that_raises_fails_the_case_instead_of_answering_empty(pool) -> None:
    def broken(request):
        raise RuntimeError("boom")

    run = score_cases(JUDGE, cases(1), RunOptions(llm=broken, pool=pool))
    assert run.results[0].status is CaseStatus.ERROR
    assert "the model call failed in the runner: RuntimeError: boom" in run.results[0].error


def test_cases_are_judged_concurrently(server, pool) -> None:
    """200 cases, a 200 ms judge, 8 in flight: about 5 s, not 40 s (benchmarks/bench_judge.py has the figure)."""
    server.latency_s = 0.2
    started = time.monotonic()
    run = score_cases(JUDGE, cases(200), RunOptions(llm=make_handler(local(server)), concurrency=8, pool=pool))
    elapsed = time.monotonic() - started
    assert len(run.results) == 200 and all(result.ok for result in run.results)
    assert elapsed < 15, f"200 judged cases took {elapsed:.1f} s with 8 in flight"
    assert server.max_in_flight >= 6
