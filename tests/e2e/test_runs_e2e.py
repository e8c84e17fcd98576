"""The Runs and History pages in headless Chromium, in English and Chinese, at 1400 and 900 px wide.

Seeded with two saved runs of the example dataset (with their cases) and versions whose names carry the
time the studio wrote into them, the pages are opened by URL, the compare view chosen, and screenshots
taken for a person to look at (see browser.shot), each with nothing sticking out to the right.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from skynet_core.datasets import load_example
from skynet_core.metric.source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs import RunKey, metric_hash
from skynet_core.store import VersionKind
from skynet_core.workspace import SETTING_LANGUAGE, Workspace
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import open_list, start_job

OLD = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'Half right.'}\n"
NEW = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Right.'}\n"


def settle(page: Page) -> None:
    """Wait for the run to finish and the tables and metrics to draw (they paint after the run)."""
    wait_for_app_run(page)
    expect(page.get_by_test_id("stDataFrame").first).to_be_visible()
    page.wait_for_timeout(1500)


def seed(workspace: Workspace) -> None:
    store = workspace.store
    store.save_version("first try", OLD)
    store.save_version("autosave 19:20:01", OLD, kind=VersionKind.AUTO)
    store.save_version("before Reward trade-offs wrote REWARD_SPEC (19:28:49)", OLD, kind=VersionKind.KEPT)
    store.save_draft(NEW)
    data = load_example()
    candidate = data.candidates[0]
    cases = data.for_candidate(candidate)
    runs = workspace.runs.store
    for source, shift in ((OLD, 0.0), (NEW, 0.3)):
        results = []
        for index, case in enumerate(cases):
            if index % 9 == 4:
                results.append(CaseResult(case.id, case.split, CaseStatus.ERROR, error="KeyError: 'label'",
                                          candidate=candidate))  # fmt: skip
                continue
            score = min(1.0, ((index * 37) % 10) / 10 + shift * (index % 2))
            results.append(
                CaseResult(
                    case.id,
                    case.split,
                    score=score,
                    scores={"label": float(index % 2), "tone": score / 2},
                    feedback=f"Label {'right' if index % 2 else 'wrong'}; reply could name the fix.",
                    candidate=candidate,
                    duration_ms=3.0,
                )  # fmt: skip
            )
        made_by = Provenance(
            MetricSource.of(source).digest,
            "example", data.name, candidate, None,
        )  # fmt: skip
        key = RunKey("example", candidate, None, metric_hash(source), data.name)
        runs.save(key, results, metric_source=source, provenance=made_by, cases=cases)


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_runs_and_history_pages(page: Page, server: str, workspace: Workspace, language: str):
    url = server
    seed(workspace)
    workspace.store.set(SETTING_LANGUAGE, language)
    page.set_viewport_size({"width": WIDTHS[0], "height": 2200})  # the whole page in one shot
    zh = language == "zh_CN"

    page.goto(f"{url}/runs")
    expect(page.get_by_role("heading", name="运行" if zh else "Runs")).to_be_visible(timeout=30_000)
    settle(page)
    expect(page.get_by_text("Download CSV" if not zh else "下载 CSV")).to_be_visible()
    for width in at_widths(page):
        assert_readable_picture(shot(page, f"runs-list-{language}-{width}"), width)

    page.get_by_text("比较两次运行" if zh else "Compare two runs").click()
    settle(page)
    expect(page.get_by_text("平均分数，B" if zh else "Mean score, B")).to_be_visible()
    for width in at_widths(page, WIDTHS[::-1]):
        shot(page, f"runs-compare-{language}-{width}")

    page.get_by_test_id("stSidebarNav").get_by_text("历史" if zh else "History", exact=True).click()  # no reload
    expect(page.get_by_role("heading", name="历史" if zh else "History")).to_be_visible(timeout=30_000)
    wait_for_app_run(page)
    compared = page.get_by_text("每个用例的分数变化" if zh else "Change in score per case")
    start_job(page, page.get_by_role("button", name="比较分数" if zh else "Compare scores"), compared)
    settle(page)
    for width in at_widths(page):
        assert_readable_picture(shot(page, f"history-{language}-{width}"), width)
    versions = page.get_by_test_id("stMain").get_by_test_id("stSelectbox").first  # the versions' labels, each whole
    open_list(page, versions)
    page.wait_for_timeout(500)
    shot(page, f"history-versions-{language}-{WIDTHS[-1]}")
