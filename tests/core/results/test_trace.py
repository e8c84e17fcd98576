"""The trace of each llm() call: what was sent and answered, tokens, latency, cost, retries and errors.

Every model call goes to tests/fake_openai.py on 127.0.0.1 or is answered by litellm's
``mock_response``; nothing reaches the internet.
"""

from __future__ import annotations

import orjson

from skynet_core.cases import Case
from skynet_core.judge import judge_summary
from skynet_core.llm import ModelConfig, ModelSettings, make_handler
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.results.trace import (
    CLIP_CHARS,
    CLIP_HEAD,
    CLIP_MARK,
    FULL_CALLS,
    LIMIT_REACHED,
    LlmCall,
    bounded,
    clip_text,
)
from skynet_core.runs import RunKey
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases
from skynet_core.store.runs import RunStore
from tests.fake_openai import FakeOpenAI
from tests.provider_keys import SESSION_KEY

JUDGE = """
from skynet import llm

def score(input, output, expected=None):
    verdict = llm("Answer PASS or FAIL.", input=f"Q: {input['question']} A: {output}")
    return (1.0 if verdict.startswith("PASS") else 0.0), {"feedback": verdict[:100]}
"""
TWICE = """
from skynet import llm

def score(input, output, expected=None):
    first = llm("First look.", input=output)
    second = llm("Second look.", input=output)
    return 1.0, {"feedback": first + second}
"""
PLAIN = """
def score(input, output, expected=None):
    return 1.0, {"feedback": "fine"}
"""


def local(server: FakeOpenAI, model: str = "openai/gpt-4o-mini", **changes) -> ModelSettings:
    config = ModelConfig(model, api_base=server.url, api_key=changes.pop("api_key", None))
    return ModelSettings(metric=config, backoff_s=0.01, **changes)


def cases(count: int = 1) -> list[Case]:
    return [Case(id=f"case-{i}", input={"question": f"q{i}"}, output="billing") for i in range(count)]


# -- the value -------------------------------------------------------------


def test_a_call_round_trips_through_json() -> None:
    call = LlmCall.make(
        "Answer PASS or FAIL.",
        "Q: a",
        "PASS",
        model="openai/x",
        prompt_tokens=20,
        completion_tokens=5,
        latency_ms=12.5,
        elapsed_ms=40.0,
        cost_usd=0.0001,
        retries=1,
    )
    data = orjson.loads(orjson.dumps(call.to_json()))
    assert LlmCall.from_json(data) == call
    assert call.ok and not call.clipped
    assert set(data) == {
        "instructions",
        "input",
        "answer",
        "model",
        "prompt_tokens",
        "completion_tokens",
        "latency_ms",
        "elapsed_ms",
        "cost_usd",
        "retries",
        "error",
        "error_kind",
        "clipped",
        "cached",
    }


def test_from_json_survives_missing_and_wrong_typed_keys() -> None:
    call = LlmCall.from_json({"instructions": 3, "latency_ms": "slow", "clipped": [1], "cost_usd": True})
    assert call == LlmCall("")


def test_long_texts_keep_their_head_and_tail_and_say_how_long_they_were() -> None:
    answer = "A" * 10_000 + "VERDICT: PASS"
    shown, full = clip_text(answer)
    assert full == len(answer)
    assert shown.startswith("A" * CLIP_HEAD) and shown.endswith("VERDICT: PASS")
    assert len(shown) == CLIP_CHARS + len(CLIP_MARK)
    call = LlmCall.make("short", None, answer)
    assert call.clipped == {"answer": len(answer)} and call.answer == shown


def test_keys_are_redacted_before_a_text_is_clipped() -> None:
    # A key that straddles the clip point would escape the patterns if the text were cut first.
    text = "x" * (CLIP_HEAD - 10) + f" {SESSION_KEY} " + "y" * 5_000
    call = LlmCall.make(text, f"Bearer {SESSION_KEY}", SESSION_KEY, secrets=[SESSION_KEY])
    assert SESSION_KEY not in orjson.dumps(call.to_json()).decode()
    assert "sk-session" not in call.instructions


def test_a_case_keeps_the_texts_of_its_first_calls_only() -> None:
    calls = [LlmCall.make(f"ask {n}", "in", "out") for n in range(FULL_CALLS + 5)]
    kept = bounded(calls)
    assert len(kept) == FULL_CALLS + 5
    assert kept[FULL_CALLS - 1].instructions == f"ask {FULL_CALLS - 1}"
    assert kept[FULL_CALLS].instructions == "" and kept[FULL_CALLS].clipped == {
        "instructions": 6,
        "input": 2,
        "answer": 3,
    }


# -- through the runner ----------------------------------------------------


def test_an_answered_call_is_traced_with_what_was_sent_and_what_it_cost(server, pool) -> None:
    from skynet_core.llm import warm_up

    warm_up(wait=True)  # litellm's first import (seconds on a loaded machine) is not inside a case's time
    server.latency_s = 0.02
    run = score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(local(server)), pool=pool))
    for n, result in enumerate(run.results):
        assert result.ok, result.error
        (call,) = result.llm_calls
        assert call.instructions == "Answer PASS or FAIL." and call.input == f"Q: q{n} A: billing"
        assert call.answer == "PASS. The triage fits."
        assert (call.prompt_tokens, call.completion_tokens) == (20, 5)
        assert call.latency_ms >= 20 and call.elapsed_ms >= call.latency_ms
        assert call.cost_usd is not None and call.cost_usd > 0 and call.retries == 0
        assert call.model == "openai/gpt-4o-mini" and call.ok
        assert result.judge.calls == 1 and result.judge.cost_usd == call.cost_usd


def test_mock_response_is_traced_without_a_server(pool) -> None:
    settings = ModelSettings(metric=ModelConfig("openai/gpt-4o-mini", api_key="sk-unused-00000000"))
    run = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(settings, mock_response="PASS. mocked"), pool=pool))
    (call,) = run.results[0].llm_calls
    assert call.answer == "PASS. mocked" and call.ok


def test_a_retried_call_counts_its_retries(server, pool) -> None:
    server.script = [429, 500]
    run = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(local(server, max_retries=2)), pool=pool))
    result = run.results[0]
    assert result.ok, result.error
    (call,) = result.llm_calls
    assert call.retries == 2 and call.ok and call.answer == "PASS. The triage fits."


def test_a_failing_call_keeps_its_error_class_and_message(server, pool) -> None:
    server.script = [500, 500, 500]
    run = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(local(server, max_retries=2)), pool=pool))
    result = run.results[0]
    assert result.status is CaseStatus.ERROR
    (call,) = result.llm_calls
    assert not call.ok and call.answer is None and call.retries == 2
    assert call.error_kind == "InternalServerError"
    assert "tried 3 times" in call.error and call.error in result.error
    assert call.instructions == "Answer PASS or FAIL." and call.input == "Q: q0 A: billing"
    assert result.judge.calls == 1


def test_a_clipped_long_answer_is_flagged(server, pool) -> None:
    server.reply = "PASS " + "because " * 2_000 + "THE END"
    run = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(local(server)), pool=pool))
    (call,) = run.results[0].llm_calls
    assert call.clipped == {"answer": len(server.reply)}
    assert call.answer is not None and call.answer.startswith("PASS because") and call.answer.endswith("THE END")
    assert len(call.answer) <= CLIP_CHARS + len(CLIP_MARK)


def test_no_key_ever_reaches_a_trace(server, pool) -> None:
    # The provider (or a proxy) echoes the key in its answer and in its error: neither reaches the trace.
    server.reply = f"PASS (your key is {SESSION_KEY})"
    server.echo_authorization = True
    settings = local(server, api_key=SESSION_KEY, max_retries=0)
    run = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(settings), pool=pool))
    server.script = [500]
    run2 = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(settings), pool=pool))
    for result in (*run.results, *run2.results):
        assert result.llm_calls
        text = orjson.dumps(result.to_json()["llm_calls"]).decode()
        assert SESSION_KEY not in text and "sk-session" not in text
    assert "[redacted]" in (run.results[0].llm_calls[0].answer or "")
    assert not run2.results[0].llm_calls[0].ok


def test_a_call_over_the_per_case_cap_is_traced_as_refused(server, pool) -> None:
    run = score_cases(TWICE, cases(1), RunOptions(llm=make_handler(local(server, max_calls_per_case=1)), pool=pool))
    result = run.results[0]
    assert result.status is CaseStatus.ERROR
    first, second = result.llm_calls
    assert first.ok and first.instructions == "First look."
    assert (
        second.error_kind == LIMIT_REACHED and second.instructions == "Second look." and "more than 1" in second.error
    )


def test_a_handler_without_a_trace_of_its_own_is_traced_from_its_reply(pool) -> None:
    def handler(request):
        return {"text": "PASS", "usage": {"latency_ms": 3.0, "prompt_tokens": 2, "completion_tokens": 1}}

    run = score_cases(JUDGE, cases(1), RunOptions(llm=handler, pool=pool))
    (call,) = run.results[0].llm_calls
    assert (call.answer, call.latency_ms, call.prompt_tokens, call.completion_tokens) == ("PASS", 3.0, 2, 1)
    run = score_cases(JUDGE, cases(1), RunOptions(llm=None, pool=pool))
    (call,) = run.results[0].llm_calls
    assert call.error_kind == "LlmUnavailable" and not call.ok


def test_a_metric_without_llm_calls_has_no_trace_and_unchanged_json(pool) -> None:
    result = score_cases(PLAIN, cases(1), RunOptions(pool=pool)).results[0]
    assert result.llm_calls == ()
    assert "llm_calls" not in result.to_json()
    assert result.to_json_bytes(trace=True) == result.to_json_bytes()
    assert orjson.loads(result.to_json_bytes()) == result.to_json()


def test_json_bytes_carry_the_trace_only_when_asked(server, pool) -> None:
    result = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(local(server)), pool=pool)).results[0]
    assert "llm_calls" not in orjson.loads(result.to_json_bytes())
    assert orjson.loads(result.to_json_bytes(trace=True)) == result.to_json()
    assert CaseResult.from_json(result.to_json()) == result


def test_traces_are_kept_with_saved_runs(server, pool, tmp_path) -> None:
    results = score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(local(server)), pool=pool)).results
    store = RunStore(tmp_path)
    store.save(RunKey("example", "", None, "abc"), results)
    saved = store.latest("example")
    assert saved is not None
    assert [r.llm_calls for r in saved.results] == [r.llm_calls for r in results]
    assert saved.results[0].llm_calls[0].answer == "PASS. The triage fits."


# -- the judge summary -----------------------------------------------------


def test_the_judge_summary_counts_calls_that_all_failed(server, pool) -> None:
    server.require_key = "sk-right-0000000000"
    settings = local(server, api_key="sk-wrong-0000000000")
    run = score_cases(JUDGE, cases(3), RunOptions(llm=make_handler(settings), pool=pool))
    assert all(r.status is CaseStatus.ERROR for r in run.results)
    summary = judge_summary(run.results)
    assert summary.used and summary.calls == 3 and summary.failed == 3 and summary.answered == 0
    assert summary.errors == {"AuthenticationError": 3}
    assert summary.unpriced_cases == 0
    text = summary.describe()
    assert text.startswith("judge: 3 calls, 3 failed (AuthenticationError 3); per 1,000 cases")
    assert summary.to_json()["failed_calls"] == 3
    assert summary.to_json()["errors_by_kind"] == {"AuthenticationError": 3}


def test_the_judge_summary_without_a_model_counts_each_refused_call(pool) -> None:
    run = score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(ModelSettings.from_env({})), pool=pool))
    summary = judge_summary(run.results)
    assert (summary.calls, summary.failed, dict(summary.errors)) == (2, 2, {"NoModel": 2})


def test_the_judge_summary_describes_itself_in_chinese(server, pool) -> None:
    from skynet_core.i18n import use_language

    server.script = [500]
    run = score_cases(JUDGE, cases(2), RunOptions(llm=make_handler(local(server, max_retries=0)), pool=pool))
    summary = judge_summary(run.results)
    assert (summary.calls, summary.failed) == (2, 1)
    with use_language("zh_CN"):
        text = summary.describe()
    assert "InternalServerError 1" in text and "judge" not in text


# -- the command line --------------------------------------------------------


def cli_score(tmp_path, server: FakeOpenAI, monkeypatch, pool, *flags: str) -> list[dict]:
    """``skynet score --json-lines`` on two cases of a judge, run in this process by the command line's own entry
    (``skynet_core.cli.run``, what ``python -m skynet_core`` calls): a fresh Python would import litellm again
    (about 5 s of CPU a run); the process entry itself is tested in tests/core/cli. Its sandbox is the session's
    warm pool."""
    import io
    import json

    from skynet_core import cli
    from skynet_core.scoring.runner import pool as pools

    metric, data = tmp_path / "judge.py", tmp_path / "cases.jsonl"
    metric.write_text(JUDGE)
    data.write_text(
        "".join(json.dumps({"id": f"c{i}", "input": {"question": "q"}, "output": "x"}) + "\n" for i in range(2))
    )
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url)
    monkeypatch.setenv("SKYNET_METRIC_MODEL", "openai/judge-model")
    monkeypatch.setattr(pools, "_default", pool)
    stdout, stderr = io.StringIO(), io.StringIO()
    cli.run(["score", str(metric), "--data", str(data), "--json-lines", *flags], stdout, stderr)
    lines = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert lines, stderr.getvalue()
    return lines


def test_the_command_line_adds_traces_only_with_trace(tmp_path, server, monkeypatch, pool) -> None:
    server.script = [500] * 3  # a call fails (its retries too) in the first run; every call is answered in the second
    plain = cli_score(tmp_path, server, monkeypatch, pool, "--concurrency", "1")
    assert all("llm_calls" not in line for line in plain[:-1])
    judge = plain[-1]["judge"]
    assert judge["calls"] == 2 and judge["failed_calls"] >= 1 and "InternalServerError" in judge["errors_by_kind"]
    traced = cli_score(tmp_path, server, monkeypatch, pool, "--trace")
    for line in traced[:-1]:
        (call,) = line["llm_calls"]
        assert call["instructions"] == "Answer PASS or FAIL." and call["input"] == "Q: q A: x"
        assert set(line) - {"llm_calls"} == set(plain[0])  # the other keys as they were


# -- cases that time out -----------------------------------------------------

THEN_LOOP = """
from skynet import llm

def score(input, output, expected=None):
    llm("First look.", input=output)
    while True:
        pass
"""


def test_a_call_still_waiting_when_the_case_times_out_is_traced(server, pool) -> None:
    from skynet_core.llm import warm_up

    warm_up(wait=True)  # litellm's first import (seconds in a fresh clone) is not inside the case's time
    server.latency_s = 5.0
    run = score_cases(JUDGE, cases(1), RunOptions(llm=make_handler(local(server)), pool=pool, timeout_s=2.0))
    result = run.results[0]
    assert result.status is CaseStatus.TIMEOUT
    (call,) = result.llm_calls
    assert call.error_kind == "CaseTimeout" and call.instructions == "Answer PASS or FAIL."
    # The call waited until the case's time ran out: most of the 2 s (the metric's load and its call's start
    # take the rest, longer on a loaded machine), and never past the case.
    assert 1_000 <= call.elapsed_ms <= result.duration_ms + 100 and result.judge.calls == 1
    assert judge_summary(run.results).errors == {"CaseTimeout": 1}


def test_the_answered_calls_of_a_case_that_then_times_out_are_kept(server, pool) -> None:
    from skynet_core.llm import warm_up

    warm_up(wait=True)  # litellm's first import takes seconds: not inside the case's time
    run = score_cases(THEN_LOOP, cases(1), RunOptions(llm=make_handler(local(server)), pool=pool, timeout_s=4.0))
    result = run.results[0]
    assert result.status is CaseStatus.TIMEOUT
    (call,) = result.llm_calls
    assert call.ok and call.answer == "PASS. The triage fits."
