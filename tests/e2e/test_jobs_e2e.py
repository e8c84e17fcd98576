"""A job whose browser went away and that no other session watches is cancelled after the grace period.

Its own server: the grace is 2 s here (60 s by default), which would cancel the other modules' jobs too.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import wait_for_app_run
from tests.e2e.editor_moves import open_author, start_endless_scoring


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"SKYNET_JOB_ORPHAN_S": "2"}


def test_a_job_nobody_watches_is_cancelled(page: Page, server: str) -> None:
    first = page.context.new_page()
    start_endless_scoring(first, server)
    first.close()  # its session ends with it: nobody watches the job now
    page.wait_for_timeout(6_000)  # the grace period and a reaper pass
    open_author(page, server)
    wait_for_app_run(page)
    expect(page.get_by_test_id("stSidebar").get_by_text("Running jobs")).to_have_count(0)
