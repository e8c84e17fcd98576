"""Try one reflection step in headless Chromium, on the bundled example, against the stub model server."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import shot, start_server, stop_server
from tests.engine_stub import HINT, IMPROVED, stub_server

pytestmark = pytest.mark.e2e
pytest.importorskip("gepa", reason="gepa==0.1.4 is a test requirement")


@pytest.fixture(scope="module")
def app(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, object]]:
    with stub_server() as stub:
        process, url = start_server(
            tmp_path_factory.mktemp("reflection"),
            script="tests/e2e/apps/reflection_app.py",
            env={"REFLECTION_STUB_URL": stub.url},
        )
        try:
            yield url, stub
        finally:
            stop_server(process)


def test_reflection_step_shows_the_prompt_without_a_model_then_a_proposal_and_diff(app, page: Page) -> None:
    url, stub = app
    page.goto(url)
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
