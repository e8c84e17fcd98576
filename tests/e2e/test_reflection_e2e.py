"""Try one reflection step in headless Chromium, on the bundled example, against the stub model server."""

from __future__ import annotations

import zipfile
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import shot
from tests.engine_stub import HINT, IMPROVED, stub_server

pytest.importorskip("gepa", reason="gepa==0.1.4 is a test requirement")


@pytest.fixture(scope="module")
def stub() -> Iterator[Any]:
    with stub_server() as server:
        yield server


@pytest.fixture(scope="module")
def server_script() -> str:
    return "tests/e2e/apps/reflection_app.py"


@pytest.fixture(scope="module")
def server_env(stub: Any) -> dict[str, str]:
    return {"REFLECTION_STUB_URL": stub.url}


def test_reflection_step_shows_the_prompt_without_a_model_then_a_proposal_and_diff(
    server: str, stub: Any, page: Page
) -> None:
    page.goto(server)
    step = page.get_by_role("button", name="Try one reflection step")
    expect(step).to_be_visible(timeout=60_000)  # the app scores the example's 72 cases first
    expect(page.get_by_role("textbox").first).to_contain_text("You triage customer support tickets")

    step.click()
    expect(page.get_by_text("No reflection model is configured")).to_be_visible()
    expect(page.get_by_text("I am optimizing a parameter in my system.", exact=False)).to_be_visible()
    expect(page.get_by_text("## Feedback", exact=False).first).to_be_visible()  # the metric's feedback, as GEPA puts it
    shot(page, "reflection-no-model")

    page.get_by_text("stub", exact=True).click()
    expect(page.get_by_text("Reflection model: openai/reflect", exact=False)).to_be_visible()
    step.click()
    # The server imports litellm for its first model call: slow on a busy machine.
    expect(page.get_by_text("Proposed text", exact=False)).to_be_visible(timeout=90_000)
    expect(page.get_by_text(HINT, exact=False).first).to_be_visible()
    expect(page.locator("code").filter(has_text=f"+{IMPROVED}")).to_have_count(1)  # the diff's added line
    expect(page.get_by_text("Diff against the current text")).to_be_visible()
    assert any("I am optimizing a parameter" in (request.user or "") for request in stub.requests)
    shot(page, "reflection-proposal")

    # The export is zipped when its button is clicked (not on every script run): the download is the folder.
    with page.expect_download() as download:
        page.get_by_role("button", name="Download for GEPA").click()
    assert download.value.suggested_filename == "skynet-gepa.zip"
    names = zipfile.ZipFile(download.value.path()).namelist()
    assert {"skynet-gepa/run_gepa.py", "skynet-gepa/metric/metric.py", "skynet-gepa/cases.jsonl"} <= set(names)
