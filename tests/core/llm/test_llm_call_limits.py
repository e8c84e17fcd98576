"""What llm() may spend: calls per case capped (50 by default, raisable), a run budget that ends the cases once
spent, and the limits kept in the saved settings.

Every call goes to tests/fake_openai.py on 127.0.0.1; no outside host, no real key."""

from __future__ import annotations

import pytest

from skynet_core.cases import Case
from skynet_core.llm import (
    ModelConfig,
    ModelSettings,
    complete,
    load_settings,
    make_handler,
    save_settings,
)
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases
from skynet_core.store import Store
from tests.fake_openai import FakeOpenAI
from tests.provider_keys import SESSION_KEY

pytestmark = pytest.mark.usefixtures("env_key")  # the server's environment holds a key, as a deployed one's would


# -- item 5: what llm() may spend -------------------------------------------------------------------

LOOPER = """
from skynet import llm, LlmError

def score(input, output, expected=None):
    made = 0
    for _ in range(1000):
        try:
            llm("Answer PASS or FAIL.", input="x" * 1000)
        except LlmError:
            pass  # a metric that swallows the error must still be stopped
        made += 1
    return 1.0, {"feedback": f"made {made} calls"}
"""


def local(server: FakeOpenAI, **changes) -> ModelSettings:
    config = ModelConfig("openai/gpt-4o", api_base=server.url, api_key=SESSION_KEY)
    return ModelSettings(metric=config, backoff_s=0.01, **changes)


def test_calls_per_case_are_capped_at_50_by_default_and_the_case_fails_naming_the_cap(server, pool):
    cases = [Case(id=f"c{i}", input={"q": "1"}, output="x") for i in range(2)]
    handler = make_handler(local(server))
    run = score_cases(LOOPER, cases, RunOptions(llm=handler, pool=pool, timeout_s=60))
    assert len(server.requests) == 100  # 50 per case, then refused without a call
    for result in run.results:
        assert not result.ok
        assert "more than 50 llm() calls" in result.error and "--max-calls" in result.error
        # 50 answered, then the 51st refused: a failed call, traced as the limit (further calls untraced)
        assert result.judge.calls == 51
        assert [call.error_kind for call in result.llm_calls] == [""] * 50 + ["LimitReached"]


def test_a_raised_cap_lets_more_calls_through(server, pool):
    handler = make_handler(local(server, max_calls_per_case=3))
    run = score_cases(
        LOOPER, [Case(id="a", input={"q": "1"}, output="x")], RunOptions(llm=handler, pool=pool, timeout_s=60)
    )
    assert len(server.requests) == 3 and "more than 3 llm() calls" in run.results[0].error


def test_the_run_budget_ends_the_cases_once_spent_and_names_it(server, pool):
    settings = local(server, max_cost_usd=0.001, max_calls_per_case=10_000)
    handler = make_handler(settings)
    cases = [Case(id=f"c{i}", input={"q": "1"}, output="x") for i in range(3)]
    run = score_cases(LOOPER, cases, RunOptions(llm=handler, pool=pool, timeout_s=60))
    per_call = complete(settings, "x").cost_usd
    assert per_call and 0.001 <= handler.spent_usd < 0.001 + 2 * per_call
    for result in run.results:
        assert not result.ok and "budget of $0.00" in result.error and "--max-cost" in result.error


def test_limits_round_trip_through_the_saved_settings(tmp_path):
    store = Store(tmp_path)
    save_settings(store, ModelSettings(max_calls_per_case=7, max_cost_usd=2.5))
    settings = load_settings(store)
    assert (settings.max_calls_per_case, settings.max_cost_usd) == (7, 2.5)
    assert load_settings(None).max_calls_per_case == 50 and load_settings(None).max_cost_usd is None
