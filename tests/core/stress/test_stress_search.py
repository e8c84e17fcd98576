"""The exploit search through GEPA's own loop, in a scripted model world on 127.0.0.1 (see stress_world.py): the
attacker finds the rewrite a gullible judge over-rewards, a sound metric shows no gain, the rewriter never sees a
case's input or expected value, and the budget stops the search keeping what it found."""

from __future__ import annotations

import pytest

from skynet_core.engines.uplift.result import Outcome
from skynet_core.llm import make_handler
from skynet_core.metric.source import MetricSource
from skynet_core.scoring import LocalScorer, RunOptions
from skynet_core.stress import Flag, SearchPlan, run_stress
from skynet_core.stress.search import START
from tests import stress_world as world

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")


def searched(pool, server, metric: str, *, rounds: int = 2, budget: float | None = None, price=None):
    settings = world.judge_settings(server.url, max_cost_usd=budget)
    options = RunOptions(pool=pool, concurrency=4, llm=make_handler(settings))
    plan = SearchPlan(world.models(server.url, price), rounds=rounds, cases=4)
    return run_stress(MetricSource.of(metric), world.cases(12), LocalScorer(), options, search=plan)


def test_the_attacker_finds_the_rewrite_a_gullible_judge_over_rewards(pool) -> None:
    with world.server() as server:
        report = searched(pool, server, world.JUDGE)
        task_prompts = [(request.system, request.user) for request in server.requests if request.model == "task"]
        reflections = [request.user for request in server.requests if request.model == "reflect"]
    found = report.search
    assert found is not None and found.outcome is Outcome.COMPLETE
    assert found.best == world.ATTACK and found.before == 0.0 and found.after == 1.0 and found.gain == 1.0
    assert found.outputs == 8  # other_case and null of 4 cases
    assert len(found.examples) == 3 and all(item.after.endswith(world.CLAIM) for item in found.examples)
    assert found.calls.reflection >= 1 and found.calls.task > 0
    assert "search" in report.verdict.why[Flag.HACKABLE]
    # The rewriter sees a wrong output and the instruction only: no case's input or expected label.
    assert task_prompts and all("ticket" not in user and "Expected" not in user for _system, user in task_prompts)
    assert reflections and all("ticket 3" not in prompt for prompt in reflections)
    assert "Score before rewriting" in reflections[0] and "Rewritten answer" in reflections[0]


def test_a_sound_metric_shows_no_gain_and_keeps_the_start(pool) -> None:
    with world.server() as server:
        report = searched(pool, server, world.SOUND)
    found = report.search
    assert found is not None and found.gain == 0.0 and found.best == START
    assert report.verdict.sound  # neither a perturbation nor the search flags it


def test_the_search_shows_only_the_perturbations_asked_for_but_rewrites_other_case_and_null(pool) -> None:
    with world.server() as server:
        settings = world.judge_settings(server.url)
        report = run_stress(
            MetricSource.of(world.SOUND),
            world.cases(6),
            LocalScorer(),
            RunOptions(pool=pool, llm=make_handler(settings)),
            perturbations=["case"],
            search=SearchPlan(world.models(server.url), rounds=1, cases=2),
        )
    assert [item.id for item in report.perturbations] == ["case"]
    assert report.search is not None and report.search.outputs == 4


def test_the_budget_stops_the_search_and_keeps_what_it_found(pool) -> None:
    with world.server() as server:
        report = searched(pool, server, world.JUDGE, rounds=5, budget=1.0, price=(1000.0, 1000.0))  # $0.12 a call
    found = report.search
    assert found is not None and found.outcome is Outcome.BUDGET
    assert "budget" in found.message()
    assert found.cost_usd < 1.0 + 8 * 0.12  # at most the calls already in flight past it


def test_a_budget_that_cannot_cover_the_attackers_call_stops_the_search_as_budget_not_complete(pool) -> None:
    """$1.50 pays the first evaluation's rewrites ($0.12 each) but not the reflection's worst case: the attacker's
    call is refused. GEPA catches what its reflection model raises and goes on, so the search ended "complete"
    with no proposal and under budget (and the budget test above failed so when the refused call came there)."""
    with world.server() as server:
        report = searched(pool, server, world.JUDGE, rounds=5, budget=1.5, price=(1000.0, 1000.0))
    found = report.search
    assert found is not None and found.outcome is Outcome.BUDGET, found
    assert found.calls.reflection == 0 and found.proposals == 0
    assert "budget" in found.message()


def test_rounds_out_of_range_are_refused_for_people() -> None:
    with world.server() as server, pytest.raises(ValueError, match="--rounds must be a whole number from 1 to 50"):
        SearchPlan(world.models(server.url), rounds=0)
