"""The workspace's bounds: the answer cache in the run options every job uses (on by default, off by its setting;
judge consistency and the judge try-out ask afresh), the cache's size and clearing, the sandbox cap's setting
and queue, and a dataset loaded out of the garbage collector's sight. Model calls go to tests/fake_openai.py."""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator

import pytest

from skynet_core.cases import Case
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.llm.cache import CacheSetting
from skynet_core.metric.source import MetricSource
from skynet_core.scoring.runner.limit import default_capacity, sandbox_limit
from skynet_core.workspace import Workspace, data, workspace_for
from skynet_core.workspace.jobs import JobBoard, JobSlot
from tests.collector import steady_state
from tests.fake_openai import FakeOpenAI

JUDGE = MetricSource.of(
    "from skynet import llm\n\n"
    "def score(input, output, expected=None):\n"
    "    verdict = llm('Answer PASS or FAIL.', input=output)\n"
    "    return (1.0 if verdict.startswith('PASS') else 0.0), {'feedback': verdict[:100]}\n"
)
HANGS = MetricSource.of("def score(input, output, expected=None):\n    while True:\n        pass\n")
CASES = [Case(id=f"case-{i}", input={"question": f"q{i}"}, output=f"answer {i}") for i in range(3)]


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        counter = iter(range(1, 1_000_000))
        fake.reply = lambda received: f"PASS #{next(counter)}"  # every answer differs: a cached one is told apart
        yield fake


@pytest.fixture
def ws_with_judge(tmp_path, pool, server: FakeOpenAI) -> Workspace:
    env = {"SKYNET_METRIC_MODEL": "openai/gpt-4o-mini", "SKYNET_METRIC_API_BASE": server.url}
    return Workspace(tmp_path, pool=pool, jobs=JobBoard(grace_s=60), env=env)


@pytest.fixture
def cap_restored() -> Iterator[None]:
    """The process's sandbox cap as it was before the test (the cap is process-wide)."""
    before = sandbox_limit().capacity
    yield
    sandbox_limit().set_capacity(before)


def score(ws_with_judge: Workspace) -> list[str]:
    """Every case of CASES scored with JUDGE through the workspace's run options; each case's feedback."""
    job = ws_with_judge.jobs.score(JobSlot(), JUDGE, CASES, ws_with_judge.settings.run_options())
    assert job.wait(300) and job.result is not None, job.error
    return [result.feedback for result in job.result.cases]


def test_a_second_run_is_answered_from_the_cache_by_default(ws_with_judge: Workspace, server: FakeOpenAI) -> None:
    assert ws_with_judge.bounds.cache_setting() == CacheSetting()
    first = score(ws_with_judge)
    assert len(server.requests) == 3
    assert score(ws_with_judge) == first and len(server.requests) == 3
    usage = ws_with_judge.bounds.cache_usage()
    assert usage.entries == 3 and 0 < usage.bytes <= usage.max_bytes == CacheSetting().max_bytes


def test_the_setting_turned_off_asks_the_model_every_time(
    ws_with_judge: Workspace, server: FakeOpenAI, tmp_path
) -> None:
    ws_with_judge.bounds.save_cache_setting(CacheSetting(enabled=False, max_mb=5.0))
    assert Workspace(tmp_path, env={}).bounds.cache_setting() == CacheSetting(enabled=False, max_mb=5.0)
    assert ws_with_judge.settings.models().cache is False
    first = score(ws_with_judge)
    assert score(ws_with_judge) != first and len(server.requests) == 6
    assert ws_with_judge.bounds.cache_usage().entries == 0


def test_clearing_the_cache_asks_the_model_again(ws_with_judge: Workspace, server: FakeOpenAI) -> None:
    first = score(ws_with_judge)
    ws_with_judge.bounds.clear_cache()
    assert ws_with_judge.bounds.cache_usage().entries == 0
    assert score(ws_with_judge) != first and len(server.requests) == 6


def test_a_smaller_bound_is_the_caches_at_once(ws_with_judge: Workspace) -> None:
    ws_with_judge.bounds.save_cache_setting(CacheSetting(max_mb=2.0))
    assert ws_with_judge.bounds.cache_usage().max_bytes == 2_000_000


def test_judge_consistency_asks_afresh_when_the_answers_are_cached(
    ws_with_judge: Workspace, server: FakeOpenAI
) -> None:
    score(ws_with_judge)
    job = ws_with_judge.jobs.judge_consistency(JobSlot(), JUDGE, CASES, 2)
    assert job.wait(300) and job.result is not None, job.error
    assert len(server.requests) == 3 + 6
    assert ws_with_judge.bounds.cache_usage().entries == 3  # nor are its answers kept
    assert "afresh" in job.result.cache_note


def test_trying_the_judge_settings_asks_the_model(ws_with_judge: Workspace, server: FakeOpenAI) -> None:
    score(ws_with_judge)
    settings = ModelSettings(metric=ModelConfig("openai/gpt-4o-mini", api_base=server.url))
    job = ws_with_judge.jobs.try_judge(JobSlot(), JUDGE, CASES, settings)
    assert job.wait(300) and job.result is not None, job.error
    assert len(server.requests) == 6
    assert not any(call.cached for result in job.result.cases for call in result.llm_calls)


@pytest.mark.usefixtures("cap_restored")
def test_the_sandbox_cap_is_saved_and_applied_to_the_process(ws_with_judge: Workspace, tmp_path) -> None:
    assert ws_with_judge.bounds.sandbox_cap() == ws_with_judge.bounds.default_sandbox_cap() == default_capacity()
    ws_with_judge.bounds.set_sandbox_cap(37)
    assert sandbox_limit().capacity == 37 and Workspace(tmp_path, env={}).bounds.sandbox_cap() == 37
    ws_with_judge.bounds.set_sandbox_cap(None)
    assert ws_with_judge.bounds.sandbox_cap() == default_capacity() == sandbox_limit().capacity
    with pytest.raises(ValueError, match="from 1 to 256"):
        ws_with_judge.bounds.set_sandbox_cap(0)


@pytest.mark.usefixtures("cap_restored")
def test_the_servers_workspace_applies_the_saved_cap_when_it_opens(tmp_path) -> None:
    Workspace(tmp_path, env={}).bounds.set_sandbox_cap(41)
    sandbox_limit().set_capacity(9)
    workspace_for(tmp_path)
    assert sandbox_limit().capacity == 41


@pytest.mark.usefixtures("cap_restored")
def test_a_job_over_the_cap_waits_in_the_queue_under_its_own_name(ws_with_judge: Workspace) -> None:
    ws_with_judge.bounds.set_sandbox_cap(1)
    ws_with_judge.settings.set_timeout_s(600)
    first = ws_with_judge.jobs.score(JobSlot(), HANGS, CASES[:1], ws_with_judge.settings.run_options(), label="first")
    second = ws_with_judge.jobs.score(JobSlot(), HANGS, CASES[:1], ws_with_judge.settings.run_options(), label="second")
    try:
        deadline = time.monotonic() + 120
        while not (queue := ws_with_judge.bounds.sandbox_queue()).waiting and time.monotonic() < deadline:
            time.sleep(0.05)
        assert queue.in_use == 1
        [held], [waiting] = queue.holding, queue.waiting
        assert {(held.run.label, held.run.job_id), (waiting.run.label, waiting.run.job_id)} == {
            ("first", first.id),
            ("second", second.id),
        }
    finally:
        first.cancel.set()
        second.cancel.set()
        assert first.wait(60) and second.wait(60)


def test_a_dataset_loads_with_the_collector_off_and_is_settled(ws_with_judge: Workspace, monkeypatch, tmp_path) -> None:
    seen: list[bool] = []
    load = data.load_dataset

    def watched(*args, **kwargs):
        seen.append(gc.isenabled())
        return load(*args, **kwargs)

    monkeypatch.setattr(data, "load_dataset", watched)
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "a", "input": {"question": "x"}, "output": "y"}\n')
    frozen = gc.get_freeze_count()
    ws_with_judge.data.load(str(path))
    # Off while it loaded; on again unless another thread's section is open (litellm importing in the background,
    # started by an earlier test in this worker, once was).
    still_open, collecting = steady_state()
    assert seen == [False] and collecting == (still_open == 0)
    assert gc.get_freeze_count() > frozen
