"""The cache of llm() answers: what changes the key, the bypasses, the counts, single-flight, the bound and
persistence. Model calls go to tests/fake_openai.py on 127.0.0.1, which counts the calls it saw."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import threading
import time
from dataclasses import fields, replace
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from skynet_core.cases import Case
from skynet_core.judge import judge_consistency, judge_summary
from skynet_core.llm import ModelConfig, ModelSettings, complete, load_settings, make_handler
from skynet_core.llm import provider as llm_module
from skynet_core.llm.cache import (
    CACHE_DB_NAME,
    KEYED_PARAMETERS,
    NEUTRAL_PARAMETERS,
    AnswerRequest,
    CachedAnswer,
    CacheSetting,
    LlmCache,
    Source,
    save_cache_setting,
)
from skynet_core.metric.source import MetricSource
from skynet_core.results.trace import LlmCall
from skynet_core.scoring import LocalScorer, RunOptions
from skynet_core.scoring.runner import LlmRequest
from skynet_core.scoring.runner.run import score_cases
from skynet_core.store import Store
from tests.fake_openai import FakeOpenAI
from tests.provider_keys import SESSION_KEY

ROOT = Path(__file__).resolve().parents[3]
JUDGE = """
from skynet import llm

def score(input, output, expected=None):
    verdict = llm("Answer PASS or FAIL.", input=f"Q: {input['question']} A: {output}")
    return (1.0 if verdict.startswith("PASS") else 0.0), {"feedback": verdict[:100]}
"""
# The same calls as JUDGE: only the feedback's wording changed.
JUDGE_REWORDED = JUDGE.replace('{"feedback": verdict[:100]}', '{"feedback": "The judge said: " + verdict[:100]}')
STRICTER = JUDGE.replace("Answer PASS or FAIL.", "Answer PASS or FAIL. Be strict.")
VOTE = """
from skynet import llm

def score(input, output, expected=None):
    votes = [llm("Vote PASS or FAIL.", input=output) for _ in range(3)]
    return 1.0, {"feedback": " | ".join(votes)}
"""


@pytest.fixture
def cache(tmp_path: Path) -> LlmCache:
    return LlmCache(tmp_path)


def local(server: FakeOpenAI, **changes: Any) -> ModelSettings:
    config = ModelConfig(
        "openai/gpt-4o-mini",
        api_base=server.url,
        api_key=changes.pop("api_key", None),
        price_per_million=(1.0, 2.0),
    )
    return ModelSettings(metric=config, backoff_s=0.01, **changes)


def cases(count: int) -> list[Case]:
    return [Case(id=f"case-{i}", input={"question": f"q{i}"}, output="billing") for i in range(count)]


def numbered(server: FakeOpenAI) -> None:
    """Every answer differs, so that a test can tell a cached answer from a fresh one."""
    counter = iter(range(1, 1_000_000))
    server.reply = lambda received: f"PASS #{next(counter)}"


# -- the key ----------------------------------------------------------------------------------------


def test_each_field_that_changes_the_answer_changes_the_key() -> None:
    base = AnswerRequest("openai/a", "http://127.0.0.1:1/v1", "Judge.", "Q: 1", 0.0)
    changed = {
        "model": "openai/b",
        "api_base": "http://127.0.0.1:2/v1",
        "instructions": "Judge strictly.",
        "input": "Q: 2",
        "temperature": 0.7,
        "mock_response": "PASS",
        "repeat": 1,
    }
    assert set(changed) == {field.name for field in fields(AnswerRequest)}
    keys = {name: replace(base, **{name: value}).key() for name, value in changed.items()}
    assert base.key() not in keys.values()
    assert len(set(keys.values())) == len(keys)
    assert replace(base, input=None).key() != base.key()  # no input is not an empty input
    assert replace(base, input="").key() != replace(base, input=None).key()


def test_a_trailing_slash_on_the_api_base_is_the_same_server() -> None:
    base = AnswerRequest("openai/a", "http://127.0.0.1:1/v1", "Judge.", None, 0.0)
    assert replace(base, api_base="http://127.0.0.1:1/v1/").key() == base.key()


def test_every_parameter_complete_sends_is_keyed_or_neutral(monkeypatch: pytest.MonkeyPatch) -> None:
    # A parameter added to complete() later must be put in the key or declared neutral: this fails until it is.
    sent: dict[str, Any] = {}

    def completion(**kwargs: Any) -> Any:
        sent.update(kwargs)
        message = SimpleNamespace(content="PASS")
        return SimpleNamespace(choices=[SimpleNamespace(message=message)], usage=None)

    fake = SimpleNamespace(completion=completion, completion_cost=lambda **_: None)
    monkeypatch.setattr(llm_module, "_litellm", lambda: fake)
    config = ModelConfig("openai/a", api_base="http://127.0.0.1:1/v1", api_key=SESSION_KEY)
    complete(ModelSettings(metric=config), "Judge.", "Q", mock_response="PASS")
    assert set(sent) <= KEYED_PARAMETERS | NEUTRAL_PARAMETERS, set(sent) - KEYED_PARAMETERS - NEUTRAL_PARAMETERS
    assert {"model", "messages", "temperature", "api_base", "mock_response"} <= set(sent)


def test_the_api_key_is_never_keyed_nor_stored(server: FakeOpenAI, pool, tmp_path: Path) -> None:
    cache = LlmCache(tmp_path)
    first = score_cases(
        JUDGE, cases(2), RunOptions(llm=make_handler(local(server, api_key=SESSION_KEY), cache=cache), pool=pool)
    )
    other_key = local(server, api_key="sk-another-key-0123456789")
    second = score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(other_key, cache=cache), pool=pool))
    assert len(server.requests) == 2  # another key, the same answers
    assert all(call.cached for result in second.results for call in result.llm_calls)
    assert [r.feedback for r in first.results] == [r.feedback for r in second.results]
    stored = b"".join(path.read_bytes() for path in tmp_path.glob(CACHE_DB_NAME + "*"))
    assert b"sk-session" not in stored and b"sk-another" not in stored


def test_answers_are_redacted_before_they_are_stored(server: FakeOpenAI, pool, tmp_path: Path) -> None:
    server.reply = f"PASS (your key is {SESSION_KEY})"
    cache = LlmCache(tmp_path)
    run = score_cases(
        JUDGE, cases(1), RunOptions(llm=make_handler(local(server, api_key=SESSION_KEY), cache=cache), pool=pool)
    )
    assert "[redacted]" in run.results[0].feedback and SESSION_KEY not in run.results[0].feedback
    again = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert again.results[0].llm_calls[0].cached
    assert SESSION_KEY not in again.results[0].feedback
    stored = b"".join(path.read_bytes() for path in tmp_path.glob(CACHE_DB_NAME + "*"))
    assert SESSION_KEY.encode() not in stored


# -- a second run -----------------------------------------------------------------------------------


def test_scoring_again_after_rewording_the_feedback_makes_no_model_call(server: FakeOpenAI, pool, cache) -> None:
    numbered(server)
    first = score_cases(
        JUDGE, cases(20), RunOptions(llm=make_handler(local(server), cache=cache), concurrency=4, pool=pool)
    )
    assert len(server.requests) == 20
    handler = make_handler(local(server), cache=cache)
    second = score_cases(JUDGE_REWORDED, cases(20), RunOptions(llm=handler, concurrency=4, pool=pool))
    assert len(server.requests) == 20  # not one more
    assert [r.feedback.removeprefix("The judge said: ") for r in second.results] == [r.feedback for r in first.results]
    calls = [call for result in second.results for call in result.llm_calls]
    assert len(calls) == 20 and all(call.cached and call.cost_usd == 0.0 for call in calls)
    assert all(call.prompt_tokens == 0 and call.completion_tokens == 0 for call in calls)
    assert handler.spent_usd == 0.0


def test_an_edit_that_changes_the_call_asks_the_model_again(server: FakeOpenAI, pool, cache) -> None:
    score_cases(JUDGE, cases(5), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    run = score_cases(STRICTER, cases(5), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(server.requests) == 10
    assert not any(call.cached for result in run.results for call in result.llm_calls)


def test_identical_calls_within_a_case_are_each_asked_and_each_cached(server: FakeOpenAI, pool, cache) -> None:
    # A metric that asks three times to take a vote gets three answers, not one answer thrice.
    numbered(server)
    first = score_cases(VOTE, cases(1), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(server.requests) == 3
    assert first.results[0].feedback == "PASS #1 | PASS #2 | PASS #3"
    second = score_cases(VOTE, cases(1), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(server.requests) == 3
    assert second.results[0].feedback == first.results[0].feedback


# -- the counts -------------------------------------------------------------------------------------


def test_the_judge_summary_counts_cached_calls_and_costs_only_real_ones(server: FakeOpenAI, pool, cache) -> None:
    first = judge_summary(
        score_cases(JUDGE, cases(4), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool)).results
    )
    assert first.calls == 4 and first.cached == 0 and (first.total_cost_usd or 0.0) > 0.0
    run = score_cases(JUDGE, cases(6), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    summary = judge_summary(run.results)
    assert summary.calls == 6 and summary.cached == 4
    assert summary.total_cost_usd == pytest.approx(first.total_cost_usd / 4 * 2)  # the two new calls only
    assert summary.to_json()["cached_calls"] == 4
    assert "4 answered from the cache" in summary.describe()


def test_a_cached_call_is_traced_with_the_lookups_latency() -> None:
    call = LlmCall.make("Judge.", "Q", "PASS", cached=True, latency_ms=0.4, elapsed_ms=0.4, cost_usd=0.0)
    assert LlmCall.from_json(call.to_json()) == call
    assert call.to_json()["cached"] is True
    assert LlmCall.from_json({"instructions": "x"}).cached is False
    assert call.slim().cached


# -- who bypasses it --------------------------------------------------------------------------------


def test_the_setting_turned_off_asks_the_model_every_time(server: FakeOpenAI, pool, cache, tmp_path) -> None:
    store = Store(tmp_path / "studio")
    save_cache_setting(store, CacheSetting(enabled=False))
    settings = replace(load_settings(store), metric=local(server).metric)
    assert settings.cache is False
    for _ in range(2):
        run = score_cases(JUDGE, cases(3), RunOptions(llm=make_handler(settings, cache=cache), pool=pool))
        assert not any(call.cached for result in run.results for call in result.llm_calls)
    assert len(server.requests) == 6
    assert cache.usage().entries == 0


def test_judge_consistency_asks_afresh_even_when_the_answers_are_cached(server: FakeOpenAI, pool, cache) -> None:
    numbered(server)
    score_cases(JUDGE, cases(3), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(server.requests) == 3
    options = RunOptions(concurrency=8, llm=make_handler(local(server), cache=cache), pool=pool)
    result = judge_consistency(LocalScorer(), MetricSource.of(JUDGE), cases(3), 2, options)
    assert len(server.requests) == 3 + 6
    assert "afresh" in result.cache_note
    assert cache.usage().entries == 3  # nor did it write its answers into the cache


def test_no_cache_on_the_command_line_asks_the_model(
    server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from skynet_core.cli import run

    metric, data = tmp_path / "judge.py", tmp_path / "cases.jsonl"
    metric.write_text(JUDGE)
    data.write_text(
        "".join(json.dumps({"id": f"c{i}", "input": {"question": f"q{i}"}, "output": "x"}) + "\n" for i in range(3))
    )
    env = {
        "SKYNET_METRIC_MODEL": "openai/gpt-4o-mini",
        "SKYNET_METRIC_API_BASE": server.url,
        "SKYNET_DATA_DIR": str(tmp_path / "data"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    arguments = ["score", str(metric), "--data", str(data), "--json"]

    def score(*extra: str) -> dict[str, Any]:
        """The command line in this process (litellm, seconds to import, is loaded here once)."""
        out, err = io.StringIO(), io.StringIO()
        assert run([*arguments, *extra], out, err) == 0, err.getvalue()
        report: dict[str, Any] = json.loads(out.getvalue())
        return report

    assert score()["judge"]["cached_calls"] == 0
    assert len(server.requests) == 3
    # Again in a fresh Python, saying last on stderr whether it imported litellm.
    probe = (
        "import sys\nfrom skynet_core.cli import run\ncode = run(sys.argv[1:])\n"
        "print('litellm' in sys.modules, file=sys.stderr)\nsys.exit(code)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *arguments],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, **env},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["judge"]["cached_calls"] == 3
    assert done.stderr.splitlines()[-1] == "False"  # every answer came from the cache: litellm was never needed
    assert len(server.requests) == 3
    assert score("--no-cache")["judge"]["cached_calls"] == 0
    assert len(server.requests) == 6


# -- identical calls at the same moment --------------------------------------------------------------


def test_identical_calls_in_flight_are_made_once(server: FakeOpenAI, pool, cache) -> None:
    server.latency_s = 0.5
    same = [Case(id=f"case-{i}", input={"question": "the same"}, output="billing") for i in range(6)]
    run = score_cases(JUDGE, same, RunOptions(llm=make_handler(local(server), cache=cache), concurrency=6, pool=pool))
    assert len(server.requests) == 1
    calls = [call for result in run.results for call in result.llm_calls]
    assert len(calls) == 6 and sum(not call.cached for call in calls) == 1
    assert judge_summary(run.results).cached == 5


def test_a_failed_call_fails_its_waiters_and_is_not_stored(cache: LlmCache) -> None:
    started, release = threading.Event(), threading.Event()
    calls: list[int] = []

    def failing() -> CachedAnswer:
        calls.append(1)
        started.set()
        release.wait(5)
        raise RuntimeError("the provider refused")

    errors: list[str] = []

    def ask() -> None:
        try:
            cache.answer("k", failing)
        except RuntimeError as exc:
            errors.append(str(exc))

    leader = threading.Thread(target=ask)
    leader.start()
    started.wait(5)
    followers = [threading.Thread(target=ask) for _ in range(3)]
    for thread in followers:
        thread.start()
    time.sleep(0.1)
    release.set()
    for thread in (leader, *followers):
        thread.join(5)
    assert calls == [1] and errors == ["the provider refused"] * 4
    assert cache.lookup("k") is None
    answer, source = cache.answer("k", lambda: CachedAnswer("PASS"))
    assert (answer.text, source) == ("PASS", Source.PROVIDER)


def test_a_handler_called_outside_the_runner_still_uses_the_cache(server: FakeOpenAI, cache) -> None:
    handler = make_handler(local(server), cache=cache)
    first = handler(LlmRequest("Judge.", "Q"))
    second = handler(LlmRequest("Judge.", "Q"))
    assert first["text"] == second["text"] and len(server.requests) == 1
    assert second["call"].cached and second["usage"]["cost_usd"] == 0.0


# -- the bound and persistence ----------------------------------------------------------------------


def test_the_least_recently_used_answers_go_past_the_bound(tmp_path: Path) -> None:
    now = [1000.0]
    one = CachedAnswer("x" * 200)
    size = len(one.to_json()) + 64  # an entry's bytes: the answer's JSON and its key
    cache = LlmCache(tmp_path, max_bytes=size * 5, clock=lambda: now[0])
    for index in range(5):
        now[0] += 1
        cache.store(f"{index:064d}", one)
    now[0] += 1
    assert cache.lookup(f"{0:064d}") is not None  # the oldest is used again: it stays
    now[0] += 1
    cache.store(f"{5:064d}", one)  # over the bound: the least recently used go, down to 90% of it
    usage = cache.usage()
    assert usage.bytes <= cache.max_bytes * 0.9
    kept = {index for index in range(6) if cache.lookup(f"{index:064d}") is not None}
    assert kept == {0, 3, 4, 5}
    assert usage.entries == 4 and usage.max_bytes == size * 5 and usage.file_bytes > 0


def test_an_answer_larger_than_the_bound_is_not_kept(tmp_path: Path) -> None:
    cache = LlmCache(tmp_path, max_bytes=100)
    cache.store("k", CachedAnswer("x" * 500))
    assert cache.lookup("k") is None and cache.usage().entries == 0


def test_answers_survive_a_restart_and_clear_forgets_them(tmp_path: Path) -> None:
    LlmCache(tmp_path).store("k", CachedAnswer("PASS", "openai/x", 20, 5, 0.001, 250.0))
    again = LlmCache(tmp_path)  # another process, or the server after a restart
    assert again.lookup("k") == CachedAnswer("PASS", "openai/x", 20, 5, 0.001, 250.0)
    assert again.usage().entries == 1
    again.clear()
    assert again.usage().entries == 0 and again.lookup("k") is None
    assert LlmCache(tmp_path).lookup("k") is None


def test_the_bound_comes_from_the_setting(tmp_path: Path) -> None:
    save_cache_setting(Store(tmp_path), CacheSetting(enabled=True, max_mb=3.0))
    assert LlmCache(tmp_path).max_bytes == 3_000_000
    assert CacheSetting.from_stored({"enabled": "no", "max_mb": -1}) == CacheSetting()
    assert CacheSetting.from_stored({"enabled": False, "max_mb": float("nan")}) == CacheSetting(enabled=False)


def test_a_run_without_model_calls_creates_no_cache_file(tmp_path: Path, pool) -> None:
    cache = LlmCache(tmp_path)
    score_cases(
        "def score(i, o, e=None):\n    return 1.0, {'feedback': 'ok'}\n",
        cases(2),
        RunOptions(llm=make_handler(ModelSettings(), cache=cache), pool=pool),
    )
    assert not (tmp_path / CACHE_DB_NAME).exists()


def test_a_stored_answer_that_is_not_one_is_a_miss(cache: LlmCache) -> None:
    cache.store("k", CachedAnswer("PASS"))
    from skynet_core.store import connect

    with connect(cache.path) as db:
        db.execute("UPDATE llm_answers SET answer = 'not json' WHERE key = 'k'")
    assert LlmCache(cache.directory).lookup("k") is None  # another process, which finds it in the file only
    assert CachedAnswer.from_json(b'{"text": 3}') is None


def test_litellm_loads_early_only_when_no_stored_answer_may_serve_the_run(tmp_path: Path, monkeypatch) -> None:
    from skynet_core.llm import handler as handler_module

    warmed: list[bool] = []
    monkeypatch.setattr(handler_module, "warm_up", lambda: warmed.append(True))
    settings = ModelSettings(metric=ModelConfig(model="openai/gpt-4o-mini"))
    handler_module.MetricLlm(settings, cache=LlmCache(tmp_path / "empty"))
    assert warmed == [True]  # nothing stored yet: a first run needs litellm, which loads while the run starts
    filled = LlmCache(tmp_path / "filled")
    filled.store("k", CachedAnswer("PASS"))
    handler_module.MetricLlm(settings, cache=LlmCache(tmp_path / "filled"))
    assert warmed == [True]  # a re-score may never need it: imported at the first answer the cache lacks
    handler_module.MetricLlm(settings)
    assert warmed == [True, True]  # no cache: every answer is a call
