"""Answers sent ahead: a case scored again gets the cached answers of the calls it made last time, sealed by
their requests, and its calls are answered in the sandbox without a round trip to the studio. Model calls go
to tests/fake_openai.py on 127.0.0.1, which counts the calls it saw; the round trips are counted at the
runner's ``answer_llm``."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from skynet_core.cases import Case
from skynet_core.judge import judge_summary
from skynet_core.llm import ModelConfig, ModelSettings, make_handler
from skynet_core.llm.cache import CachedAnswer, CaseCalls, LlmCache, RecordedCall
from skynet_core.results.trace import LlmCall
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import worker as worker_module
from skynet_core.scoring.runner.run import score_cases
from skynet_core.scoring.sandbox import sealed
from tests.core.llm.test_llm_cache import JUDGE, JUDGE_REWORDED, STRICTER, numbered
from tests.fake_openai import FakeOpenAI

VOTE = """
from skynet import llm

def score(input, output, expected=None):
    votes = [llm("Vote PASS or FAIL.", input=output) for _ in range(VOTES)]
    return 1.0, {"feedback": " | ".join(votes)}
"""
# Reports an answer taken ahead that was never sent (metric code can reach the channel it runs beside).
FORGES = """
from skynet import _context, llm

def score(input, output, expected=None):
    verdict = llm("Answer PASS or FAIL.", input=f"Q: {input['question']} A: {output}")
    ahead = _context._llm_transport.__self__.ahead
    if ahead is not None:
        ahead.used.append(REPORT)
    return 1.0, {"feedback": verdict}
"""


@pytest.fixture
def cache(tmp_path: Path) -> LlmCache:
    return LlmCache(tmp_path)


@pytest.fixture
def round_trips(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The instructions of every llm() call that reached the studio (a round trip from the sandbox)."""
    seen: list[str] = []
    answer = worker_module.answer_llm

    def counted(message: dict[str, Any], *args: Any) -> dict[str, Any]:
        seen.append(message["instructions"])
        return answer(message, *args)

    monkeypatch.setattr(worker_module, "answer_llm", counted)
    return seen


def local(server: FakeOpenAI, model: str = "openai/gpt-4o-mini", **changes: Any) -> ModelSettings:
    config = ModelConfig(model, api_base=server.url, price_per_million=(1.0, 2.0))
    return ModelSettings(metric=config, backoff_s=0.01, **changes)


def cases(count: int, output: str = "billing") -> list[Case]:
    return [Case(id=f"case-{i}", input={"question": f"q{i}"}, output=output) for i in range(count)]


def calls_of(run: Any) -> list[LlmCall]:
    return [call for result in run.results for call in result.llm_calls]


# -- a second run ------------------------------------------------------------------------------------


def test_scoring_again_answers_the_calls_in_the_sandbox(server: FakeOpenAI, pool, cache, round_trips) -> None:
    numbered(server)
    first = score_cases(
        JUDGE, cases(12), RunOptions(llm=make_handler(local(server), cache=cache), concurrency=4, pool=pool)
    )
    assert len(server.requests) == 12 and len(round_trips) == 12
    handler = make_handler(local(server), cache=cache)
    second = score_cases(JUDGE_REWORDED, cases(12), RunOptions(llm=handler, concurrency=4, pool=pool))
    assert len(server.requests) == 12 and len(round_trips) == 12  # no call, and no call crossed to the studio
    assert [r.feedback.removeprefix("The judge said: ") for r in second.results] == [r.feedback for r in first.results]
    before, again = calls_of(first), calls_of(second)
    assert len(again) == 12 and all(call.cached and call.cost_usd == 0.0 for call in again)
    assert all(call.prompt_tokens == 0 and call.completion_tokens == 0 and call.retries == 0 for call in again)
    assert all(0.0 <= call.latency_ms < 1000.0 and call.elapsed_ms == call.latency_ms for call in again)
    assert [(c.instructions, c.input, c.answer, c.model) for c in again] == [
        (c.instructions, c.input, c.answer, c.model) for c in before
    ]
    summary = judge_summary(second.results)
    assert summary.calls == 12 and summary.cached == 12 and not summary.total_cost_usd
    assert handler.spent_usd == 0.0


def test_a_third_run_is_answered_ahead_too(server: FakeOpenAI, pool, cache, round_trips) -> None:
    # A case that took its answers ahead keeps its record for the run after.
    for _ in range(3):
        run = score_cases(JUDGE, cases(3), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(server.requests) == 3 and len(round_trips) == 3
    assert all(call.cached for call in calls_of(run))


def test_an_edit_that_changes_the_call_asks_the_model_and_is_answered_ahead_after(
    server: FakeOpenAI, pool, cache, round_trips
) -> None:
    score_cases(JUDGE, cases(4), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    changed = score_cases(STRICTER, cases(4), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(server.requests) == 8 and len(round_trips) == 8  # the answers sent ahead answer other calls
    assert not any(call.cached for call in calls_of(changed))
    again = score_cases(STRICTER, cases(4), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(server.requests) == 8 and len(round_trips) == 8
    assert all(call.cached for call in calls_of(again))


def test_identical_calls_within_a_case_each_get_their_own_answer(server: FakeOpenAI, pool, cache, round_trips):
    numbered(server)
    vote = VOTE.replace("VOTES", "3")
    first = score_cases(vote, cases(1), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert first.results[0].feedback == "PASS #1 | PASS #2 | PASS #3"
    second = score_cases(vote, cases(1), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert second.results[0].feedback == first.results[0].feedback
    assert len(server.requests) == 3 and len(round_trips) == 3
    assert [call.answer for call in calls_of(second)] == ["PASS #1", "PASS #2", "PASS #3"]


def test_an_answer_the_cache_no_longer_holds_in_memory_is_asked_for_in_its_turn(
    server: FakeOpenAI, pool, cache, round_trips
) -> None:
    # The second vote's answer left the memory: the first and third are taken ahead, the second crosses to the
    # studio as the case's second identical call (answered from the file, not the model).
    numbered(server)
    vote = VOTE.replace("VOTES", "3")
    score_cases(vote, cases(1), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    second_key = next(iter(cache.case_calls._calls.values()))[1].answer_key
    cache._memory.pop(second_key)
    again = score_cases(vote, cases(1), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert again.results[0].feedback == "PASS #1 | PASS #2 | PASS #3"
    assert len(server.requests) == 3 and len(round_trips) == 4
    assert [(call.answer, call.cached) for call in calls_of(again)] == [
        ("PASS #1", True),
        ("PASS #2", True),
        ("PASS #3", True),
    ]


def test_the_calls_a_case_may_make_count_the_answers_taken_ahead(server: FakeOpenAI, pool, cache) -> None:
    vote = VOTE.replace("VOTES", "4")
    score_cases(
        vote, cases(1), RunOptions(llm=make_handler(local(server, max_calls_per_case=4), cache=cache), pool=pool)
    )
    capped = score_cases(
        vote, cases(1), RunOptions(llm=make_handler(local(server, max_calls_per_case=3), cache=cache), pool=pool)
    )
    result = capped.results[0]
    assert not result.ok and "more than 3 llm() calls" in result.error
    assert len(result.llm_calls) == 4 and [call.cached for call in result.llm_calls[:3]] == [True] * 3
    assert result.llm_calls[3].error_kind == "LimitReached"
    assert len(server.requests) == 4


# -- what is sent, and to whom ------------------------------------------------------------------------


def test_other_settings_or_another_case_get_nothing_ahead(server: FakeOpenAI, pool, cache, round_trips) -> None:
    score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    other_model = score_cases(
        JUDGE, cases(2), RunOptions(llm=make_handler(local(server, "openai/other"), cache=cache), pool=pool)
    )
    assert len(server.requests) == 4 and not any(call.cached for call in calls_of(other_model))
    other_output = score_cases(
        JUDGE, cases(2, "refund"), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool)
    )
    assert len(server.requests) == 6 and not any(call.cached for call in calls_of(other_output))
    assert len(round_trips) == 6


def test_a_run_without_the_cache_sends_nothing_ahead(server: FakeOpenAI, pool, cache, round_trips) -> None:
    score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    off = score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(local(server, cache=False), cache=cache), pool=pool))
    assert len(server.requests) == 4 and len(round_trips) == 4
    assert not any(call.cached for call in calls_of(off))


def test_clearing_the_cache_forgets_what_each_case_asked(server: FakeOpenAI, pool, cache) -> None:
    score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(cache.case_calls) == 2
    cache.clear()
    assert len(cache.case_calls) == 0
    run = score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert len(server.requests) == 4 and not any(call.cached for call in calls_of(run))


@pytest.mark.parametrize("report", ["[7, 0.1]", "[0, 0.1]", "'taken'", "[True, 0.1]", "[0, 'soon']"])
def test_a_report_of_answers_never_sent_fails_its_case(server: FakeOpenAI, pool, cache, report: str) -> None:
    # Never sent, taken twice, not a pair, not an index, not a time: the message is forged.
    metric = FORGES.replace("REPORT", report)
    first = score_cases(metric, cases(2), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert all(result.ok for result in first.results)  # nothing was sent ahead: there was nothing to forge
    second = score_cases(metric, cases(2), RunOptions(llm=make_handler(local(server), cache=cache), pool=pool))
    assert [result.ok for result in second.results] == [False, False]
    assert all("malformed results message" in result.error for result in second.results)
    assert len(server.requests) == 2


# -- the seal ---------------------------------------------------------------------------------------


def test_an_answer_opens_only_with_the_request_that_asks_for_it() -> None:
    request = sealed.request_bytes("Answer PASS or FAIL.", "Q: 1", 0)
    blob = sealed.seal("PASS, the refund is due", sealed.seal_key(request))
    assert "PASS" not in blob and "refund" not in blob
    assert sealed.unseal(blob, sealed.seal_key(request)) == "PASS, the refund is due"
    for other in (("Answer PASS or FAIL.", "Q: 2", 0), ("Answer PASS or FAIL.", "Q: 1", 1), ("Answer.", "Q: 1", 0)):
        key = sealed.seal_key(sealed.request_bytes(*other))
        try:
            assert sealed.unseal(blob, key) != "PASS, the refund is due"
        except ValueError:
            pass  # not UTF-8 once opened with the wrong key
    assert sealed.seal("PASS", sealed.seal_key(request)) != sealed.seal("PASS", sealed.seal_key(request))  # nonce


def test_a_request_is_told_apart_from_every_other() -> None:
    calls = [("a", "b", 0), ("ab", None, 0), ("a", None, 0), ("a", "", 0), ("a", "b", 1), ("", "ab", 0), ("é", None, 0)]
    requests = [sealed.request_bytes(*call) for call in calls]
    assert len(set(requests)) == len(calls)
    assert len({sealed.lookup_id(request) for request in requests}) == len(calls)
    assert sealed.lookup_id(requests[0]) not in sealed.seal_key(requests[0]).hex()
    assert sealed.unseal(sealed.seal("\ud800 lone", b"k" * 32), b"k" * 32) == "\ud800 lone"


def test_the_record_of_calls_is_bounded() -> None:
    trace = LlmCall("Judge.", "x" * 1000)
    call = RecordedCall("id", "sealed", CachedAnswer("PASS"), "key", "first", trace)
    record = CaseCalls(cases=3, text=100_000)
    for index in range(5):
        record.keep("scope", bytes([index]), (call,))
    assert len(record) == 3 and record.of("scope", bytes([0])) == () and record.of("scope", bytes([4])) == (call,)
    small = CaseCalls(cases=100, text=call.size * 2)
    for index in range(5):
        small.keep("scope", bytes([index]), (call,))
    assert len(small) == 2
    small.keep("scope", bytes([4]), ())
    assert len(small) == 1 and small.of("scope", bytes([4])) == ()
    assert replace(call, trace=LlmCall("J")).size < call.size
