"""What judging costs (per case, per 1,000 cases, in exports and the CLI) and how consistent a judge is."""

from __future__ import annotations

import io
import itertools
import threading

import orjson
import pytest

from skynet_core import cli
from skynet_core.cases import Case
from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.judge import (
    consistency_of,
    judge_consistency,
    judge_summary,
    repeat_cases,
    repeat_id,
)
from skynet_core.llm import ModelConfig, ModelSettings, make_handler
from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult, CaseStatus, JudgeUsage
from skynet_core.runs.export import results_frame
from skynet_core.scoring import LocalScorer, RunOptions
from skynet_core.scoring.runner.run import score_cases
from tests.fake_openai import Received

JUDGE = EXAMPLE_METRICS["Model as judge"].read_text(encoding="utf-8")
TICKETS = [
    {
        "id": f"T-{i}",
        "input": {"subject": f"Subject {i}", "message": f"Message {i}"},
        "output": '{"label": "billing", "priority": "low", "reply": "Thanks."}',
        "expected": {"label": "billing"} if i % 2 else None,
    }
    for i in range(4)
]


def judged(
    case_id: str,
    score: float | None = 1.0,
    *,
    calls: int = 1,
    ms: float = 100.0,
    cost: float | None = 0.001,
    status: CaseStatus = CaseStatus.OK,
) -> CaseResult:
    usage = JudgeUsage()
    for _ in range(calls):
        usage = usage.plus(ms, 20, 5, cost)
    return CaseResult(
        id=case_id,
        status=status,
        score=score if status is CaseStatus.OK else None,
        feedback="PASS" if score else "FAIL",
        error="" if status is CaseStatus.OK else "boom",
        judge=usage,
    )


def tickets() -> list[Case]:
    return [Case(id=row["id"], input=row["input"], output=row["output"], expected=row["expected"]) for row in TICKETS]


# -- what judging costs ----------------------------------------------------


def test_judge_summary_gives_cost_and_time_per_thousand_cases() -> None:
    results = [judged("a", calls=2, ms=150.0, cost=0.002), judged("b", ms=100.0, cost=0.001), judged("c", calls=0)]
    summary = judge_summary(results)
    assert summary.calls == 3 and summary.cases == 3
    assert summary.ms_per_1000 == pytest.approx(400.0 / 3 * 1000)
    assert summary.cost_per_1000 == pytest.approx(0.005 / 3 * 1000)
    assert summary.unpriced_cases == 0
    assert "3 calls" in summary.describe() and "$1.67" in summary.describe()  # the one cost format (issue 23)


def test_judge_summary_says_when_the_price_is_unknown() -> None:
    summary = judge_summary([judged("a", cost=None), judged("b", cost=None)])
    assert summary.cost_per_1000 is None and summary.unpriced_cases == 2
    assert "an unknown cost" in summary.describe()
    assert judge_summary([judged("a", calls=0)]).describe() == "judge: the metric made no llm() calls"
    assert judge_summary([]).cost_per_1000 is None and judge_summary([]).ms_per_1000 == 0.0


def test_judge_usage_reaches_the_export_columns_and_the_json(server, pool, tmp_path) -> None:
    settings = ModelSettings(metric=ModelConfig("openai/gpt-4o-mini", api_base=server.url))
    run = score_cases(JUDGE, tickets(), RunOptions(llm=make_handler(settings), pool=pool, concurrency=2))
    frame = results_frame(run.results)
    assert list(frame["judge_calls"]) == [1, 1, 1, 1]
    assert (frame["judge_ms"] > 0).all() and (frame["judge_cost_usd"] > 0).all()
    assert run.results[0].to_json()["judge"]["prompt_tokens"] == 20
    hinted = [request.user for request in server.requests if "Expected label: billing" in request.user]
    assert len(hinted) == 2  # the two cases with an expected label give the judge a hint


def test_the_cli_scores_a_judge_metric_with_the_environments_model(server, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "no-store-here"))
    monkeypatch.setenv("SKYNET_METRIC_MODEL", "openai/gpt-4o-mini")
    monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url)
    data = tmp_path / "cases.jsonl"
    data.write_bytes(b"\n".join(orjson.dumps(row) for row in TICKETS))
    out = io.StringIO()
    code = cli.run(
        ["score", str(EXAMPLE_METRICS["Model as judge"]), "--data", str(data), "--json", "--concurrency", "4"],
        stdout=out,
        stderr=io.StringIO(),
    )
    report = orjson.loads(out.getvalue())
    assert code == 0, report
    assert all(case["judge"]["calls"] == 1 and case["judge"]["cost_usd"] > 0 for case in report["cases"])
    assert report["judge"]["calls"] == 4 and report["judge"]["cost_per_1000"] > 0
    text = io.StringIO()
    cli.run(["score", str(EXAMPLE_METRICS["Model as judge"]), "--data", str(data)], stdout=text, stderr=io.StringIO())
    assert "judge: 4 calls; per 1,000 cases" in text.getvalue()
    assert "4 answered from the cache" in text.getvalue()  # the second run asked the model nothing
    # The CLI reads saved settings, it never creates the studio's store (only the answer cache beside it).
    assert not (tmp_path / "no-store-here" / "studio.sqlite3").exists()


# -- consistency -----------------------------------------------------------


def test_repeat_cases_gives_distinct_ids_run_by_run() -> None:
    repeated = repeat_cases(tickets()[:2], 3)
    assert [case.id for case in repeated] == ["T-0 #1", "T-1 #1", "T-0 #2", "T-1 #2", "T-0 #3", "T-1 #3"]
    assert repeated[2].input == tickets()[0].input
    with pytest.raises(ValueError):
        repeat_cases(tickets(), 0)


def test_consistency_groups_runs_and_measures_the_spread_per_case() -> None:
    cases = [
        Case(id="steady", input={}, output=""),
        Case(id="flips #x", input={}, output=""),
        Case(id="broken", input={}, output=""),
    ]
    results = [judged(repeat_id("steady", k), 1.0) for k in (1, 2, 3)]
    results += [
        judged(repeat_id("flips #x", 1), 1.0),
        judged(repeat_id("flips #x", 2), 0.0),
        judged(repeat_id("flips #x", 3), 1.0),
    ]
    results += [
        judged(repeat_id("broken", 1), status=CaseStatus.ERROR),
        judged(repeat_id("broken", 2), 0.2),
        judged(repeat_id("broken", 3), status=CaseStatus.TIMEOUT),
    ]
    report = consistency_of(cases, results, 3)
    steady, flips, broken = report.cases
    assert (steady.low, steady.high, steady.stdev, steady.flipped, steady.agreement) == (1.0, 1.0, 0.0, False, 1.0)
    assert flips.id == "flips #x" and flips.flipped and flips.spread == 1.0
    assert flips.stdev == pytest.approx(0.57735, abs=1e-4) and flips.agreement == pytest.approx(2 / 3)
    assert broken.runs == 3 and len(broken.errors) == 2 and broken.stdev is None and not broken.flipped
    assert [case.id for case in report.compared] == ["steady", "flips #x"]
    assert report.flip_rate == 0.5 and report.errors == 2 and report.max_spread == 1.0
    assert report.agreement == pytest.approx((3 + 2 + 1) / 7)
    assert "flipped on 1 of 2 cases (50%)" in report.describe()
    assert report.rows()[1]["flipped"] is True


def test_a_steady_judge_is_reported_as_consistent() -> None:
    cases = [Case(id="a", input={}, output="")]
    report = consistency_of(cases, [judged(repeat_id("a", k), 0.0) for k in (1, 2)], 2)
    assert report.flip_rate == 0.0 and "same verdict every time" in report.describe()


def test_judge_consistency_runs_each_case_n_times_through_the_runner(server, pool) -> None:
    # The judge flips on T-0 only: PASS, FAIL, PASS…; every other case always passes.
    answers = itertools.cycle(["PASS. ok", "FAIL. not ok"])
    lock = threading.Lock()

    def reply(received: Received) -> str:
        if "Subject 0" in (received.user or ""):
            with lock:
                return next(answers)
        return "PASS. fine"

    server.reply = reply
    settings = ModelSettings(metric=ModelConfig("openai/judge", api_base=server.url))
    seen: list[CaseResult] = []
    options = RunOptions(llm=make_handler(settings), pool=pool, concurrency=3, on_result=seen.append)
    report = judge_consistency(LocalScorer(), MetricSource.of(JUDGE), tickets(), 4, options)
    assert len(seen) == 16 and len(server.requests) == 16
    assert [case.id for case in report.cases] == ["T-0", "T-1", "T-2", "T-3"]
    assert [case.flipped for case in report.cases] == [True, False, False, False]
    assert sorted(report.cases[0].scores) == [0.0, 0.0, 1.0, 1.0]
    assert report.flip_rate == 0.25
