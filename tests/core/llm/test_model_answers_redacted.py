"""Every model answer is redacted where it is taken (skynet_core/llm/provider.py), before it is stored, shown or
sent on: the task model's replies, the reflection model's (the uplift experiment and "Try one reflection step"),
as the metric's ``llm()`` answers already were. The provider here echoes the request's key (the ``Authorization``
header without its "Bearer", so no key shape gives it away) and the system message into every answer."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skynet_core.cli import run
from skynet_core.engines import SandboxedMetric
from skynet_core.engines.reflection import reflection_step
from skynet_core.engines.uplift import Experiment, Models, UpliftConfig, run_uplift, split_cases
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.provenance import Provenance
from skynet_core.scoring import RunOptions
from skynet_core.store.uplift import UpliftStore
from tests import uplift_world as world
from tests.fake_openai import FakeOpenAI, Received

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")

KEY = "test-secret-Zq9xY8wV7uT6sR5qP4oN"


def echoing(received: Received) -> str:
    """The world's answers with the request's key and system message echoed into them."""
    token = (received.authorization or "").removeprefix("Bearer ")
    if received.model == "reflect":
        proposal = world.reflection_answer(received.user or "").removesuffix("\n```")
        return f"{proposal} Sent with {token}.\n```"
    return f"{world.task_answer(received.system or '', received.user or '')} (key {token}; asked: {received.system})"


@pytest.fixture
def server():
    with FakeOpenAI(reply=echoing, usage=(100, 20)) as fake:
        yield fake


def keyed_models(url: str) -> Models:
    return Models(
        ModelConfig("openai/task", url, api_key=KEY),
        ModelConfig("openai/reflect", url, api_key=KEY),
        ModelSettings(max_retries=0),
    )


def test_an_uplift_run_keeps_the_key_out_of_its_result_its_calls_the_metric_and_the_store(
    server: FakeOpenAI, pool, tmp_path: Path
) -> None:
    config = UpliftConfig(world.START, rounds=2, seeds=1)
    metric = SandboxedMetric(world.METRIC, RunOptions(pool=pool))
    result = run_uplift(Experiment(metric, split_cases(world.cases()), config, keyed_models(server.url)))
    assert result.complete, result.error
    assert all(request.authorization == f"Bearer {KEY}" for request in server.requests)  # the key was sent
    assert KEY not in json.dumps(result.to_json())
    assert "[redacted]" in json.dumps(result.to_json())  # the proposals echoed it, redacted
    tasks = [request for request in server.requests if request.model == "task"]
    assert len({request.system for request in tasks}) > 1  # later task calls ran the proposals
    assert not any(KEY in (request.system or "") for request in tasks)
    # The reflection prompts quote the metric's feedback, which quotes the output it was given in the sandbox.
    prompts = [request.user or "" for request in server.requests if request.model == "reflect"]
    assert any("(key [redacted]" in prompt for prompt in prompts)
    assert not any(KEY in prompt for prompt in prompts)
    store = UpliftStore(tmp_path)
    store.save(result, metric.source, Provenance("metric", "data", "", "", None))
    assert all(KEY.encode() not in path.read_bytes() for path in tmp_path.rglob("*") if path.is_file())


def test_one_reflection_step_shows_no_key(server: FakeOpenAI) -> None:
    cases, results = world.one_wrong_answer()
    settings = ModelSettings(reflection=ModelConfig("openai/reflect", server.url, api_key=KEY), max_retries=0)
    step = reflection_step(world.START, cases, results, settings, size=1)
    assert step.proposed is not None and "Sent with [redacted]." in step.proposed
    assert KEY not in step.proposed and KEY not in step.raw_reply


def test_uplift_json_holds_no_key_of_the_environment(
    server: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "metric").mkdir()
    (tmp_path / "metric" / "metric.py").write_text(world.METRIC)
    world.write_cases(tmp_path / "cases.jsonl")
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("OPENAI_API_KEY", KEY)  # the server's own key: it goes to the API bases its environment sets
    for role, model in (("TASK", "openai/task"), ("REFLECTION", "openai/reflect")):
        monkeypatch.setenv(f"SKYNET_{role}_MODEL", model)
        monkeypatch.setenv(f"SKYNET_{role}_API_BASE", server.url)
    out, err = io.StringIO(), io.StringIO()
    argv = ["uplift", str(tmp_path / "metric"), "--data", str(tmp_path / "cases.jsonl"), "--instruction", world.START]
    code = run([*argv, "--seeds", "1", "--rounds", "1", "--json"], out, err)
    assert code == 0, err.getvalue()
    assert server.requests and all(request.authorization == f"Bearer {KEY}" for request in server.requests)
    assert KEY not in out.getvalue() and KEY not in err.getvalue()
    assert "[redacted]" in out.getvalue()
