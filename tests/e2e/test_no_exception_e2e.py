"""No page shows a Python exception while its jobs run (issue 23 item 2: the judge-consistency panel showed a
TypeError for about a second on every run, because its progress line formatted a spend that was still None).

Each test starts a page's job with a slow metric and, until the job's result is drawn, looks for Streamlit's
exception element (``stException``) several times a second."""

from __future__ import annotations

import time

from playwright.sync_api import Locator, Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.workspace import Workspace
from tests.e2e.browser import wait_for_app_run
from tests.e2e.editor_moves import PASSES, go_to, open_author

SLOW = (
    "import time\n\ndef score(input, output, expected=None):\n"
    "    time.sleep(0.05)\n    return 1.0, {'feedback': 'Slow but fine: the label matches.'}\n"
)
OLD = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'Wrong.'}\n"


def watch(page: Page, done: Locator, seconds: float = 120.0) -> None:
    """Until ``done`` shows, fail as soon as the page shows an exception."""
    deadline = time.monotonic() + seconds
    while not done.count():
        assert page.get_by_test_id("stException").count() == 0, page.get_by_test_id("stException").first.inner_text()
        assert time.monotonic() < deadline, "the job's result was not drawn in time"
        page.wait_for_timeout(150)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_judge_consistency_and_score_all_on_the_author_page(page: Page, server: str, workspace: Workspace) -> None:
    workspace.replace_draft(SLOW, "the test")
    open_author(page, server)
    expect(page.get_by_text(PASSES)).to_be_visible()
    page.get_by_text("Judge consistency: score the same cases several times").click()
    page.get_by_role("button", name="Judge each case again").click()
    watch(page, page.get_by_test_id("stDataFrame").filter(has_text="flipped"))
    page.get_by_role("button", name="Score all cases").click()
    watch(page, page.get_by_text("Showing 72 of 72 scored cases", exact=False))


def test_scoring_and_probes_on_feedback_review(page: Page, server: str, workspace: Workspace) -> None:
    workspace.replace_draft(SLOW, "the test")
    page.goto(f"{server}/feedback")
    page.get_by_role("button", name="Score all cases now").click()
    watch(page, page.get_by_text("Metric health", exact=True))
    page.get_by_role("button", name="Run probes").click()
    watch(page, page.get_by_text("Probe results", exact=False))


def test_comparing_two_versions_on_history(page: Page, server: str, workspace: Workspace) -> None:
    workspace.save_version("old", OLD)
    workspace.replace_draft(SLOW, "the test")
    open_author(page, server)
    go_to(page, "History")
    page.get_by_role("button", name="Compare scores").click()
    watch(page, page.get_by_text("Change in score per case", exact=False))


def test_scoring_the_candidates_on_reward_trade_offs(page: Page, server: str, workspace: Workspace) -> None:
    workspace.replace_draft(EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8"), "the test")
    page.goto(f"{server}/tradeoffs")
    button = page.get_by_role("button", name="Score candidates")
    expect(button).to_be_enabled(timeout=60_000)
    wait_for_app_run(page)
    button.click()
    watch(page, page.get_by_test_id("stMetric").filter(has_text="Winner at these weights"))
