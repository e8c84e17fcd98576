"""Feedback review in a real browser over a seeded run: "Reset to defaults" clears a field the browser held at an
invalid value; "Download for GEPA" downloads the folder for the engine (the metric, the cases, a runnable script);
the page reads whole in English at 1400 px and in Chinese at 1000 px (screenshots to look at); and in 简体中文 at
1000 px, every column header of the rules table reads on one line (a CJK header may break between any two
characters: "已标记" stood one character a line)."""

from __future__ import annotations

import zipfile

import pytest
from playwright.sync_api import Page, expect

from skynet_core.workspace import Workspace
from tests.case_factory import with_weak_run
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import pick_language

MIN_WORDS = "Empty or very short: words (fewer is flagged)"

# The lines a cell's text takes: the distinct tops of its text's line boxes.
LINES = """el => {
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    const tops = new Set();
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(node);
        for (const rect of range.getClientRects()) if (rect.width > 0) tops.add(Math.round(rect.top));
    }
    return tops.size;
}"""


@pytest.fixture
def seeded(workspace: Workspace) -> Workspace:
    """The wrong metric as the draft, and its run of the example: every third case's feedback is "Wrong."."""
    with_weak_run(workspace)
    return workspace


def test_reset_clears_an_invalid_value_the_gepa_download_holds_the_folder_and_the_page_reads_whole(
    page: Page, server: str, seeded: Workspace
) -> None:
    """One session on the seeded run (a page load of Feedback review costs seconds of CPU), in this order:

    1. At 1400 px in English, the Thresholds open: "Reset to defaults" clears a value the browser held at an
       invalid -5 (the field reads its default, 3, again). In the reflection step's panel, "Download for GEPA"
       downloads skynet-gepa.zip, zipped when clicked: run_gepa.py, the metric and the cases.
    2. The page, its Thresholds open, reads whole at 1400 px (screenshot feedback-review-en-1400).
    3. 简体中文 picked in the sidebar, the window narrowed to 1000 px: the page is drawn again in Chinese and, its
       Thresholds (阈值) opened, reads whole (screenshot feedback-review-zh_CN-1000).
    4. At 1000 px in 简体中文, every column header of the rules table reads on one line (feedback-rules-zh_CN-1000).
    """
    # 1. Reset to defaults, and the download for GEPA.
    page.set_viewport_size({"width": WIDTHS[0], "height": 1000})
    page.goto(f"{server}/feedback")
    expect(page.get_by_role("heading", name="Feedback review")).to_be_visible(timeout=60_000)
    wait_for_app_run(page)
    page.locator("summary").filter(has_text="Thresholds").click()
    field = page.get_by_role("spinbutton", name=MIN_WORDS)
    expect(field).to_have_value("3")
    field.fill("-5")
    field.press("Enter")
    wait_for_app_run(page)
    page.get_by_role("button", name="Reset to defaults").click()
    wait_for_app_run(page)
    expect(page.get_by_role("spinbutton", name=MIN_WORDS)).to_have_value("3")
    reflection = page.locator("summary").filter(has_text="Try one reflection step")
    reflection.click()
    with page.expect_download() as download:
        page.get_by_role("button", name="Download for GEPA").click()
    assert download.value.suggested_filename == "skynet-gepa.zip"
    names = set(zipfile.ZipFile(download.value.path()).namelist())
    assert {"skynet-gepa/run_gepa.py", "skynet-gepa/metric/metric.py", "skynet-gepa/cases.jsonl"} <= names, names
    reflection.click()  # closed again: the pictures below are of the page as it opens
    wait_for_app_run(page)

    # 2. In English at 1400 px.
    assert_readable_picture(shot(page, f"feedback-review-en-{WIDTHS[0]}", whole=True), WIDTHS[0])

    # 3. In Chinese at 1000 px.
    pick_language(page, "简体中文")
    expect(page.get_by_role("heading", name="反馈审查")).to_be_visible(timeout=60_000)
    (width,) = at_widths(page, WIDTHS[1:])  # the window narrowed, the app settled
    thresholds = page.locator("summary").filter(has_text="阈值")
    thresholds.click()  # drawn again under its Chinese label, closed
    wait_for_app_run(page)
    expect(page.locator("details").filter(has=thresholds)).to_have_attribute("open", "")
    assert_readable_picture(shot(page, f"feedback-review-zh_CN-{width}", whole=True), width)

    # 4. The rules table's headers, in Chinese at 1000 px.
    table = page.get_by_test_id("stTable").filter(has_text="标记什么")
    expect(table).to_be_visible()
    headers = table.locator("thead th")
    texts = [text.strip() for text in headers.all_inner_texts()]
    assert "已标记" in texts, texts
    lines = {text: headers.nth(index).evaluate(LINES) for index, text in enumerate(texts) if text}
    assert all(count == 1 for count in lines.values()), lines
    table.scroll_into_view_if_needed()
    shot(page, "feedback-rules-zh_CN-1000")
