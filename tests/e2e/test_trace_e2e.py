"""The llm() trace in a real browser: select a judged case in the per-case table and read its calls."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import WIDTHS, at_widths, shot, wait_for_app_run


@pytest.fixture(scope="module")
def server_script() -> str:
    return "tests/e2e/apps/trace_app.py"


def open_row(page: Page, url: str, row: int) -> None:
    page.set_viewport_size({"width": WIDTHS[0], "height": 1400})
    page.goto(url)
    wait_for_app_run(page, timeout_ms=90_000)
    # The per-case table, by its duration column's header in either language.
    grid = page.get_by_test_id("stDataFrame").filter(has_text=re.compile("duration|耗时"))
    expect(grid).to_be_visible(timeout=90_000)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 17 + 35 * row)  # the row's selection cell
    wait_for_app_run(page)


def test_the_row_detail_shows_a_failed_call(page: Page, server: str) -> None:
    open_row(page, server, 0)
    expect(page.get_by_text("Model calls (llm())")).to_be_visible()
    expect(page.get_by_text("InternalServerError", exact=True)).to_be_visible()
    expect(page.get_by_text("judge: 6 calls, 1 failed (InternalServerError 1)", exact=False)).to_be_visible()
    for width in at_widths(page):
        page.get_by_text("Model calls (llm())").scroll_into_view_if_needed()
        shot(page, f"trace-failed-{width}")


def test_the_row_detail_shows_a_clipped_answer(page: Page, server: str) -> None:
    open_row(page, server, 2)
    expect(page.get_by_text("Model calls (llm())")).to_be_visible()
    expect(page.get_by_text("Clipped: ", exact=False)).to_be_visible()
    for width in at_widths(page):
        page.get_by_text("Model calls (llm())").scroll_into_view_if_needed()
        shot(page, f"trace-clipped-{width}")


def test_the_row_detail_in_chinese(page: Page, server: str) -> None:
    open_row(page, server + "/?lang=zh_CN", 1)
    expect(page.get_by_text("模型调用（llm()）")).to_be_visible()
    expect(page.get_by_text("重试 1 次", exact=False)).to_be_visible()
    for width in at_widths(page):
        page.get_by_text("模型调用（llm()）").scroll_into_view_if_needed()
        shot(page, f"trace-zh-{width}")
