"""One reflection step on the bundled example: GEPA's own prompt, the model's proposal, and a diff."""

from __future__ import annotations

import pytest

from skynet_core.datasets import EXAMPLE_PATH, load_example
from skynet_core.engines.reflection import NO_REFLECTION_MODEL, dataset_instruction, pick_minibatch, reflection_step
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases
from tests.engine_stub import HINT, IMPROVED, stub_server

pytest.importorskip("gepa", reason="gepa==0.1.4 is a test requirement")


@pytest.fixture(scope="module")
def scored(pool):
    dataset = load_example()
    cases = dataset.for_candidate(dataset.candidates[0])[:12]
    run = score_cases((EXAMPLE_PATH.parent / "metrics" / "exact_match.py").read_text(), cases, RunOptions(pool=pool))
    return dataset, cases, run.results


def test_the_bundled_example_carries_its_instruction(scored) -> None:
    dataset, _, _ = scored
    assert '"label"' in dataset_instruction(dataset)


def test_minibatch_takes_the_lowest_scores_first(scored) -> None:
    _, cases, results = scored
    picked = pick_minibatch(cases, results)
    assert len(picked) == 3
    assert [result.score for _, result in picked] == sorted(result.score for result in results if result.ok)[:3]


def test_without_a_model_the_prompt_is_still_built_with_the_feedback(scored) -> None:
    dataset, cases, results = scored
    step = reflection_step(dataset_instruction(dataset), cases, results, ModelSettings())
    worst = pick_minibatch(cases, results)[0][1]

    assert step.proposed is None and step.message == NO_REFLECTION_MODEL
    assert step.prompt.startswith("I am optimizing a parameter in my system.")
    assert dataset_instruction(dataset) in step.prompt
    assert worst.feedback in step.prompt
    assert step.case_ids[0] == worst.id


def test_with_a_reflection_model_the_proposal_and_diff_are_shown(scored) -> None:
    dataset, cases, results = scored
    with stub_server() as server:
        settings = ModelSettings(reflection=ModelConfig("openai/reflect", server.url))
        step = reflection_step(
            "Classify the support ticket. Answer with JSON holding a label.", cases, results, settings
        )
        sent = server.requests[-1].user

    assert sent == step.prompt
    assert step.proposed == IMPROVED
    assert f"+{IMPROVED}" in step.diff and step.diff.startswith("--- current")
    assert HINT not in step.instruction


def test_a_failing_reflection_model_gives_a_message_not_an_exception(scored) -> None:
    dataset, cases, results = scored
    with stub_server() as server:
        server.script = [401, 401, 401, 401]
        settings = ModelSettings(reflection=ModelConfig("openai/reflect", server.url), max_retries=0)
        step = reflection_step("Classify.", cases, results, settings)
    assert step.proposed is None and "reflect" in step.message
