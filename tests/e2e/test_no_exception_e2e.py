"""No page shows a Python exception while its jobs run (issue 23 item 2: the judge-consistency panel showed a
TypeError for about a second on every run, because its progress line formatted a spend that was still None).

Each test starts a page's job with a slow metric and, until the job's result is drawn, looks for Streamlit's
exception element (``stException``) several times a second."""

from __future__ import annotations

import time

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.workspace import Workspace
from tests.e2e.browser import wait_for_app_run
from tests.e2e.editor_moves import PASSES, click, go_to, job_line, open_author

SLOW = (
    "import time\n\ndef score(input, output, expected=None):\n"
    "    time.sleep(0.05)\n    return 1.0, {'feedback': 'Slow but fine: the label matches.'}\n"
)
OLD = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'Wrong.'}\n"


def watch(page: Page, start: Locator, done: Locator, kind: str = "scoring", seconds: float = 120.0) -> None:
    """Click ``start``, then until ``done`` shows, fail as soon as the page shows an exception. The click is
    made again when, 15 s after it, neither ``done`` nor the job's line (label ``kind``) in the sidebar shows:
    a click can be lost on a loaded machine."""
    running = job_line(page, kind)
    deadline = time.monotonic() + seconds
    clicked_at: float | None = None
    while not done.count():
        assert page.get_by_test_id("stException").count() == 0, page.get_by_test_id("stException").first.inner_text()
        assert time.monotonic() < deadline, "the job's result was not drawn in time"
        if clicked_at is None or (time.monotonic() - clicked_at > 15 and not running.count()):
            try:
                click(start)()
                clicked_at = time.monotonic()
            except PlaywrightError:
                pass  # not drawn yet: tried again on the next look
        page.wait_for_timeout(150)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_judge_consistency_and_score_all_on_the_author_page(page: Page, server: str, workspace: Workspace) -> None:
    workspace.replace_draft(SLOW, "the test")
    open_author(page, server)
    expect(page.get_by_text(PASSES)).to_be_visible()
    page.get_by_text("Judge consistency: score the same cases several times").click()
    flipped = page.get_by_test_id("stDataFrame").filter(has_text="flipped")
    watch(page, page.get_by_role("button", name="Judge each case again"), flipped, "judge consistency")
    scored = page.get_by_text("Showing 72 of 72 scored cases", exact=False)
    watch(page, page.get_by_role("button", name="Score all cases"), scored)


def test_scoring_and_probes_on_feedback_review(page: Page, server: str, workspace: Workspace) -> None:
    workspace.replace_draft(SLOW, "the test")
    page.goto(f"{server}/feedback")
    watch(page, page.get_by_role("button", name="Score all cases now"), page.get_by_text("Metric health", exact=True))
    probes = page.get_by_text("Probe results", exact=False)
    watch(page, page.get_by_role("button", name="Run probes"), probes, "feedback probes")


def test_comparing_two_versions_on_history(page: Page, server: str, workspace: Workspace) -> None:
    workspace.save_version("old", OLD)
    workspace.replace_draft(SLOW, "the test")
    open_author(page, server)
    go_to(page, "History")
    compared = page.get_by_text("Change in score per case", exact=False)
    watch(page, page.get_by_role("button", name="Compare scores"), compared, "comparison")


def test_scoring_the_candidates_on_reward_trade_offs(page: Page, server: str, workspace: Workspace) -> None:
    workspace.replace_draft(EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8"), "the test")
    page.goto(f"{server}/tradeoffs")
    button = page.get_by_role("button", name="Score candidates")
    expect(button).to_be_enabled(timeout=60_000)
    wait_for_app_run(page)
    watch(page, button, page.get_by_test_id("stMetric").filter(has_text="Winner at these weights"), "reward trade-offs")
