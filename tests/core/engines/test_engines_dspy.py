"""DSPy GEPA runs the unchanged metric.py, sandboxed, through the 5-argument metric adapter."""

from __future__ import annotations

import pytest

from skynet_core.cases import Case
from skynet_core.engines import DspyFields, SandboxedMetric, dspy_examples, dspy_metric, dspy_program
from skynet_core.scoring import RunOptions
from tests.engine_stub import FEEDBACK_MARK, HINT, METRIC, SEED, TICKETS, reflection_prompts, stub_server

dspy = pytest.importorskip("dspy", reason="dspy==3.4.1 is a test requirement")

CASES = [Case(id=t["id"], input=t["input"], output="", expected=t["expected"]) for t in TICKETS]


@pytest.fixture
def stub():
    with stub_server() as server:
        yield server


def test_fields_are_inferred_from_the_dataset_roles() -> None:
    fields = DspyFields.infer(CASES)
    assert fields == DspyFields(inputs=("subject", "message"), expected=("label",), outputs=("output",))


def test_an_input_and_expected_field_of_one_name_is_refused_with_the_fix() -> None:
    with pytest.raises(ValueError, match="Rename the expected column"):
        DspyFields(inputs=("label",), expected=("label",))


def test_metric_maps_gold_and_pred_and_returns_feedback_with_objective_scores(pool) -> None:
    fields = DspyFields.infer(CASES)
    metric = dspy_metric(SandboxedMetric(METRIC, RunOptions(pool=pool)), fields)
    gold = dspy_examples(CASES, fields)[0]
    pred = dspy.Prediction(output='{"label": "other"}')

    program_level = metric(gold, pred)
    predictor_level = metric(gold, pred, None, "predict", [])

    assert program_level.score == 0.0 and FEEDBACK_MARK in program_level.feedback
    assert program_level.objective_scores == {"format": 1.0, "label": 0.0}
    assert (predictor_level.score, predictor_level.feedback) == (program_level.score, program_level.feedback)


def test_dspy_gepa_compile_reads_the_metric_feedback_and_named_scores(stub, pool) -> None:
    fields = DspyFields.infer(CASES)
    examples = dspy_examples(CASES, fields)
    task_lm = dspy.LM("openai/task", api_base=stub.url, api_key="unused", cache=False)
    reflection_lm = dspy.LM("openai/reflect", api_base=stub.url, api_key="unused", cache=False)
    optimizer = dspy.GEPA(
        metric=dspy_metric(SandboxedMetric(METRIC, RunOptions(pool=pool)), fields),
        max_metric_calls=24,
        reflection_lm=reflection_lm,
        reflection_minibatch_size=2,
        num_threads=1,
        use_merge=False,
        track_stats=True,
        seed=0,
    )
    with dspy.context(lm=task_lm):
        optimized = optimizer.compile(dspy_program(fields, SEED), trainset=examples[:2], valset=examples[2:])

    prompts = reflection_prompts(stub)
    assert prompts and FEEDBACK_MARK in prompts[0]
    assert HINT in optimized.signature.instructions
    assert optimized.detailed_results.objective_pareto_front == {"format": 1.0, "label": 1.0}
