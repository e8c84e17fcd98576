"""Reward trade-offs in a real browser: the page with the example's candidates scored reads whole (its five plotly
charts drawn) in English at 1400 px, and a visitor whose browser asks for Chinese (``st.context.locale``, the
browser's own language) gets it in Chinese, read whole at 1000 px.

The scores are seeded in the test process (the page finds them saved, as after a reload). What the controls do is
checked through AppTest (tests/app/test_app_tradeoffs.py): a weight that changes the winner, the sliders, a click on
the map, A vs B, "Write to metric.py" and the Author page's editor fed the written spec; a real click on the map is
tests/e2e/test_first_metric_e2e.py's.
"""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobSlot
from tests.e2e.browser import WIDTHS, assert_readable_picture, shot, wait_for_app_run

REWARD_METRIC = EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8")


@pytest.fixture
def scored(workspace: Workspace) -> Workspace:
    """The example reward metric as the draft, its candidates scored and the scores saved."""
    workspace.drafts.replace(REWARD_METRIC, "the test")
    assert workspace.jobs.score_candidates(JobSlot(), workspace.drafts.current().metric).wait(300)
    return workspace


def open_tradeoffs(page: Page, url: str, width: int) -> Page:
    page.set_viewport_size({"width": width, "height": 1100})
    page.goto(f"{url}/tradeoffs")
    page.get_by_test_id("stMainBlockContainer").locator("h1").wait_for(timeout=60_000)
    # With saved scores the first run draws the whole analysis: on a loaded machine that takes a while.
    wait_for_app_run(page, timeout_ms=60_000)
    return page


@pytest.mark.timeout(600)
def test_the_scored_page_reads_whole_in_english_and_in_chinese_for_a_browser_that_asks_for_it(
    server: str, scored: Workspace, page: Page, browser: Any
) -> None:
    open_tradeoffs(page, server, WIDTHS[0])
    expect(page.get_by_test_id("stMetric").filter(has_text="Winner at these weights")).to_contain_text(
        "balanced", timeout=60_000
    )
    expect(page.get_by_text("where large-careful wins")).to_be_visible()
    expect(page.locator(".js-plotly-plot")).to_have_count(5, timeout=60_000)
    assert_readable_picture(shot(page, f"tradeoffs-{WIDTHS[0]}-en", whole=True), WIDTHS[0])

    # A new visitor whose browser asks for Chinese (its own context: the locale is the browser's).
    context = browser.new_context(viewport={"width": WIDTHS[-1], "height": 1100}, locale="zh-CN")
    try:
        chinese = open_tradeoffs(context.new_page(), server, WIDTHS[-1])
        expect(chinese.get_by_test_id("stMetric").filter(has_text="当前权重下的胜出者")).to_contain_text(
            "balanced", timeout=30_000
        )
        expect(chinese.get_by_text("A 与 B：两组权重并排比较")).to_be_visible()
        expect(chinese.locator(".js-plotly-plot")).to_have_count(5, timeout=60_000)
        wait_for_app_run(chinese, timeout_ms=60_000)
        assert_readable_picture(shot(chinese, f"tradeoffs-{WIDTHS[-1]}-zh", whole=True), WIDTHS[-1])
    finally:
        context.close()
