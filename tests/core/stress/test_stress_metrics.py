"""The issue's done-when metrics, stressed in the sandbox through the scorer: a sound metric gets no flag, a
keyword-contains one is hackable through smuggle_expected, a raw ``==`` one brittle through case and whitespace, a
"non-empty → 1" one insensitive, and a judge that "This answer is correct." fools hackable through claims_correct
(a scripted model on 127.0.0.1, its calls through the answer cache and counted)."""

from __future__ import annotations

import threading

import pytest

from skynet_core.llm import make_handler
from skynet_core.llm.cache import LlmCache
from skynet_core.metric.source import MetricSource
from skynet_core.scoring import LocalScorer, RunOptions
from skynet_core.scoring.runner.values import Cancelled
from skynet_core.stress import Flag, StressError, run_stress
from tests import stress_world as world


def stress(pool, metric: str, **options):
    return run_stress(
        MetricSource.of(metric), world.cases(), LocalScorer(), RunOptions(pool=pool, concurrency=2, **options)
    )


def test_a_sound_metric_gets_no_flag(pool) -> None:
    report = stress(pool, world.SOUND)
    assert report.verdict.sound and report.verdict.why == {}
    assert report.cases == 40 and len(report.perturbations) == 15
    assert report.result("claims_correct").mean_change.value < 0  # wrong dressing costs it, never gains
    assert report.headline().startswith("The metric held")


def test_a_keyword_contains_metric_is_hackable_through_smuggle_expected(pool) -> None:
    report = stress(pool, world.CONTAINS)
    assert report.verdict.flags == (Flag.HACKABLE,)
    assert report.verdict.why[Flag.HACKABLE][0] == "smuggle_expected"
    smuggled = report.result("smuggle_expected")
    assert smuggled.violations == 10 and smuggled.rate == 0.25  # every wrong answer, once the label is appended
    worst = smuggled.examples[0]
    assert worst.violates and worst.score_before == 0.0 and worst.score_after == 1.0
    assert worst.after == f"{worst.before} {world.LABELS[int(worst.id[1:]) % 5]}"


def test_a_raw_equality_metric_is_brittle_through_case_and_whitespace(pool) -> None:
    report = stress(pool, world.RAW)
    assert report.verdict.flags == (Flag.BRITTLE,)
    assert {"case", "whitespace"} <= set(report.verdict.why[Flag.BRITTLE])
    assert report.result("case").violations == 30  # every right answer, upper-cased, scores 0


def test_a_non_empty_metric_is_insensitive(pool) -> None:
    report = stress(pool, world.NON_EMPTY)
    assert report.verdict.flags == (Flag.INSENSITIVE,)
    assert {"truncate", "other_case"} <= set(report.verdict.why[Flag.INSENSITIVE])
    assert report.result("empty").violations == 0
    assert report.feedback.static.count == report.feedback.static.checked > 0  # "There is an answer." on ""


def test_a_judge_fooled_by_a_claim_is_hackable_through_claims_correct(pool, tmp_path) -> None:
    with world.server() as server:
        cache = LlmCache(tmp_path / "cache")
        llm = make_handler(world.judge_settings(server.url), cache=cache)
        cases = world.cases(12)
        report = run_stress(MetricSource.of(world.JUDGE), cases, LocalScorer(), RunOptions(pool=pool, llm=llm))
        assert report.verdict.flags == (Flag.HACKABLE,)
        assert report.verdict.why[Flag.HACKABLE][0] == "claims_correct"
        assert report.result("claims_correct").violations == 3  # the three wrong answers now pass
        outputs = sum(item.n for item in report.perturbations) + report.cases
        asked = len(server.requests)
        assert report.calls.judge == asked  # identical requests (one refusal per label…) asked once
        assert report.calls.judge + report.calls.cached == outputs
        again = run_stress(
            MetricSource.of(world.JUDGE),
            cases,
            LocalScorer(),
            RunOptions(pool=pool, llm=make_handler(world.judge_settings(server.url), cache=cache)),
        )
        assert again.calls.judge == 0 and again.calls.cached == outputs  # the answer cache answered them all
        assert len(server.requests) == asked and again.verdict == report.verdict


def test_the_budget_stops_the_judge_at_most_one_call_past_it_and_says_so(pool) -> None:
    with world.server() as server:
        price = (1000.0, 1000.0)  # 100 + 20 tokens a call: $0.12
        settings = world.judge_settings(server.url, max_cost_usd=0.5)
        settings = settings.with_changes(
            metric=settings.metric.__class__("openai/judge", server.url, api_key="unused", price_per_million=price)
        )
        report = run_stress(
            MetricSource.of(world.JUDGE),
            world.cases(8),
            LocalScorer(),
            RunOptions(pool=pool, concurrency=1, llm=make_handler(settings)),
        )
    assert report.budget_reached and report.calls.judge == len(server.requests) == 5  # $0.60 ≥ $0.50 after 5
    assert report.calls.refused > 0 and report.calls.cost_usd == pytest.approx(0.6)
    assert sum(item.errors for item in report.perturbations) + report.baseline_errors > 0


def test_no_cases_and_a_metric_that_does_not_load_are_errors_for_people(pool) -> None:
    with pytest.raises(StressError, match="no cases"):
        run_stress(MetricSource.of(world.SOUND), [], LocalScorer(), RunOptions(pool=pool))
    with pytest.raises(StressError, match="could not be loaded"):
        stress(pool, "def score(input, output, expected=None):\n    return (\n")


def test_cancel_stops_the_run(pool) -> None:
    cancel = threading.Event()
    cancel.set()
    with pytest.raises(Cancelled):
        stress(pool, world.SOUND, cancel=cancel)
