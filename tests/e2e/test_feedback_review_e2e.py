"""Feedback review in a real browser over a seeded run: "Reset to defaults" clears a field the browser held at an
invalid value, and the page at 1400 px and 1000 px wide, in English and in Chinese (screenshots to look at)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from skynet_core.workspace import SETTING_LANGUAGE, Workspace
from tests.case_factory import with_weak_run
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run

MIN_WORDS = "Empty or very short: words (fewer is flagged)"


@pytest.fixture
def seeded(workspace: Workspace) -> Workspace:
    """The wrong metric as the draft, and its run of the example: every third case's feedback is "Wrong."."""
    with_weak_run(workspace)
    return workspace


def open_feedback(page: Page, url: str, width: int, heading: str = "Feedback review") -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(f"{url}/feedback")
    expect(page.get_by_role("heading", name=heading)).to_be_visible(timeout=60_000)
    wait_for_app_run(page)


def test_reset_to_defaults_clears_an_invalid_value_the_browser_holds(page: Page, server: str, seeded) -> None:
    open_feedback(page, server, 1400)
    page.locator("summary").filter(has_text="Thresholds").click()
    field = page.get_by_role("spinbutton", name=MIN_WORDS)
    expect(field).to_have_value("3")
    field.fill("-5")
    field.press("Enter")
    wait_for_app_run(page)
    page.get_by_role("button", name="Reset to defaults").click()
    wait_for_app_run(page)
    expect(page.get_by_role("spinbutton", name=MIN_WORDS)).to_have_value("3")


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_the_page_reads_whole_at_two_widths_in_two_languages(
    page: Page, server: str, seeded: Workspace, language: str
) -> None:
    seeded.store.set(SETTING_LANGUAGE, language)
    open_feedback(page, server, WIDTHS[0], "Feedback review" if language == "en" else "反馈审查")
    page.locator("summary").filter(has_text="Thresholds" if language == "en" else "阈值").click()
    wait_for_app_run(page)
    for width in at_widths(page):
        assert_readable_picture(shot(page, f"feedback-review-{language}-{width}", whole=True), width)
