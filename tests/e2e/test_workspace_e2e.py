"""One workspace behind every page, in a real Chromium: nothing typed is lost to navigation or a second tab,
stale results say so, and any session sees and cancels running jobs."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.conftest import shot, wait_for_app_run
from tests.e2e.test_author_e2e import EDITOR, PASSES, open_author, type_metric, wait_for_editor_text

pytestmark = pytest.mark.e2e

A = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'metric A'}\n"
B = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'metric B'}\n"


def go_to(page: Page, title: str) -> None:
    page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True).click()
    wait_for_app_run(page)


def check_shows(page: Page, feedback: str) -> None:
    expect(page.get_by_text(PASSES)).to_be_visible(timeout=20_000)
    expect(page.get_by_test_id("stMain").get_by_text(feedback).first).to_be_attached()


@pytest.mark.parametrize("away", ["Data", "Reward trade-offs", "History"])
def test_the_editor_keeps_typed_text_after_visiting_another_page(page: Page, server: str, away: str):
    open_author(page, server)
    type_metric(page, A)
    check_shows(page, "metric A")
    type_metric(page, B)
    check_shows(page, "metric B")
    go_to(page, away)
    go_to(page, "Author")
    page.frame_locator(EDITOR).locator(".ace_content").wait_for()
    assert wait_for_editor_text(page, lambda text: text == B) == B
    # Typing one more character builds on B, not on the text of the editor's first load.
    page.frame_locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.insert_text("# more\n")
    wait_for_app_run(page, settle_ms=600)
    page.reload()
    open_author(page, server)
    assert wait_for_editor_text(page, lambda text: text.startswith(B)) == B + "# more\n"
    shot(page, f"workspace-after-visiting-{away.split()[0].lower()}")


def test_two_tabs_typing_keep_both_texts_and_say_so(page: Page, server: str):
    first = page
    second = page.context.new_page()
    open_author(first, server)
    open_author(second, server)
    type_metric(first, A)
    check_shows(first, "metric A")
    type_metric(second, B)
    check_shows(second, "metric B")
    first.reload()
    open_author(first, server)
    # The second tab's text is the draft; the first tab's text is a version, and the page says so.
    assert wait_for_editor_text(first, lambda text: text == B) == B
    expect(first.get_by_text("Two tabs edited metric.py at once")).to_be_visible()
    shot(first, "workspace-two-tabs-author")
    go_to(first, "History")
    first.get_by_test_id("stSelectbox").first.click()
    expect(first.get_by_role("option").filter(has_text="other tab's text").first).to_be_visible()
    shot(first, "workspace-two-tabs-history")
    second.close()
