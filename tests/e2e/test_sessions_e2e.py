"""What the studio's server does with requests and sessions, on a server of this module's own, in this order (pytest
keeps a module's order):

1. A deep link as the server's very first request gets the whole app: the router with its sidebar and menu and the
   tab's title, not Streamlit's "Page not found" of its pages-folder mode (why: ui/__init__.py). The page, opened by
   its address, finds the server at once: serve.py's page tells Streamlit's front end where the server is, so it
   never asks the page's own address for the server's health.
2. The Author page's own address (/author: a bookmark, a typed address) opens it at the root, without "Page not
   found" over it. Each file uploaded there replaces the draft even when its rerun meets the editor's polling
   fragment, and says so beside the uploader, in the page's language (Chinese here, whose uploader speaks Chinese
   too). Streamlit skipped the uploader's ``on_change`` when the two met: the file sat in the uploader, the draft
   kept its old text and nothing was said (about 1 upload in 8 with the fragment polling every 0.15 s). Here the
   fragment polls every 0.1 s (``SKYNET_DRAFT_POLL_S``; 2 s by default), so that four uploads meet it.
3. A job whose browser went away and that no other session watches is cancelled after the grace period: 2 s here
   (``SKYNET_JOB_ORPHAN_S``; 60 s by default, which would cancel the other modules' jobs too).

Its own server: the short poll and grace would disturb the other modules' tests, and the deep link must be the first
request its server answers.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from skynet_core.workspace import Workspace
from tests.e2e.browser import AppServer, wait_for_app_run
from tests.e2e.editor_moves import LOOPS, click_until_shown
from tests.e2e.placement import alert, beside

WAIT_MS = 60_000
UPLOADS = 4
VISITED: list[str] = []  # the tests of this module that asked its server for a page, in the order they ran


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"SKYNET_DRAFT_POLL_S": "0.1", "SKYNET_JOB_ORPHAN_S": "2"}


@pytest.fixture(autouse=True)
def visit(request: pytest.FixtureRequest) -> Iterator[None]:
    yield
    VISITED.append(request.node.name)


def test_a_deep_link_as_the_first_request_gets_the_whole_app(page: Page, server: str) -> None:
    """The module's first test: its server has answered no page before this one."""
    assert not VISITED, f"the deep link must be its server's first request; {VISITED} asked for a page before"
    asked: list[str] = []

    def listen(request: Any) -> None:
        asked.append(request.url)

    page.on("request", listen)
    try:
        page.goto(f"{server}/data")
        expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=WAIT_MS)
    finally:
        page.remove_listener("request", listen)  # the tab is reused by the next test
    assert f"{server}/_stcore/health" in asked
    assert not [url for url in asked if "/data/_stcore/" in url], asked
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("Isolation")).to_be_visible()
    expect(sidebar.get_by_role("link", name="Reward trade-offs")).to_be_visible()
    assert page.url.rstrip("/").endswith("/data")
    expect(page).to_have_title("Skynet Metric Studio")
    # Nothing over the page (Streamlit's "Page not found" of its pages-folder mode), and the page answers.
    expect(page.get_by_role("dialog")).to_have_count(0)
    page.get_by_text("A file", exact=True).click()
    expect(page.get_by_role("button", name="Open this file")).to_be_visible()


def test_every_upload_replaces_the_draft_while_the_editor_polls_and_says_so_beside_the_uploader(
    page: Page, server: str, workspace: Workspace, tmp_path: Path
) -> None:
    """In Chinese, opened by its own address /author: it is shown at the root, and no "Page not found" comes over it
    (it came with the page's first script run); the metric uploader shows none of Streamlit's English words ("Upload",
    "per file") and says its limit in Chinese; each of four uploads replaces the draft and says "已载入 …" (Loaded …),
    the first beside the uploader, in the window."""
    workspace.settings.set_language("zh_CN")
    page.goto(f"{server}/author")
    expect(page.get_by_role("heading", name="编写 metric.py", exact=True)).to_be_visible(timeout=WAIT_MS)
    assert page.url == f"{server}/"
    wait_for_app_run(page)
    expect(page.get_by_text("Page not found")).to_have_count(0)  # Streamlit's own words, in English
    main = page.get_by_test_id("stMain")
    main.get_by_text("上传 metric.py 或指标文件夹的 .zip", exact=True).click()
    field = main.get_by_test_id("stFileUploader").first
    expect(field).to_be_visible()
    expect(field.get_by_text("per file", exact=False)).to_be_hidden()
    expect(field.get_by_text("Upload", exact=True)).to_be_hidden()
    expect(main.get_by_text("每个文件最大", exact=False).first).to_be_visible()
    for n in range(UPLOADS):
        metric = tmp_path / f"upload{n}.py"
        metric.write_text(f"def score(input, output):\n    return 1.0, {{'feedback': 'upload {n}'}}\n")
        field.locator('input[type="file"]').set_input_files(str(metric))
        loaded = alert(page, f"已载入 upload{n}.py：指标文件夹有 1 个文件。")
        expect(loaded).to_be_visible(timeout=WAIT_MS)
        if n == 0:
            beside(loaded, field, page)
        assert f"'upload {n}'" in workspace.drafts.current().metric.main
    expect(page.get_by_text("Page not found")).to_have_count(0)  # nor later


def test_a_job_nobody_watches_is_cancelled(
    page: Page, server: str, workspace: Workspace, app_server: AppServer
) -> None:
    """A Score all of a metric that never returns (each call stopped after 5 s), started on Feedback review (a page
    without the editor, whose check of the endless draft this test does not need). The tab then leaves the studio as
    a closed tab does (its websocket closes, its session ends; the tab is the worker's reused one, where a new tab
    costs Chromium seconds of CPU). Once the server's log says it cancelled the job, a new session opens the Runs
    page, whose sidebar lists every session's running jobs: none."""
    workspace.drafts.replace(LOOPS, "the test")
    workspace.settings.set_timeout_s(5)
    page.goto(f"{server}/feedback")
    button = page.get_by_role("button", name="Score all cases now")
    expect(button).to_be_enabled(timeout=WAIT_MS)
    wait_for_app_run(page)
    click_until_shown(button, button.and_(page.locator("button:disabled")))  # the job runs: its button disabled
    page.goto("about:blank")  # its session ends: nobody watches the job now
    # A page of the studio opened before the job is cancelled would watch it again and keep it: the test waits for
    # the server's log to say it cancelled the job (after the grace period of 2 s, at a reaper's pass).
    log, deadline = app_server.data_dir / "server.log", time.monotonic() + WAIT_MS / 1000
    while "): no session has watched it for 2 s." not in log.read_text(encoding="utf-8", errors="replace"):
        assert time.monotonic() < deadline, f"the server did not cancel the job; its log: {log}"
        time.sleep(0.2)
    page.goto(f"{server}/runs")
    expect(page.get_by_role("heading", name="Runs", exact=True)).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page)
    expect(page.get_by_test_id("stSidebarNav")).to_be_visible()  # the sidebar is drawn
    expect(page.get_by_test_id("stSidebar").get_by_text("Running jobs")).to_have_count(0)
