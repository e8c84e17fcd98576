"""A runaway reflection answer never becomes the instruction: a proposal over its limit (16,000 characters, or 4×
the given instruction) is refused unscored as a failed proposal with the reason, in the experiment and in "Try
one reflection step"; and the text report prints a bounded share of each final instruction."""

from __future__ import annotations

import json

import pytest

from skynet_core.engines import SandboxedMetric
from skynet_core.engines.reflection import MIN_PROPOSAL_CHARS, proposal_limit, reflection_step
from skynet_core.engines.uplift import Arm, Experiment, UpliftConfig, run_uplift, split_cases
from skynet_core.engines.uplift.cli import REPORT_INSTRUCTION_CHARS, format_result
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.scoring import RunOptions
from tests import uplift_world as world
from tests.fake_openai import FakeOpenAI, Received

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")

RUNAWAY = 2_000_000  # characters of one reflection answer


def padded(extra: int):
    """The world's answers, each reflection's proposal followed by ``extra`` characters of padding."""

    def reply(received: Received) -> str:
        if received.model == "reflect":
            return world.reflection_answer(received.user or "").removesuffix("\n```") + " " + "z" * extra + "\n```"
        return world.reply(received)

    return reply


def run(pool, extra: int):
    with FakeOpenAI(reply=padded(extra), usage=(100, 20)) as server:
        config = UpliftConfig(world.START, rounds=2, seeds=1)
        metric = SandboxedMetric(world.METRIC, RunOptions(pool=pool))
        experiment = Experiment(metric, split_cases(world.cases()), config, world.models(server.url))
        return run_uplift(experiment), server


def test_a_runaway_proposal_is_refused_and_never_sent_as_an_instruction(pool) -> None:
    result, server = run(pool, RUNAWAY)
    assert result.complete
    rounds = [found for run in result.runs for found in run.rounds]
    assert rounds and all(found.proposed == "" and not found.accepted and found.after is None for found in rounds)
    assert all(found.refused.startswith("The reflection model proposed 2,000,") for found in rounds)
    assert all(len(request.system or "") <= proposal_limit(world.START) for request in server.requests)
    assert result.arms[Arm.FEEDBACK].instructions == (world.START,)
    assert len(json.dumps(result.to_json())) < 10_000
    report = format_result(result)
    assert "Refused proposal, with feedback, seed 1, round 1: The reflection model proposed" in report
    assert len(report) < 20_000


def test_the_text_report_prints_a_bounded_share_of_a_long_instruction(pool) -> None:
    result, _server = run(pool, MIN_PROPOSAL_CHARS // 2)  # long, but within the limit: kept
    final = result.arms[Arm.FEEDBACK].instructions[0]
    assert len(final) > REPORT_INSTRUCTION_CHARS
    report = format_result(result)
    assert final not in report and final[:100] in report
    more = f"{len(final) - REPORT_INSTRUCTION_CHARS:,}"
    assert f"… ({more} more characters: --json has the whole instruction)" in report
    assert final in result.to_json()["instructions"]["feedback"]


def test_one_reflection_step_refuses_a_runaway_proposal() -> None:
    cases, results = world.one_wrong_answer()
    with FakeOpenAI(reply=padded(RUNAWAY)) as server:
        settings = ModelSettings(reflection=ModelConfig("openai/reflect", server.url, api_key="unused"))
        step = reflection_step(world.START, cases, results, settings, size=1)
    assert step.proposed is None and step.diff == ""
    assert step.message.startswith("The reflection model proposed 2,000,")
    assert len(step.raw_reply) <= proposal_limit(world.START) + 1
