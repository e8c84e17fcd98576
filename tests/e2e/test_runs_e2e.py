"""The Runs and History pages in headless Chromium: read whole in English at 1400 px, then, the session switched to
Chinese, at 1000 px.

Seeded with versions whose names carry the time the studio wrote into them and two saved runs of a small dataset in
use (eight cases, so History's comparison scores sixteen), one page is loaded and a person's moves do the rest: the
runs list, the compare view, History's comparison (through the sidebar's menu), then the language picker and the same
pages again. Each screenshot must show nothing sticking out to the right. What the pages say is checked through AppTest
(tests/app/test_app_runs.py, test_app_runs_compare.py, test_app_history.py, test_history_comparison.py).
"""

from __future__ import annotations

import json

import pytest
from playwright.sync_api import Page, expect

from skynet_core.datasets import load_example
from skynet_core.metric.source import MetricSource
from skynet_core.paths import DATA_ROOTS_ENV
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs import RunKey
from skynet_core.store import VersionKind
from skynet_core.workspace import Workspace
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import go_to, pick_language, start_job

OLD = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'Half right.'}\n"
NEW = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Right.'}\n"
CASES = 8


def settle(page: Page) -> None:
    """Wait for the run to finish and the tables and metrics to draw (they paint after the run)."""
    wait_for_app_run(page)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    page.wait_for_timeout(1500)


@pytest.fixture
def seeded(workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """Three versions and the draft; the example's first eight cases as the dataset in use (an upload: this process
    reads the server's uploads, as the server does); two saved runs of it, by the old and the new metric.py."""
    monkeypatch.setenv(DATA_ROOTS_ENV, str(workspace.directory))
    store = workspace.store
    store.save_version("first try", OLD)
    store.save_version("autosave 19:20:01", OLD, kind=VersionKind.AUTO)
    store.save_version("before Reward trade-offs wrote REWARD_SPEC (19:28:49)", OLD, kind=VersionKind.KEPT)
    store.save_draft(NEW)
    example = load_example()
    rows = [
        json.dumps({"id": case.id, "input": case.input, "output": case.output, "expected": case.expected})
        for case in example.for_candidate(example.candidates[0])[:CASES]
    ]
    folder = workspace.data.uploads_dir()
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tickets.jsonl").write_text("\n".join(rows) + "\n", encoding="utf-8")
    workspace.data.save_choice(str(folder / "tickets.jsonl"))
    in_use = workspace.data.in_use()
    cases = in_use.cases
    assert len(cases) == CASES, in_use.problem
    for source, shift in ((OLD, 0.0), (NEW, 0.3)):
        results = []
        for index, case in enumerate(cases):
            if index % 5 == 4:
                results.append(CaseResult(case.id, case.split, CaseStatus.ERROR, error="KeyError: 'label'",
                                          candidate=in_use.candidate))  # fmt: skip
                continue
            score = min(1.0, ((index * 37) % 10) / 10 + shift * (index % 2))
            results.append(
                CaseResult(
                    case.id,
                    case.split,
                    score=score,
                    scores={"label": float(index % 2), "tone": score / 2},
                    feedback=f"Label {'right' if index % 2 else 'wrong'}; reply could name the fix.",
                    candidate=in_use.candidate,
                    duration_ms=3.0,
                )  # fmt: skip
            )
        key = RunKey.of(in_use.data, in_use.candidate, None, source)
        made_by = workspace.settings.provenance(MetricSource.of(source), None, in_use)
        workspace.runs.store.save(key, results, metric_source=source, provenance=made_by, cases=cases)
    return workspace


def runs_and_compare(page: Page, language: str, width: int) -> None:
    """The Runs page's list, then its compare view, each screenshot at ``width``."""
    zh = language == "zh_CN"
    expect(page.get_by_role("heading", name="运行" if zh else "Runs")).to_be_visible(timeout=30_000)
    settle(page)
    expect(page.get_by_text("下载 CSV" if zh else "Download CSV")).to_be_visible()
    assert_readable_picture(shot(page, f"runs-list-{language}-{width}"), width)
    page.get_by_text("比较两次运行" if zh else "Compare two runs").click()
    settle(page)
    expect(page.get_by_text("平均分数，B" if zh else "Mean score, B")).to_be_visible()
    assert_readable_picture(shot(page, f"runs-compare-{language}-{width}"), width)


@pytest.mark.timeout(600)
def test_runs_and_history_read_whole_in_english_and_in_chinese(page: Page, server: str, seeded: Workspace) -> None:
    page.set_viewport_size({"width": WIDTHS[0], "height": 2200})  # the whole page in one shot
    page.goto(f"{server}/runs")
    runs_and_compare(page, "en", WIDTHS[0])

    go_to(page, "History")  # the sidebar's menu: no reload
    expect(page.get_by_role("heading", name="History")).to_be_visible(timeout=30_000)
    compared = page.get_by_text("Change in score per case")
    start_job(page, page.get_by_role("button", name="Compare scores"), compared)
    settle(page)
    assert_readable_picture(shot(page, f"history-en-{WIDTHS[0]}"), WIDTHS[0])

    pick_language(page, "简体中文")  # a rerun of the page: the comparison stays
    for width in at_widths(page, (WIDTHS[-1],)):
        expect(page.get_by_text("每个用例的分数变化")).to_be_visible()
        settle(page)
        assert_readable_picture(shot(page, f"history-zh_CN-{width}"), width)
        go_to(page, "运行")
        runs_and_compare(page, "zh_CN", width)
