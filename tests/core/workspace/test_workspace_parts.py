"""What the pages used to reach past the workspace for, now its methods: settings and language, runs and marks,
the trade-offs' scores, grading, probes, comparisons and consistency, each a job through the one scorer."""

from __future__ import annotations

import threading

import pytest

from skynet_core.cases import Case
from skynet_core.feedback import MarkValue
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult, JobKind, OutcomeStatus
from skynet_core.scoring import LocalScorer
from skynet_core.workspace import Workspace, example_metric
from skynet_core.workspace.jobs import JobBoard, JobSlot

GOOD = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'fine', 'scores': {'accuracy': 1.0}}\n"
HANGS = "def score(input, output, expected=None):\n    while True:\n        pass\n"


@pytest.fixture
def ws_env_judge(tmp_path, pool) -> Workspace:
    return Workspace(tmp_path, pool=pool, jobs=JobBoard(grace_s=60), env={"SKYNET_METRIC_MODEL": "openai/env-judge"})


class Recording:
    """Scores on this machine, counting the cases it is given: which jobs go through the workspace's scorer
    (as a cluster's scorer would: not a LocalScorer, which the check runs in its own worker)."""

    calls: list[int] = []

    def __call__(self, metric, cases, options):
        type(self).calls.append(len(cases))
        return LocalScorer()(metric, cases, options)


@pytest.fixture
def recording(ws_env_judge, monkeypatch) -> type[Recording]:
    Recording.calls = []
    monkeypatch.setattr(ws_env_judge.settings, "scorer", lambda ray_address=None: Recording())
    return Recording


def test_the_language_picked_is_kept_and_read_back(ws_env_judge, tmp_path):
    assert ws_env_judge.settings.language() is None
    ws_env_judge.settings.set_language("zh_CN")
    assert Workspace(tmp_path, env={}).settings.language() == "zh_CN"


def test_the_environment_defaults_and_forgetting_the_saved_models(ws_env_judge):
    assert ("SKYNET_METRIC_MODEL", "openai/env-judge") in ws_env_judge.settings.environment_defaults()
    ws_env_judge.settings.save_models(ModelSettings(metric=ModelConfig("openai/saved")))
    assert ws_env_judge.settings.models().metric.model == "openai/saved"
    ws_env_judge.settings.forget_models()
    assert ws_env_judge.settings.models().metric.model == "openai/env-judge"


def test_a_snapshot_holds_the_draft_data_settings_and_their_provenance(ws_env_judge):
    ws_env_judge.drafts.type(GOOD, 0)
    ws_env_judge.data.choose_cases(None, "val")
    snap = ws_env_judge.snapshot({"metric": "sk-session"})
    assert snap.draft.source == GOOD and snap.in_use.split == "val" and snap.cases == ws_env_judge.data.in_use().cases
    assert snap.provenance == ws_env_judge.settings.provenance(GOOD) and snap.settings.metric.api_key == "sk-session"
    assert (snap.timeout_s, snap.ray_address, snap.language) == (60.0, "", None)


def test_the_reflection_text_is_kept_per_dataset_for_every_session(ws_env_judge, tmp_path):
    assert ws_env_judge.drafts.instruction("example") is None
    ws_env_judge.drafts.set_instruction("example", "Classify the ticket.")
    ws_env_judge.drafts.set_instruction("/data/other.csv", "Other text.")
    assert Workspace(tmp_path, env={}).drafts.instruction("example") == "Classify the ticket."


def test_runs_and_marks_through_the_workspace(ws_env_judge):
    made_by = ws_env_judge.settings.provenance(GOOD)
    run_id = ws_env_judge.runs.keep(MetricSource.of(GOOD), [CaseResult(id="c1", score=1.0)], made_by)
    [summary] = ws_env_judge.runs.summaries()
    run = ws_env_judge.runs.get(run_id)
    assert summary.id == run_id and run is not None and ws_env_judge.runs.latest().id == run_id
    ws_env_judge.runs.set_mark(run, "c1", MarkValue.WEAK, "says nothing")
    assert ws_env_judge.runs.marks_for(run)["c1"].note == "says nothing"
    ws_env_judge.runs.clear_mark(run, "c1")
    assert ws_env_judge.runs.marks_for(run) == {} and ws_env_judge.runs.get(run_id + 100) is None


def test_scoring_the_candidates_keeps_one_run_each_and_their_scores_come_from_the_runs(ws_env_judge, recording):
    metric = MetricSource.of(GOOD)
    assert ws_env_judge.runs.scored_candidates(GOOD, ws_env_judge.data.in_use()) is None
    job = ws_env_judge.jobs.score_candidates(JobSlot(), metric)
    assert job.wait(60) and job.outcome().status is OutcomeStatus.SCORED
    assert recording.calls == [len(ws_env_judge.data.in_use().data.cases)]
    scored = ws_env_judge.runs.scored_candidates(GOOD, ws_env_judge.data.in_use())
    assert scored is not None and [c.name for c in scored.candidates] == ws_env_judge.data.in_use().data.candidates
    assert len(ws_env_judge.runs.summaries()) == len(ws_env_judge.data.in_use().data.candidates)
    # An edited metric.py keeps showing the last scores, marked as another text's.
    earlier = ws_env_judge.runs.scored_candidates(GOOD + "# edited\n", ws_env_judge.data.in_use())
    assert earlier is not None and earlier.metric == scored.metric


def test_comparisons_consistency_and_probes_score_through_the_workspace_scorer(ws_env_judge, recording):
    cases = ws_env_judge.data.in_use().cases
    compared = ws_env_judge.jobs.compare_versions(JobSlot(), example_metric(), MetricSource.of(GOOD))
    repeated = ws_env_judge.jobs.judge_consistency(JobSlot(), MetricSource.of(GOOD), cases[:4], 3)
    probes = ws_env_judge.jobs.probes(JobSlot(), MetricSource.of(GOOD), cases, label="run 1")
    assert compared.wait(60) and repeated.wait(60) and probes.wait(60)
    assert sorted(recording.calls) == sorted([len(cases), len(cases), 12, probes.total])
    assert repeated.result is not None and {row["runs"] for row in repeated.result.rows()} == {3}
    assert probes.kind is JobKind.PROBES and probes.outcome().status is OutcomeStatus.SCORED


def test_grading_feedback_is_a_listed_job_that_any_session_can_cancel(ws_env_judge, monkeypatch):
    import skynet_core.llm as llm

    asked = threading.Event()

    def slow_model(settings, instructions, text):
        asked.set()
        threading.Event().wait(0.2)
        return type("Reply", (), {"text": "GRADE: 4\nREASON: names the fault."})()

    monkeypatch.setattr(llm, "complete", slow_model)
    pairs = [(Case(id=f"c{i}", input={}, output="x"), CaseResult(id=f"c{i}", feedback="Wrong.")) for i in range(40)]
    job = ws_env_judge.jobs.grade_feedback(
        JobSlot(), pairs, ModelSettings(metric=ModelConfig("openai/judge")), watcher="tab-1"
    )
    assert asked.wait(10)
    assert ws_env_judge.jobs.running("tab-2") == [job] and job.kind is JobKind.GRADE
    ws_env_judge.jobs.cancel(job.id)
    assert job.wait(10) and job.outcome().status is OutcomeStatus.CANCELLED
    assert 0 < len(job.items) < 40 and job.items[0].grade == 4


def test_a_check_is_cancelled_by_a_newer_one_in_its_slot(ws_env_judge):
    slot = JobSlot()
    hanging = ws_env_judge.jobs.check(slot, MetricSource.of(HANGS))
    fresh = ws_env_judge.jobs.check(slot, MetricSource.of(GOOD))
    assert hanging.wait(30) and hanging.outcome().status is OutcomeStatus.CANCELLED
    assert fresh.wait(30) and fresh.result is not None and fresh.result.ok
