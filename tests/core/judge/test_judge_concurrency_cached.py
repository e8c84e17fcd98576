"""A judge's new cases after cached ones: a case that asks the model gets the configured concurrency, however many
cases before it were answered from the answer cache. The run, "Score all" (the workspace's job) and the command
line each score a dataset whose first cases' answers are cached and whose last ones are new; the model
(tests/fake_openai.py, 0.5 s an answer) must see 8 of the new calls in flight at once, not one at a time. There
are enough new cases for 5 rounds of 8: the helpers' sandboxes start while the first rounds are asked, and a
loaded machine starts them slowly."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from skynet_core.cases import Case
from skynet_core.cli import EXIT_OK, run
from skynet_core.llm import ModelConfig, ModelSettings, make_handler
from skynet_core.llm.cache import LlmCache
from skynet_core.metric.source import MetricSource
from skynet_core.scoring import LocalScorer, RunOptions
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobBoard, JobSlot
from tests.fake_openai import FakeOpenAI

JUDGE = """
from skynet import llm

def score(input, output, expected=None):
    verdict = llm("Answer PASS or FAIL.", input=f"Q: {input['question']} A: {output}")
    return (1.0 if verdict.startswith("PASS") else 0.0), {"feedback": verdict[:100]}
"""
LATENCY_S = 0.5
IN_FLIGHT = 8


def cases(count: int, first: int = 0) -> list[Case]:
    return [Case(id=f"case-{i}", input={"question": f"q{i}"}, output="billing") for i in range(first, first + count)]


def write_cases(path: Path, count: int) -> Path:
    path.write_text(
        "".join(json.dumps({"id": c.id, "input": c.input, "output": c.output}) + "\n" for c in cases(count))
    )
    return path


def settings(server: FakeOpenAI) -> ModelSettings:
    return ModelSettings(metric=ModelConfig("openai/judge", api_base=server.url), concurrency=IN_FLIGHT)


def cached_first(server: FakeOpenAI) -> None:
    """After the run that filled the cache (quickly): the new cases' calls are slow, and counted afresh."""
    server.latency_s = LATENCY_S
    server.max_in_flight = 0
    server.requests.clear()


@dataclass(frozen=True)
class Filled:
    """The module's answer cache, filled once by a run (at a fast model) of the first ``MOST_CACHED`` cases, and the
    server that answered it: the run tests below take their cached cases from there, each with new cases of its
    own (``NEW_FROM[cached]`` on), so that neither test's new cases are cached by the other."""

    server: FakeOpenAI
    cache: LlmCache


MOST_CACHED = 100
NEW_FROM = {60: 1000, 100: 2000}  # the first question number of each size's new cases


@pytest.fixture(scope="module")
def filled(pool, tmp_path_factory) -> Iterator[Filled]:
    with FakeOpenAI(latency_s=0.02) as server:
        cache = LlmCache(tmp_path_factory.mktemp("answers"))
        first = LocalScorer()(
            JUDGE,
            cases(MOST_CACHED),
            RunOptions(concurrency=IN_FLIGHT, llm=make_handler(settings(server), cache=cache), pool=pool),
        )
        assert all(result.ok for result in first.results)
        yield Filled(server, cache)


@pytest.mark.parametrize(("cached", "new"), [(60, 40), (100, 40)])
def test_new_cases_after_cached_ones_reach_the_model_eight_at_a_time(filled, pool, cached, new) -> None:
    """``cached`` cases answered from the cache (the size either side of the runner's first 64 results, by which it
    judges the typical case), then ``new`` cases that ask the model."""
    server, cache = filled.server, filled.cache
    cached_first(server)
    again = LocalScorer()(
        JUDGE,
        cases(cached) + cases(new, first=NEW_FROM[cached]),
        RunOptions(concurrency=IN_FLIGHT, llm=make_handler(settings(server), cache=cache), pool=pool),
    )
    assert all(result.ok for result in again.results) and len(server.requests) == new
    assert server.max_in_flight == IN_FLIGHT


def test_score_all_sends_the_new_cases_eight_at_a_time(server, pool, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(tmp_path))  # the data files a visitor may open
    ws = Workspace(tmp_path / "studio", pool=pool, jobs=JobBoard(grace_s=60), env={})
    ws.settings.save_models(settings(server))
    server.latency_s = 0.02
    ws.data.save_choice(str(write_cases(tmp_path / "support.jsonl", 60)))
    job = ws.jobs.score_all(JobSlot(), MetricSource.of(JUDGE))
    assert job.wait(120) and job.result is not None and job.result.ok, job.result
    cached_first(server)
    ws.data.save_choice(str(write_cases(tmp_path / "support100.jsonl", 100)))
    job = ws.jobs.score_all(JobSlot(), MetricSource.of(JUDGE))
    assert job.wait(120) and job.result is not None and job.result.ok, job.result
    assert len(server.requests) == 40
    assert server.max_in_flight == IN_FLIGHT


def test_the_command_line_sends_the_new_cases_eight_at_a_time(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SKYNET_METRIC_MODEL", "openai/judge")
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url)
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    metric = tmp_path / "judge.py"
    metric.write_text(JUDGE)

    def score(count: int) -> dict:
        out, err = io.StringIO(), io.StringIO()
        data = write_cases(tmp_path / f"cases{count}.jsonl", count)
        code = run(["score", str(metric), "--data", str(data), "--json", "--concurrency", str(IN_FLIGHT)], out, err)
        assert code == EXIT_OK, err.getvalue()
        return json.loads(out.getvalue())

    server.latency_s = 0.02
    score(40)
    cached_first(server)
    report = score(80)  # 40 new cases, 5 rounds of 8 as in the other tests (there were 80, twice the model calls)
    assert report["judge"]["cached_calls"] == 40 and len(server.requests) == 40
    assert server.max_in_flight == IN_FLIGHT
