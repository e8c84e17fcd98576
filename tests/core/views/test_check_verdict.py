"""Item 6 of issue 23: the check's verdict takes what "Score all" found on the same metric, data and model."""

from __future__ import annotations

import dataclasses

from skynet_core.cases import Case
from skynet_core.datasets import sample_for_check
from skynet_core.metric.contract import check_metric
from skynet_core.provenance import Provenance
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases
from skynet_core.views.author import ScoredResults, contract_verdict
from tests.review_data import KEY_ERROR_METRIC

CURRENT = Provenance("digest", "/data/reviews.csv", "reviews", "small", None, "models", "", "identity")


def reviews() -> list[Case]:
    cases = [
        Case(f"r{n:02d}", {"text": f"review {n}"}, "positive", {"label": "positive"}, "train", candidate="small")
        for n in range(1, 41)
    ]
    sampled = {case.id for case in sample_for_check(cases)}
    broken = [case for case in cases if case.id not in sampled][:11]  # the sample never meets them
    broken_ids = {case.id for case in broken}
    return [
        dataclasses.replace(case, expected={"sentiment": "positive"}) if case.id in broken_ids else case
        for case in cases
    ]


def test_the_check_passes_but_score_all_finds_the_failing_line(pool) -> None:
    cases = reviews()
    report = check_metric(KEY_ERROR_METRIC, cases, RunOptions(pool=pool, stop_on_timeout=True))
    assert report.ok  # the three sampled cases all have a label
    run = score_cases(KEY_ERROR_METRIC, cases, RunOptions(pool=pool))
    verdict = contract_verdict(report, CURRENT, ScoredResults(CURRENT, run.results))
    assert not verdict.ok
    assert verdict.line == 12 and verdict.file == "metric.py"
    assert verdict.message.startswith("11 of 40 cases fail at metric.py line 12")
    assert "KeyError" in verdict.message
    assert verdict.marked_line == 12
    assert (verdict.failed, verdict.total, verdict.from_run) == (11, 40, True)


def result(case_id: str, status: CaseStatus = CaseStatus.OK, line: int | None = None, file: str = "metric.py"):
    error = "" if status is CaseStatus.OK else f"KeyError: 'label' ({file} line {line})"
    return CaseResult(
        case_id, status=status, score=1.0 if status is CaseStatus.OK else None, error=error, line=line, file=file
    )


def passing_report():
    return check_metric(
        "def score(i, o, e=None):\n    return 1.0, {'feedback': ''}\n",
        [Case("a", {}, "x", None)],
        RunOptions(stop_on_timeout=True),
    )


def test_a_run_of_something_else_is_not_taken(pool) -> None:
    report = passing_report()
    failing = [result("a", CaseStatus.ERROR, 3), result("b")]
    other = dataclasses.replace(CURRENT, metric="older")
    verdict = contract_verdict(report, CURRENT, ScoredResults(other, failing))
    assert verdict.ok and not verdict.from_run and verdict.line is None
    assert verdict.message == "The metric meets the contract."
    assert contract_verdict(report, CURRENT, None).ok


def test_the_line_most_cases_fail_at_is_named_and_the_others_counted(pool) -> None:
    results = [
        result("a", CaseStatus.ERROR, 7),
        result("b", CaseStatus.ERROR, 9),
        result("c", CaseStatus.ERROR, 9),
        result("d", CaseStatus.TIMEOUT, None),
        result("e"),
    ]
    verdict = contract_verdict(passing_report(), CURRENT, ScoredResults(CURRENT, results))
    assert verdict.line == 9
    assert verdict.message.startswith("2 of 5 cases fail at metric.py line 9")
    assert "2 more fail elsewhere" in verdict.message


def test_a_helper_files_line_is_named_but_not_marked_in_metric_py(pool) -> None:
    results = [result("a", CaseStatus.ERROR, 4, "helpers.py"), result("b")]
    verdict = contract_verdict(passing_report(), CURRENT, ScoredResults(CURRENT, results))
    assert verdict.message.startswith("1 of 2 cases fails at helpers.py line 4")
    assert verdict.line == 4 and verdict.marked_line is None


def test_a_check_that_fails_keeps_its_own_verdict(pool) -> None:
    report = check_metric(
        "def score(i, o, e=None):\n    return 1.0\n",
        [Case("a", {}, "x", None)],
        RunOptions(pool=pool, stop_on_timeout=True),
    )
    verdict = contract_verdict(report, CURRENT, ScoredResults(CURRENT, [result("a")]))
    assert not verdict.ok and not verdict.from_run
    assert verdict.line == 2
    assert verdict.message.startswith("The metric breaks the contract at metric return value (metric.py line 2)")
