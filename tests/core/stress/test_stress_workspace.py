"""The stress test as a workspace job: the draft on the cases in use, through the workspace's scorer and run
options, listed under Running jobs and cancellable, its report saved with the metric version it tested so History
and Runs can show "stress: …" for that version; the form kept; a search without models refused before it starts."""

from __future__ import annotations

import pytest

from skynet_core.llm import ModelSettings
from skynet_core.paths import DATA_ROOTS_ENV
from skynet_core.results import JobKind
from skynet_core.stress import Flag
from skynet_core.workspace import StressForm, Workspace
from skynet_core.workspace.jobs import JobBoard, JobSlot
from tests import stress_world as world


@pytest.fixture
def ws_with_tickets(tmp_path, pool, monkeypatch) -> Workspace:
    """A workspace whose draft is the keyword-contains metric and whose dataset in use is the world's tickets."""
    monkeypatch.setenv(DATA_ROOTS_ENV, str(tmp_path))
    workspace = Workspace(tmp_path / "data", pool=pool, jobs=JobBoard(grace_s=60), env={})
    workspace.data.save_choice(str(world.write_cases(tmp_path / "tickets.jsonl", 20)))
    workspace.drafts.replace(world.CONTAINS, "test")
    return workspace


def test_the_job_stresses_the_draft_and_saves_the_report_with_the_metric_version(ws_with_tickets: Workspace) -> None:
    job = ws_with_tickets.stress.start(JobSlot(), StressForm(), watcher="tab-1")
    assert job.kind is JobKind.STRESS and job.total == 20 * 16
    assert [running.id for running in ws_with_tickets.jobs.running("tab-2")] == [job.id]  # every session lists it
    assert job.wait(120)
    report = job.result
    assert report is not None and report.verdict.why[Flag.HACKABLE][0] == "smuggle_expected"
    assert job.done <= job.total
    draft, dataset = ws_with_tickets.drafts.current().metric, ws_with_tickets.data.in_use().data.source
    row = ws_with_tickets.stress.latest_of(draft.digest, dataset)
    assert row is not None and row.summary.describe() == "stress: hackable (smuggle_expected 25%)"
    saved = ws_with_tickets.stress.latest()
    assert saved is not None and saved.metric == draft and saved.report.verdict == report.verdict
    assert saved.report.perturbations == report.perturbations
    ws_with_tickets.drafts.replace(world.SOUND, "test")
    assert (
        ws_with_tickets.stress.latest_of(ws_with_tickets.drafts.current().metric.digest, dataset) is None
    )  # a version without a run of its own


def test_a_cancelled_run_saves_nothing(ws_with_tickets: Workspace) -> None:
    slot = JobSlot()
    job = ws_with_tickets.stress.start(slot, StressForm(), watcher="tab-1")
    slot.cancel()
    assert job.wait(60) and job.cancelled
    assert ws_with_tickets.stress.latest() is None


def test_the_plan_counts_the_outputs_and_the_form_is_kept(ws_with_tickets: Workspace) -> None:
    setup = ws_with_tickets.stress.plan(StressForm(cases=5, seed=2))
    assert setup.plan.cases == 5 and setup.plan.outputs == 5 * 16 and setup.plan.calls == 0
    again = ws_with_tickets.stress.plan(StressForm(cases=5, seed=2))
    assert [case.id for case in setup.sample] == [case.id for case in again.sample]  # the seed picks the same
    ws_with_tickets.stress.set_form(StressForm(cases=7, seed=3, max_cost_usd=0.5, search=True, rounds=4))
    assert ws_with_tickets.stress.form() == StressForm(cases=7, seed=3, max_cost_usd=0.5, search=True, rounds=4)
    assert StressForm.from_json({"cases": "many", "rounds": 99, "search": "yes"}) == StressForm()


def test_a_search_without_task_and_reflection_models_is_refused_before_it_starts(ws_with_tickets: Workspace) -> None:
    ws_with_tickets.settings.save_models(ModelSettings())
    with pytest.raises(ValueError, match="task model"):
        ws_with_tickets.stress.start(JobSlot(), StressForm(search=True))
    assert not ws_with_tickets.jobs.running(None)


def test_the_default_sample_bounds_a_plain_metric_and_a_judge_and_the_plan_says_why() -> None:
    from skynet_core.llm import ModelSettings
    from skynet_core.metric.source import MetricSource
    from skynet_core.stress import CATALOG, default_cases, sample_cases
    from skynet_core.stress.plan import plan_stress

    plain, judge = MetricSource.of(world.SOUND), MetricSource.of(world.JUDGE)
    assert default_cases(plain, 40, 15) == 40 and default_cases(plain, 90_000, 15) == 2_000
    assert default_cases(judge, 40, 15) == 300 // 16 == 18
    cases = world.cases(40)
    lines = plan_stress(judge, sample_cases(cases, 18), 40, CATALOG, ModelSettings(), default_sample=True).describe()
    assert "18 cases are sampled by default, to keep the run near 300 llm() calls" in lines[1]
    lines = plan_stress(plain, sample_cases(cases, 20), 40, CATALOG, ModelSettings(), default_sample=True).describe()
    assert lines[1].startswith("20 cases are sampled by default: more would change the shares little")
