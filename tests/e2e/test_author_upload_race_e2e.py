"""Each file uploaded on the Author page replaces the draft, even when its rerun meets the editor's polling
fragment (which asks every DRAFT_POLL_S whether another tab changed the draft).

Streamlit skipped the uploader's ``on_change`` when the two met: the file sat in the uploader, the draft kept its
old text and nothing was said (about 1 upload in 8 with the fragment polling every 0.15 s; in the full suite, one
browser test in a few runs). Here the fragment polls every 0.1 s, so that four uploads meet it."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from skynet_core.workspace import Workspace
from tests.e2e.browser import wait_for_app_run

UPLOADS = 4


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {"SKYNET_DRAFT_POLL_S": "0.1"}


def test_every_upload_replaces_the_draft_while_the_editor_polls(
    page: Page, server: str, workspace: Workspace, tmp_path: Path
) -> None:
    page.goto(server)
    expect(page.get_by_role("heading", name="Author metric.py", exact=True)).to_be_visible()
    wait_for_app_run(page)
    page.get_by_text("Upload metric.py or a .zip of the metric folder", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").first.locator('input[type="file"]')
    for n in range(UPLOADS):
        metric = tmp_path / f"upload{n}.py"
        metric.write_text(f"def score(input, output):\n    return 1.0, {{'feedback': 'upload {n}'}}\n")
        uploader.set_input_files(str(metric))
        expect(page.get_by_test_id("stAlert").filter(has_text=f"upload{n}.py")).to_be_visible()
        assert f"'upload {n}'" in workspace.drafts.current().metric.main
