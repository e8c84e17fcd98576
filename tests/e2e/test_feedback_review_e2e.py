"""Feedback review in a real browser over a seeded run: "Reset to defaults" clears a field the browser held at an
invalid value, and the page at 1400 px and 900 px wide, in English and in Chinese (screenshots to look at)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skynet_core.datasets import load_example
from skynet_core.runs import RunKey, RunStore
from skynet_core.store import Store
from skynet_core.workspace import SETTING_LANGUAGE
from tests.e2e.conftest import ARTIFACTS, start_server, stop_server, wait_for_app_run
from tests.test_app_feedback import SOURCE, seeded_results

pytestmark = pytest.mark.e2e
playwright_api = pytest.importorskip("playwright.sync_api")
expect = playwright_api.expect

WAIT_MS = 60_000
MIN_WORDS = "Empty or very short: words (fewer is flagged)"


@pytest.fixture(scope="module")
def seeded_server(tmp_path_factory: pytest.TempPathFactory):
    data_dir = tmp_path_factory.mktemp("feedback-review")
    Store(data_dir).save_draft(SOURCE)
    data = load_example()
    RunStore(data_dir).save(RunKey.of(data, data.candidates[0], None, SOURCE), seeded_results(), metric_source=SOURCE)
    process, url = start_server(data_dir)
    yield data_dir, url
    stop_server(process)


def open_feedback(browser, url: str, width: int, heading: str = "Feedback review"):
    context = browser.new_context(viewport={"width": width, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    page.goto(f"{url}/feedback")
    expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page, timeout_ms=WAIT_MS)
    return context, page


def full_shot(page, name: str, width: int) -> Path:
    """The whole page: Streamlit scrolls inside its main block, so grow the viewport to fit it first."""
    ARTIFACTS.mkdir(exist_ok=True)
    height = page.evaluate(
        "Math.max(...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stAppViewContainer]')]"
        ".map(element => element.scrollHeight))"
    )
    page.set_viewport_size({"width": width, "height": max(1000, int(height) + 40)})
    wait_for_app_run(page, timeout_ms=WAIT_MS)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


def test_reset_to_defaults_clears_an_invalid_value_the_browser_holds(browser, seeded_server) -> None:
    data_dir, url = seeded_server
    Store(data_dir).set(SETTING_LANGUAGE, "en")
    context, page = open_feedback(browser, url, 1400)
    page.locator("summary").filter(has_text="Thresholds").click()
    field = page.get_by_role("spinbutton", name=MIN_WORDS)
    expect(field).to_have_value("3")
    field.fill("-5")
    field.press("Enter")
    wait_for_app_run(page, timeout_ms=WAIT_MS)
    page.get_by_role("button", name="Reset to defaults").click()
    wait_for_app_run(page, timeout_ms=WAIT_MS)
    expect(page.get_by_role("spinbutton", name=MIN_WORDS)).to_have_value("3", timeout=WAIT_MS)
    context.close()


@pytest.mark.parametrize("language", ["en", "zh_CN"])
@pytest.mark.parametrize("width", [1400, 900])
def test_screenshots(browser, seeded_server, language: str, width: int) -> None:
    data_dir, url = seeded_server
    Store(data_dir).set(SETTING_LANGUAGE, language)
    heading = "Feedback review" if language == "en" else "反馈审查"
    context, page = open_feedback(browser, url, width, heading)
    page.locator("summary").filter(has_text="Thresholds" if language == "en" else "阈值").click()
    wait_for_app_run(page, timeout_ms=WAIT_MS)
    path = full_shot(page, f"feedback-review-{language}-{width}", width)
    assert path.exists()
    context.close()
