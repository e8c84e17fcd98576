import dataclasses
import threading
import time

from skynet_core.i18n import use_language
from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult, StageStatus
from skynet_core.workspace import RunOptions, Workspace
from skynet_core.workspace.jobs import Job, JobSlot
from tests.case_factory import make_cases

GOOD = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'fine', 'scores': {'a': 0.5}}\n"
HANGS = "def score(input, output, expected=None):\n    while True:\n        pass\n"


def test_job_reports_result_progress_and_partial_results():
    def target(job: Job[str]) -> str:
        for index in range(4):
            job.add_result(CaseResult(id=str(index)))
        return "finished"

    job = Job(kind="score", total=4).start(target)
    assert job.wait(5)
    assert (job.result, job.error, job.cancelled, job.done, job.progress) == ("finished", None, False, 4, 1.0)
    assert [result.id for result in job.partial] == ["0", "1", "2", "3"]


def test_job_error_is_kept_as_a_message_not_raised():
    def target(job: Job[None]) -> None:
        raise ValueError("the dataset has no cases")

    job = Job(kind="score").start(target)
    assert job.wait(5)
    assert job.result is None
    assert "ValueError: the dataset has no cases" in job.error


def test_submitting_a_new_job_cancels_the_running_one():
    release = threading.Event()

    def slow(job: Job[str]) -> str:
        job.cancel.wait(10)
        release.set()
        return "late"

    slot = JobSlot()
    first = slot.submit(Job(kind="check"), slow)
    second = slot.submit(Job(kind="check"), lambda job: "new")
    assert release.wait(5) and first.wait(5) and second.wait(5)
    assert first.cancelled and first.result is None
    assert second.result == "new"
    assert slot.job is second


def test_slot_cancel_stops_the_current_job():
    slot = JobSlot()
    job = slot.submit(Job(kind="score"), lambda job: job.cancel.wait(10) and "stopped")
    slot.cancel()
    assert job.wait(5) and job.cancelled


def test_check_job_passes_for_a_good_metric(ws):
    job = ws.jobs.check(JobSlot(), MetricSource.of(GOOD))
    assert job.wait(30)
    report = job.result
    assert report is not None and report.ok
    assert job.done == 3 and len(job.partial) == 3


def test_newer_check_cancels_a_hanging_one(ws):
    slot = JobSlot()
    hanging = ws.jobs.check(slot, MetricSource.of(HANGS))
    time.sleep(0.5)
    fresh = ws.jobs.check(slot, MetricSource.of(GOOD))
    assert hanging.wait(10) and hanging.cancelled
    assert fresh.wait(30) and fresh.result.ok


def test_hanging_check_times_out_with_a_message(ws):
    ws.settings.set_timeout_s(1)
    job = ws.jobs.check(JobSlot(), MetricSource.of(HANGS))
    assert job.wait(30)
    stage = job.result.stage("return_value")
    assert stage.status is StageStatus.FAILED
    assert "did not finish within 1 s" in stage.message


def test_score_job_scores_every_case_in_order(ws, pool):
    cases = make_cases(40)
    job = ws.jobs.score(JobSlot(), MetricSource.of(GOOD), cases, RunOptions(timeout_s=10, concurrency=2, pool=pool))
    assert job.wait(60)
    assert [result.id for result in job.result.cases] == [case.id for case in cases]
    assert job.done == 40 and job.total == 40


def test_latest_gives_the_last_results_in_the_order_they_came() -> None:
    job: Job[list[CaseResult]] = Job("score", 5)
    assert job.latest(3) == []
    for index in range(5):
        job.add_result(CaseResult(id=str(index)))
    assert [result.id for result in job.latest(3)] == ["2", "3", "4"]
    assert [result.id for result in job.latest(10)] == ["0", "1", "2", "3", "4"]
    assert job.latest(0) == []


def checked(ws: Workspace, source: str, **options) -> Job:
    job = ws.jobs.check(JobSlot(), MetricSource.of(source), **options)
    assert job.wait(30)
    return job


def test_a_check_that_passed_is_the_same_report_for_the_next_tab_without_running_again(ws):
    first = checked(ws, GOOD)
    again = checked(ws, GOOD)
    assert again.result is first.result  # no sandbox ran: a new run makes a new report
    assert again.outcome().status is first.outcome().status and again.done == again.total == 3
    assert checked(ws, GOOD, fresh=True).result is not first.result  # "Check again" runs it


def test_what_makes_a_check_differ_runs_it_again(ws):
    first = checked(ws, GOOD)
    assert checked(ws, GOOD.replace("'fine'", "'fine.'")).result is not first.result  # another text
    ws.settings.set_timeout_s(7)
    assert checked(ws, GOOD).result is not first.result  # another timeout
    with use_language("zh_CN"):
        assert checked(ws, GOOD).result is not first.result  # its messages in another language


def test_a_failed_check_is_run_again(ws):
    broken = "def score(input, output, expected=None):\n    return 'high', {'feedback': 'x'}\n"
    first = checked(ws, broken)
    assert not first.result.ok
    assert checked(ws, broken).result is not first.result


def test_a_check_whose_metric_asked_a_model_is_not_remembered() -> None:
    from skynet_core.results import CheckReport, Stage, StageName
    from skynet_core.results.trace import LlmCall
    from skynet_core.workspace.usecases import passed_whole

    stages = [Stage(StageName.LOAD, StageStatus.PASSED)]
    plain = CaseResult(id="a", score=1.0)
    asked = dataclasses.replace(plain, _llm_calls=(LlmCall(instructions="Grade it.", model="m"),))
    assert passed_whole(CheckReport(stages, [plain]))
    assert not passed_whole(CheckReport(stages, [plain, asked]))
    assert not passed_whole(CheckReport([Stage(StageName.LOAD, StageStatus.FAILED)], [plain]))
