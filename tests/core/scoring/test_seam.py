"""The seam every page and the CLI score through: a Scorer (local or Ray) with one RunOptions value, and the
Outcome a job ends with, read once, with one message."""

from __future__ import annotations

import threading

import pytest

from skynet_core.i18n import use_language
from skynet_core.metric.contract import check_metric
from skynet_core.metric.source import MetricSource
from skynet_core.results import (
    CaseResult,
    CheckReport,
    ErrorKind,
    JobError,
    JobKind,
    OutcomeStatus,
    Stage,
    StageName,
    StageStatus,
)
from skynet_core.scoring import LocalScorer, RayScorer, RunOptions, Scorer, scorer_for
from skynet_core.workspace.jobs import Job
from tests.case_factory import make_cases

PER_CASE = (
    "def score(input, output, expected=None):\n"
    "    if input['question'] == 'q2':\n        raise KeyError('label')\n"
    "    return 1.0, {'feedback': input['question']}\n"
)


def test_both_scorers_are_scorers_and_the_address_chooses_one():
    assert isinstance(LocalScorer(), Scorer) and isinstance(RayScorer("h:1"), Scorer)
    assert scorer_for("") == LocalScorer() and scorer_for("  ") == LocalScorer()
    assert scorer_for(" head:6379 ") == RayScorer("head:6379")


def test_a_local_scorer_gives_one_result_per_case_in_order_and_never_raises_for_one(pool):
    cases = make_cases(6)
    run = LocalScorer()(MetricSource.of(PER_CASE), cases, RunOptions(timeout_s=10, concurrency=3, pool=pool))
    assert [result.id for result in run.results] == [case.id for case in cases]
    assert [result.status.value for result in run.results].count("error") == 1
    assert "KeyError" in run.results[2].error


def test_run_options_watched_by_a_job_stop_and_count_it(pool):
    job: Job[None] = Job(JobKind.SCORE, total=4)
    options = RunOptions(timeout_s=10, pool=pool).watched_by(job)
    assert options.cancel is job.cancel and options.timeout_s == 10
    LocalScorer()(MetricSource.of(PER_CASE), make_cases(4), options)
    assert job.done == 4 and len(job.partial) == 4


def test_check_scores_its_sample_through_the_scorer_it_is_given(pool):
    seen: list[int] = []

    class Counting:
        def __call__(self, metric, cases, options):
            seen.append(len(cases))
            return LocalScorer()(metric, cases, options)

    cases = make_cases(5)
    report = check_metric(MetricSource.of(PER_CASE), cases, RunOptions(pool=pool), scorer=Counting(), sample=cases)
    assert seen == [5] and len(report.cases) == 5


def test_an_unreachable_cluster_is_a_typed_job_error_with_its_message():
    pytest.importorskip("ray", reason="Ray is not installed (requirements-ray.txt)")
    with pytest.raises(JobError) as raised:
        RayScorer("127.0.0.2:1")(MetricSource.of(PER_CASE), make_cases(1), RunOptions())
    assert raised.value.kind is ErrorKind.CLUSTER and "127.0.0.2" in str(raised.value)


def finished(job: Job, target) -> Job:
    job.start(target).wait(5)
    return job


def test_outcome_of_each_way_a_job_ends():
    failure = Stage(StageName.LOAD, StageStatus.FAILED, "SyntaxError", line=3)
    broken = finished(Job(JobKind.SCORE, 2), lambda job: CheckReport([failure]))
    assert broken.outcome().status is OutcomeStatus.METRIC_BROKEN and broken.outcome().failure == failure
    assert broken.outcome().message() == "No case was scored: metric.py fails at load (metric.py line 3)."

    def cancelled_after_one(job: Job) -> None:
        job.add_result(CaseResult(id="a"))
        job.cancel.set()

    cancelled = finished(Job(JobKind.SCORE, 3), cancelled_after_one)
    assert cancelled.outcome().status is OutcomeStatus.CANCELLED
    assert cancelled.outcome().message() == "Scoring was cancelled after 1 of 3 cases; what ran is shown."

    def cluster(job: Job) -> None:
        raise JobError(ErrorKind.CLUSTER, "no Ray cluster answers at h:1; start one.")

    unreachable = finished(Job(JobKind.COMPARE, 2), cluster)
    outcome = unreachable.outcome()
    assert (outcome.status, outcome.error_kind) == (OutcomeStatus.COULD_NOT_RUN, ErrorKind.CLUSTER)
    assert outcome.message() == "No Ray cluster answers at h:1; start one."

    bug = finished(Job(JobKind.CONSISTENCY, 2), lambda job: 1 / 0)
    assert bug.outcome().error_kind is ErrorKind.INTERNAL and "ZeroDivisionError" in bug.outcome().error
    assert bug.outcome().message() == "Judge consistency could not run. Try again; if it repeats, restart the app."

    scored = finished(Job(JobKind.SCORE, 1), lambda job: CheckReport([], [CaseResult(id="a", score=1.0)]))
    assert scored.outcome().status is OutcomeStatus.SCORED and scored.outcome().message() == ""


def test_a_running_outcome_and_its_message_in_chinese():
    release = threading.Event()
    job: Job[None] = Job(JobKind.PROBES, 5).start(lambda job: release.wait(5) and None)
    outcome = job.outcome()
    assert outcome.status is OutcomeStatus.RUNNING and not outcome.finished
    with use_language("zh_CN"):
        assert "5" in outcome.message() and "feedback probes" not in outcome.message()
    release.set()
