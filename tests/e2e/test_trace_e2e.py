"""The llm() trace in a real browser: a click on a judged case's selection cell in the per-case table (a canvas grid)
opens its calls, read at 1400 and 1000 px.

The app (tests/e2e/apps/trace_app.py) draws six judged cases whose calls it builds itself. What the detail says for
each kind of call (answered after a retry, clipped, failed), a row chosen after another, and the detail in Chinese
are checked through AppTest (tests/app/test_app_trace.py).
"""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import WIDTHS, at_widths, shot, wait_for_app_run


@pytest.fixture(scope="module")
def server_script() -> str:
    return "tests/e2e/apps/trace_app.py"


def test_a_click_on_a_row_shows_its_failed_call(page: Page, server: str) -> None:
    """The first case's detail shows its failed call (InternalServerError, and the judge's line "6 calls, 1
    failed"); screenshots at 1400 and 1000 px."""
    page.set_viewport_size({"width": WIDTHS[0], "height": 1400})  # before the load, as a person's window is
    page.goto(server)
    wait_for_app_run(page, timeout_ms=90_000)
    grid = page.get_by_test_id("stDataFrame").filter(has_text="duration")
    expect(grid).to_be_visible(timeout=90_000)
    wait_for_app_run(page)
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 17)  # the first row's selection cell
    wait_for_app_run(page)
    expect(page.get_by_text("Model calls (llm())")).to_be_visible()
    expect(page.get_by_text("InternalServerError", exact=True)).to_be_visible()
    expect(page.get_by_text("judge: 6 calls, 1 failed (InternalServerError 1)", exact=False)).to_be_visible()
    for width in at_widths(page):
        page.get_by_text("Model calls (llm())").scroll_into_view_if_needed()
        shot(page, f"trace-failed-{width}")
