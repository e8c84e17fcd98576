"""GEPA runs the unchanged metric.py, sandboxed: its feedback reaches the reflection, its named scores the frontier."""

from __future__ import annotations

import pytest

from skynet_core.engines import ChatTask, MetricAdapter, SandboxedMetric, gepa_evaluator
from skynet_core.llm import ModelConfig
from skynet_core.scoring import RunOptions
from tests.engine_stub import FEEDBACK_MARK, IMPROVED, METRIC, SEED, TICKETS, reflection_prompts, stub_server

gepa_oa = pytest.importorskip("gepa.optimize_anything", reason="gepa==0.1.4 is a test requirement")


@pytest.fixture
def stub():
    with stub_server() as server:
        yield server


def test_optimize_anything_reads_the_metric_feedback_and_named_scores(stub, pool) -> None:
    metric = SandboxedMetric(METRIC, RunOptions(pool=pool))
    evaluator = gepa_evaluator(metric, ChatTask(ModelConfig("openai/task", stub.url, api_key="unused")))
    config = gepa_oa.GEPAConfig(
        engine=gepa_oa.EngineConfig(max_metric_calls=24, parallel=False, seed=0),
        reflection=gepa_oa.ReflectionConfig(
            reflection_lm="openai/reflect",
            reflection_minibatch_size=2,
            reflection_lm_kwargs={"api_base": stub.url, "api_key": "unused"},
        ),
    )
    result = gepa_oa.optimize_anything(
        SEED,
        evaluator=evaluator,
        batch_evaluator=evaluator.batch,
        dataset=TICKETS[:2],
        valset=TICKETS[2:],
        config=config,
    )

    prompts = reflection_prompts(stub)
    assert prompts and FEEDBACK_MARK in prompts[0]
    assert "Scores (Higher is Better)" in prompts[0]
    assert result.best_candidate == IMPROVED
    assert result.objective_pareto_front == {"format": 1.0, "label": 1.0}
    assert metric.calls > 0


def test_adapter_evaluate_returns_objective_scores_and_a_reflective_dataset(stub, pool) -> None:
    adapter = MetricAdapter(
        SandboxedMetric(METRIC, RunOptions(pool=pool)), ChatTask(ModelConfig("openai/task", stub.url, api_key="unused"))
    )
    batch = adapter.evaluate(TICKETS[:2], {"instruction": SEED}, capture_traces=True)

    assert batch.scores == [0.0, 0.0]
    assert batch.objective_scores == [{"format": 1.0, "label": 0.0}] * 2
    records = adapter.make_reflective_dataset({"instruction": SEED}, batch, ["instruction"])["instruction"]
    assert FEEDBACK_MARK in records[0]["Feedback"]
    assert records[0]["Scores (Higher is Better)"] == {"format": 1.0, "label": 0.0}


def test_a_metric_that_raises_scores_zero_and_says_why(stub, pool) -> None:
    metric = SandboxedMetric(
        "def score(input, output, expected=None):\n    raise KeyError('label')\n", RunOptions(pool=pool)
    )
    evaluator = gepa_evaluator(metric, ChatTask(ModelConfig("openai/task", stub.url, api_key="unused")))
    score, info = evaluator(SEED, TICKETS[0])
    assert score == 0.0
    assert info["Feedback"].startswith("The metric could not score this output")
    assert "KeyError" in info["Feedback"]


def test_an_output_that_is_not_json_reaches_the_metric_as_its_text(pool) -> None:
    class Answer:
        def __str__(self) -> str:
            return '{"label": "billing"}'

    verdict = SandboxedMetric(METRIC, RunOptions(pool=pool)).score(
        TICKETS[0]["input"], Answer(), TICKETS[0]["expected"]
    )
    assert verdict.ok and verdict.score == 1.0 and verdict.scores == {"format": 1.0, "label": 1.0}
