"""The uplift experiment in a world where informative feedback provably helps (see uplift_world.py).

One whole run (3 seeds × 3 arms × 3 rounds, minibatch 3) against scripted task and reflection models on
127.0.0.1 is shared by the module; the budget, Cancel and failure runs are shorter.
"""

from __future__ import annotations

import threading

import pytest

from skynet_core.engines import SandboxedMetric
from skynet_core.engines.uplift import (
    Arm,
    Experiment,
    Outcome,
    Progress,
    UpliftConfig,
    plan_uplift,
    run_uplift,
    split_cases,
    total_steps,
)
from skynet_core.engines.uplift.arms import SCORE_ONLY_FEEDBACK
from skynet_core.llm import make_handler
from skynet_core.scoring import RunOptions
from tests import uplift_world as world
from tests.fake_openai import FakeOpenAI, Received

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")

PRICE = (1000.0, 1000.0)  # US dollars per million tokens: the server's 100 + 20 tokens cost $0.12 a call
PER_CALL = (100 * PRICE[0] + 20 * PRICE[1]) / 1e6


def experiment(pool, url: str, config: UpliftConfig | None = None, **models) -> Experiment:
    return Experiment(
        SandboxedMetric(world.METRIC, RunOptions(pool=pool)),
        split_cases(world.cases()),
        config or UpliftConfig(world.START),
        world.models(url, price=PRICE, **models),
    )


@pytest.fixture(scope="module")
def whole(pool):
    """The whole run, what the server saw, every progress report and the plan made before it."""
    with world.server() as server:
        planned = experiment(pool, server.url)
        plan = plan_uplift(planned)
        reports: list[Progress] = []
        result = run_uplift(planned, on_progress=reports.append)
        yield result, server, reports, plan


def test_the_feedback_arm_gains_on_every_seed(whole) -> None:
    result, *_ = whole
    found = result.arms[Arm.FEEDBACK]
    assert result.complete and result.start == 0.0
    assert len(found.ends) == 3 and all(end > result.start for end in found.ends)
    assert found.gain.value > 0.5 and found.gain.low > 0
    assert all("Tickets that mention" in text for text in found.instructions)


def test_the_score_only_arm_does_not_gain(whole) -> None:
    result, *_ = whole
    found = result.arms[Arm.SCORE_ONLY]
    assert found.ends == (result.start,) * 3
    assert found.gain.value == 0.0
    assert found.instructions == (world.START,) * 3


def test_the_shuffled_arm_gains_less_than_the_feedback_arm(whole) -> None:
    result, *_ = whole
    shuffled, with_feedback = result.arms[Arm.SHUFFLED], result.arms[Arm.FEEDBACK]
    assert shuffled.gain.value < with_feedback.gain.value
    assert all(s <= f for s, f in zip(shuffled.ends, with_feedback.ends, strict=True))


def test_the_feedback_value_is_the_paired_difference_and_excludes_zero(whole) -> None:
    result, *_ = whole
    value = result.feedback_value
    ends = result.arms[Arm.FEEDBACK].ends
    assert value.value == pytest.approx(sum(ends) / 3 - result.start)
    assert value.low > 0 and value.excludes_zero
    assert result.verdict().startswith("The feedback helps")


def test_reported_calls_and_cost_are_the_calls_the_server_saw(whole) -> None:
    result, server, _, plan = whole
    seen = world.requests_by_model(server)
    assert result.calls.task == seen["task"] and result.calls.reflection == seen["reflect"]
    assert result.cost_usd == pytest.approx(PER_CALL * len(server.requests))
    assert result.calls.task <= plan.task.calls and result.calls.reflection <= plan.reflection.calls
    assert plan.cost_usd is not None and plan.cost_usd > 0


def test_every_arm_reads_the_same_minibatches(whole) -> None:
    result, *_ = whole
    for seed in range(3):
        batches = {tuple(r.case_ids for r in run.rounds) for run in result.runs if run.seed == seed}
        assert len(batches) == 1
        assert all(set(ids) <= set(result.train_ids) for ids in next(iter(batches)))


def test_the_arms_show_the_reflection_what_they_promise(whole) -> None:
    _result, server, *_ = whole
    prompts = [request.user for request in server.requests if request.model == "reflect"]
    assert all(prompt.startswith("I am optimizing a parameter in my system.") for prompt in prompts)
    score_only = [p for p in prompts if SCORE_ONLY_FEEDBACK.format(score=0.0) in p]
    assert score_only and not any("The message mentions" in p for p in score_only)
    # The shuffled arm's feedback names a cue that is not in its own example's message at least once.
    moved = 0
    for prompt in prompts:
        for example in prompt.split("# Example ")[1:]:
            feedback = example.split("## Feedback\n", 1)[-1]
            if "The message mentions '" in feedback:
                cue = feedback.split("The message mentions '", 1)[1].split("'", 1)[0]
                moved += cue not in example.split("## Feedback", 1)[0]
    assert moved > 0


def test_progress_counts_every_step_up_to_the_end(whole) -> None:
    result, _server, reports, _plan = whole
    assert [report.done for report in reports] == list(range(total_steps(result.config) + 1))
    assert reports[0].describe() == "measuring the given instruction on the validation cases"
    assert reports[-1].fraction == 1.0 and reports[-1].calls == result.calls


def test_a_run_over_budget_stops_cleanly_and_keeps_its_finished_seeds(pool) -> None:
    # Only the metric's llm() calls have a price: the run reaches its budget through them, in seed 2.
    def judged(url: str, budget: float | None) -> Experiment:
        metric = SandboxedMetric(
            world.JUDGED_METRIC, RunOptions(pool=pool, llm=make_handler(world.judge_settings(url, PRICE)))
        )
        config = UpliftConfig(world.START, rounds=1, seeds=2, max_cost_usd=budget)
        return Experiment(metric, split_cases(world.cases()), config, world.models(url))

    reports: list[Progress] = []
    with world.server() as server:
        first = run_uplift(judged(server.url, None), on_progress=reports.append)
    spent_after_seed_1 = next(r.cost_usd for r in reports if r.seed == 1 and r.round == 0)
    with world.server() as server:
        budget = spent_after_seed_1 + PER_CALL / 2
        result = run_uplift(judged(server.url, budget))
        seen = world.requests_by_model(server)

    assert result.outcome is Outcome.BUDGET and "budget" in result.message()
    assert result.seeds_finished == 1
    for arm in result.config.arms:
        assert result.arms[arm].ends == first.arms[arm].ends[:1]
    assert budget < result.cost_usd <= budget + PER_CALL  # one call past it at most
    assert result.calls.task == seen["task"] and result.calls.reflection == seen["reflect"]
    assert result.to_json()["arms"]["feedback"]["end"] == list(first.arms[Arm.FEEDBACK].ends[:1])


def test_cancel_stops_before_the_next_call_and_keeps_the_finished_seeds(pool) -> None:
    cancel = threading.Event()

    def watch(progress: Progress) -> None:
        if progress.seed == 1:
            cancel.set()

    with world.server() as server:
        config = UpliftConfig(world.START, rounds=1, seeds=3)
        result = run_uplift(experiment(pool, server.url, config), cancel=cancel, on_progress=watch)
        seen = len(server.requests)

    assert result.outcome is Outcome.CANCELLED and result.seeds_finished == 1
    assert result.calls.total == seen
    assert "cancelled" in result.message()


def test_a_failing_reflection_model_stops_the_run_with_its_message(pool) -> None:
    with world.server() as server:
        server.require_key = "the-right-key"
        result = run_uplift(experiment(pool, server.url, UpliftConfig(world.START, rounds=1, seeds=1)))
        seen = len(server.requests)
    assert result.outcome is Outcome.FAILED and result.seeds_finished == 0
    assert result.start is None
    assert "openai/task" in result.error and "model call failed" in result.message()
    assert result.calls.task == seen > 0
    assert result.to_json()["feedback_value"] == {"value": None, "low": None, "high": None}


def test_a_proposal_that_ties_is_kept_and_one_that_scores_lower_is_not(pool) -> None:
    complete = " ".join([world.START, *(world.RULE.format(cue=cue, label=label) for label, cue in world.CUES.items())])

    def scripted(propose):
        def reply(received: Received) -> str:
            if received.model != "reflect":
                return world.task_answer(received.system or "", received.user or "")
            return "```\n" + propose((received.user or "").split("```\n", 1)[1].split("\n```", 1)[0]) + "\n```"

        return reply

    config = UpliftConfig(complete, rounds=2, seeds=1, arms=(Arm.FEEDBACK, Arm.SCORE_ONLY))
    with FakeOpenAI(reply=scripted(lambda current: f"{current} Be brief.")) as server:  # a tie: one more sentence
        tie = run_uplift(experiment(pool, server.url, config))
    with FakeOpenAI(reply=scripted(lambda current: world.START)) as server:  # lower: the rules dropped
        lower = run_uplift(experiment(pool, server.url, config))

    rounds = tie.runs_of(Arm.FEEDBACK)[0].rounds
    assert [(r.before, r.after, r.accepted) for r in rounds] == [(1.0, 1.0, True)] * 2
    assert tie.arms[Arm.FEEDBACK].instructions == (f"{complete} Be brief. Be brief.",)
    rounds = lower.runs_of(Arm.FEEDBACK)[0].rounds
    assert [(r.before, r.after, r.accepted) for r in rounds] == [(1.0, 0.0, False)] * 2
    assert lower.arms[Arm.FEEDBACK].instructions == (complete,)


def test_a_metric_that_scores_nothing_stops_the_run_before_any_reflection(pool) -> None:
    broken = "def score(input, output, expected=None):\n    return float(output), {'feedback': 'x'}\n"
    with world.server() as server:
        planned = experiment(pool, server.url, UpliftConfig(world.START, rounds=1, seeds=1))
        result = run_uplift(
            Experiment(SandboxedMetric(broken, RunOptions(pool=pool)), planned.split, planned.config, planned.models)
        )
        seen = world.requests_by_model(server)
    assert result.outcome is Outcome.METRIC_FAILED and seen["reflect"] == 0
    assert "ValueError" in result.error and "contract check" in result.message()


def test_a_minibatch_of_one_runs_without_the_shuffled_arm(pool) -> None:
    with world.server() as server:
        config = UpliftConfig(world.START, rounds=2, seeds=1, minibatch=1, arms=(Arm.FEEDBACK, Arm.SCORE_ONLY))
        result = run_uplift(experiment(pool, server.url, config))
    assert result.complete and list(result.arms) == [Arm.FEEDBACK, Arm.SCORE_ONLY]
    assert all(len(r.case_ids) == 1 for run in result.runs for r in run.rounds)
