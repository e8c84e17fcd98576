"""The Stress test page in headless Chromium: the report of a hackable metric on ticket labels, its verdict first with
the worst example before and after, read whole in English at 1400 px and, the session switched to Chinese, at
1000 px (screenshots in tests/e2e/browser.py's folder, checked as pictures).

The report is made in the test process (the workspace's stress job, as the page starts it) and the page finds it
saved. A run started from the page, its plan and a sound metric's report are checked through AppTest
(tests/app/test_app_stress.py).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from skynet_core.paths import DATA_ROOTS_ENV
from skynet_core.workspace import StressForm, Workspace
from skynet_core.workspace.jobs import JobSlot
from tests import stress_world as world
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import pick_language

pytestmark = pytest.mark.timeout(600)
# Half the world's 40 tickets: every fourth answer is still wrong (25%).
CASES = 20
HACKABLE_ZH = "优化器可以钻这个指标的空子：它可被钻空子（smuggle_expected 25%）"


@pytest.fixture
def hackable(workspace: Workspace, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """The world's first 20 ticket labels in use, the keyword-contains metric as the draft, and its stress report
    saved (a run of the workspace's stress job; this process reads the server's uploads, as the server does)."""
    monkeypatch.setenv(DATA_ROOTS_ENV, str(workspace.directory))
    folder = workspace.data.uploads_dir()
    folder.mkdir(parents=True, exist_ok=True)
    workspace.data.save_choice(str(world.write_cases(folder / "tickets.jsonl", count=CASES)))
    workspace.drafts.replace(world.CONTAINS, "the test")
    job = workspace.stress.start(JobSlot(), StressForm(cases=CASES))
    assert job.wait(240) and job.result is not None
    assert workspace.data.in_use().data.name != "Support tickets (example)" and workspace.stress.latest() is not None
    return workspace


def test_a_hackable_metrics_report_reads_whole_in_english_and_in_chinese(
    page: Page, server: str, hackable: Workspace
) -> None:
    page.set_viewport_size({"width": WIDTHS[0], "height": 1500})
    page.goto(f"{server}/stress")
    expect(page.get_by_role("heading", name="Stress test", exact=True)).to_be_visible(timeout=60_000)
    wait_for_app_run(page)
    verdict = page.get_by_text("An optimizer can game this metric", exact=False)
    expect(verdict).to_contain_text("it is hackable (smuggle_expected 25%)")
    expect(page.get_by_text("Before · score", exact=False).first).to_be_visible()
    expect(page.get_by_text("After smuggle_expected · score", exact=False).first).to_be_visible()
    assert_readable_picture(shot(page, f"stress-hackable-en-{WIDTHS[0]}", whole=True), WIDTHS[0])

    pick_language(page, "简体中文")  # a rerun of the page, not a second load
    expect(page.get_by_role("heading", name="压力测试", exact=True)).to_be_visible(timeout=60_000)
    expect(page.get_by_text(HACKABLE_ZH, exact=False)).to_be_visible()
    expect(page.get_by_test_id("stDataFrame")).to_be_visible()
    expect(page.get_by_role("spinbutton", name="随机种子")).to_be_visible()
    for width in at_widths(page, (WIDTHS[-1],)):
        assert_readable_picture(shot(page, f"stress-hackable-zh-{width}", whole=True), width)
