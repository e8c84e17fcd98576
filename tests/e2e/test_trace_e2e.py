"""The llm() trace in a real browser: select a judged case in the per-case table and read its calls."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import WIDTHS, at_widths, shot, wait_for_app_run


@pytest.fixture(scope="module")
def server_script() -> str:
    return "tests/e2e/apps/trace_app.py"


def open_table(page: Page, url: str) -> None:
    page.set_viewport_size({"width": WIDTHS[0], "height": 1400})  # before the load, as a person's window is
    page.goto(url)
    wait_for_app_run(page, timeout_ms=90_000)


def select_row(page: Page, row: int) -> None:
    """Click the selection cell of the per-case table's ``row`` (the table found by its duration column's header in
    either language), with the window at its wide width."""
    if page.viewport_size["width"] != WIDTHS[0]:
        page.set_viewport_size({"width": WIDTHS[0], "height": 1400})
        wait_for_app_run(page)
    grid = page.get_by_test_id("stDataFrame").filter(has_text=re.compile("duration|耗时"))
    expect(grid).to_be_visible(timeout=90_000)
    wait_for_app_run(page)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 17 + 35 * row)  # the row's selection cell
    wait_for_app_run(page)


def shots(page: Page, heading: str, name: str) -> None:
    for width in at_widths(page):
        page.get_by_text(heading).scroll_into_view_if_needed()
        shot(page, f"trace-{name}-{width}")


def test_the_row_detail_shows_a_failed_call_then_a_clipped_answer_and_reads_in_chinese(page: Page, server: str) -> None:
    """One English visit selects two rows in turn (one page load for both): the first case's detail shows its failed
    call (InternalServerError, and the judge's line "6 calls, 1 failed"); the third case's, its clipped answer. A
    visit in Chinese (``?lang=zh_CN``) shows the second case's detail in Chinese, with its one retry. Screenshots of
    each at 1400 and 1000 px."""
    open_table(page, server)
    select_row(page, 0)
    expect(page.get_by_text("Model calls (llm())")).to_be_visible()
    expect(page.get_by_text("InternalServerError", exact=True)).to_be_visible()
    expect(page.get_by_text("judge: 6 calls, 1 failed (InternalServerError 1)", exact=False)).to_be_visible()
    shots(page, "Model calls (llm())", "failed")

    select_row(page, 2)
    expect(page.get_by_text("Clipped: ", exact=False)).to_be_visible()
    expect(page.get_by_text("InternalServerError", exact=True)).to_have_count(0)  # the first case's detail is gone
    expect(page.get_by_text("Model calls (llm())")).to_be_visible()
    shots(page, "Model calls (llm())", "clipped")

    open_table(page, server + "/?lang=zh_CN")
    select_row(page, 1)
    expect(page.get_by_text("模型调用（llm()）")).to_be_visible()
    expect(page.get_by_text("重试 1 次", exact=False)).to_be_visible()
    shots(page, "模型调用（llm()）", "zh")
