"""The Stress test page in headless Chromium: a person starts the run on ticket labels and sees the verdict lead the
report, with the worst example before and after; a sound metric's report says it held. Each test's
screenshot is taken at 1400 px and 1000 px (tests/e2e/browser.py's folder) and checked as a picture; then the report
the run saved is read again in Chinese at 1000 px (screenshot too)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from skynet_core.workspace import SETTING_LANGUAGE, Workspace
from tests import stress_world as world
from tests.e2e.browser import assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import start_job

pytestmark = pytest.mark.timeout(600)
RUN_MS = 240_000  # 20 cases × 16 outputs in the sandbox, on a machine that may be busy
# Half the world's 40 tickets: every fourth answer is still wrong (25%), and the page's run scores half as many outputs
# in the sandbox.
CASES = 20
HACKABLE_ZH = "优化器可以钻这个指标的空子：它可被钻空子（smuggle_expected 25%）"


@pytest.fixture
def tickets(workspace: Workspace) -> Workspace:
    """The world's first 20 ticket labels (a quarter of the answers wrong) as the dataset in use."""
    folder = workspace.data.uploads_dir()
    folder.mkdir(parents=True, exist_ok=True)
    workspace.data.save_choice(str(world.write_cases(folder / "tickets.jsonl", count=CASES)))
    return workspace


def open_page(page: Page, url: str, width: int = 1400) -> None:
    page.set_viewport_size({"width": width, "height": 1500})
    page.goto(f"{url}/stress")
    expect(page.get_by_role("heading", name="Stress test", exact=True)).to_be_visible(timeout=60_000)
    wait_for_app_run(page)


def read_in_chinese(page: Page, url: str, tickets: Workspace, name: str, verdict: str) -> None:
    """The report the run saved, read again in Chinese at 1000 px: a new visit (the language is the workspace's) finds
    the saved report, its verdict in Chinese, its table and the seed field, and a screenshot of it."""
    tickets.store.set(SETTING_LANGUAGE, "zh_CN")
    page.set_viewport_size({"width": 1000, "height": 1500})
    page.goto(f"{url}/stress")
    expect(page.get_by_role("heading", name="压力测试", exact=True)).to_be_visible(timeout=60_000)
    wait_for_app_run(page)
    expect(page.get_by_text(verdict, exact=False)).to_be_visible()
    expect(page.get_by_test_id("stDataFrame")).to_be_visible()
    expect(page.get_by_role("spinbutton", name="随机种子")).to_be_visible()
    wait_for_app_run(page)
    assert_readable_picture(shot(page, f"stress-{name}-zh-1000", whole=True), 1000)


def test_a_person_runs_the_stress_test_and_sees_the_verdict_first(page: Page, server: str, tickets: Workspace) -> None:
    """The run on a hackable metric: the plan, the verdict (hackable, smuggle_expected 25%) with the worst example
    before and after, screenshots at 1400 and 1000 px; then the saved report in Chinese at 1000 px."""
    tickets.drafts.replace(world.CONTAINS, "the test")
    open_page(page, server)
    expect(page.get_by_text(f"Planned: {CASES} of {CASES} cases", exact=False)).to_be_visible()
    verdict = page.get_by_text("An optimizer can game this metric", exact=False)
    start_job(page, page.get_by_role("button", name="Run the stress test"), verdict, RUN_MS)
    expect(verdict).to_contain_text("it is hackable (smuggle_expected 25%)")
    expect(page.get_by_text("Before · score", exact=False).first).to_be_visible()
    expect(page.get_by_text("After smuggle_expected · score", exact=False).first).to_be_visible()
    for width in at_widths(page):
        assert_readable_picture(shot(page, f"stress-hackable-{width}", whole=True), width)
    read_in_chinese(page, server, tickets, "hackable", HACKABLE_ZH)


def test_a_sound_metrics_report_says_it_held(page: Page, server: str, tickets: Workspace) -> None:
    """The run on a sound metric: the report says it held, and names the feedback that does not change when the output
    gets worse; screenshots at 1400 and 1000 px; then the saved report in Chinese at 1000 px."""
    tickets.drafts.replace(world.SOUND, "the test")
    open_page(page, server)
    held = page.get_by_text("The metric held", exact=False)
    start_job(page, page.get_by_role("button", name="Run the stress test"), held, RUN_MS)
    expect(page.get_by_text("Feedback that does not change when the output gets worse", exact=False)).to_be_visible()
    for width in at_widths(page):
        assert_readable_picture(shot(page, f"stress-sound-{width}", whole=True), width)
    read_in_chinese(page, server, tickets, "sound", "指标经受住了考验")
