"""A job whose browser went away and that no other session watches is cancelled after the grace period.

Its own server: the grace is 2 s here (60 s by default), which would cancel the other modules' jobs too.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import wait_for_app_run
from tests.e2e.editor_moves import start_endless_scoring


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"SKYNET_JOB_ORPHAN_S": "2"}


def test_a_job_nobody_watches_is_cancelled(page: Page, server: str) -> None:
    """The job is started in the tab, whose session then ends as a closed tab's does: the tab leaves the studio
    (its websocket closes; the tab is the worker's reused one, where a new tab costs Chromium seconds of CPU). A
    new session then opens the Runs page, whose sidebar lists every session's running jobs: none. (The Author
    page would start a check of the endless draft, which this test does not need.)"""
    start_endless_scoring(page, server)  # returns once the job runs (its button disabled)
    page.goto("about:blank")  # its session ends: nobody watches the job now
    page.wait_for_timeout(6_000)  # the grace period and a reaper pass
    page.goto(f"{server}/runs")
    expect(page.get_by_role("heading", name="Runs", exact=True)).to_be_visible(timeout=60_000)
    wait_for_app_run(page)
    expect(page.get_by_test_id("stSidebarNav")).to_be_visible()  # the sidebar is drawn
    expect(page.get_by_test_id("stSidebar").get_by_text("Running jobs")).to_have_count(0)
