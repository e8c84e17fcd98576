"""Feedback review's table of rules in headless Chromium, in 简体中文 at 1000 px: every column header reads on one
line (a CJK header may break between any two characters: "已标记" stood one character a line)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from skynet_core.workspace import Workspace
from tests.case_factory import with_weak_run
from tests.e2e.browser import shot, wait_for_app_run

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


def test_the_rules_headers_read_on_one_line_at_1000_px_in_chinese(page: Page, server: str, workspace: Workspace):
    with_weak_run(workspace)
    workspace.settings.set_language("zh_CN")
    page.set_viewport_size({"width": 1000, "height": 1200})
    page.goto(f"{server}/feedback")
    table = page.get_by_test_id("stTable").filter(has_text="标记什么")
    expect(table).to_be_visible(timeout=60_000)
    wait_for_app_run(page)
    headers = table.locator("thead th")
    texts = [text.strip() for text in headers.all_inner_texts()]
    assert "已标记" in texts, texts
    lines = {text: headers.nth(index).evaluate(LINES) for index, text in enumerate(texts) if text}
    assert all(count == 1 for count in lines.values()), lines
    table.scroll_into_view_if_needed()
    shot(page, "feedback-rules-zh_CN-1000")
