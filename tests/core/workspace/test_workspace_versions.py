"""Issue 23, the workspace's side of the page items: every scored text is a version (item 12), and the
trade-offs page's runs keep the cases they scored (a new run never reads "saved before runs kept their cases")."""

from __future__ import annotations

from skynet_core.metric.source import MetricSource
from skynet_core.store import VersionKind
from skynet_core.views.runs import run_cases, version_names
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobSlot

A = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'A'}\n"


def test_a_text_scored_by_score_all_becomes_a_version_once(ws: Workspace) -> None:
    ws.store.save_draft(A)  # a draft that is no version yet (typing would make an automatic one)
    for _run in range(2):
        job = ws.jobs.score_all(JobSlot())
        assert job.wait(60) and job.result is not None
    scored = [version for version in ws.drafts.versions() if version.folder == MetricSource.of(A)]
    assert [version.kind for version in scored] == [VersionKind.SCORED]  # scored twice: one version
    names = version_names(ws.drafts.versions())
    summary = ws.runs.summaries()[0]
    assert names[summary.provenance.metric] == f"#{scored[0].id} scored"  # Runs names it, never "metric.py 65fbbc2"


def test_a_text_that_is_a_version_already_is_not_kept_again(ws: Workspace) -> None:
    ws.store.save_draft(A)
    named = ws.drafts.save_version("mine").version
    job = ws.jobs.score_all(JobSlot())
    assert job.wait(60) and job.result is not None
    assert [version.id for version in ws.drafts.versions()] == [named.id]


def test_the_tradeoffs_runs_keep_each_candidates_cases(ws: Workspace) -> None:
    job = ws.jobs.score_candidates(JobSlot(), MetricSource.of(A))
    assert job.wait(60) and job.result is not None
    data = ws.data.in_use().data
    runs = [ws.runs.get(summary.id) for summary in ws.runs.summaries()]
    assert sorted(run.key.candidate for run in runs) == sorted(data.candidates)
    for run in runs:
        cases, where = run_cases(run, ws.data.cases_of)
        assert where == "kept"  # never "This run was saved before runs kept their cases"
        assert {case.candidate for case in run.cases} == {run.key.candidate}
        assert {case_id for _name, case_id in cases} == {result.id for result in run.results}
    assert any(version.folder == MetricSource.of(A) for version in ws.drafts.versions())
