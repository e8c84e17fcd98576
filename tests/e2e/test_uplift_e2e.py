""" "Does this feedback help?" in headless Chromium: a saved report (the feedback helps) reads whole, its charts drawn,
in English at 1400 px and in Chinese at 1000 px (screenshots to look at, asserted readable).

The report is seeded through the workspace (tests/uplift_saved.py); no model is set, so the panel plans nothing and
the module shares the worker's server. A run against scripted models, its figures, charts and the final
instruction's diff, is checked through AppTest (tests/app/test_app_uplift.py).
"""

from __future__ import annotations

from playwright.sync_api import Page, expect

from skynet_core.workspace import SETTING_LANGUAGE, Workspace
from tests.case_factory import with_weak_run
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import pick_language
from tests.uplift_saved import HELPS, saved_result


def open_panel(page: Page, url: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1000})
    page.goto(f"{url}/feedback")
    expect(page.get_by_role("heading", name="Feedback review")).to_be_visible(timeout=60_000)
    wait_for_app_run(page, timeout_ms=60_000)
    page.locator("summary").filter(has_text="Does this feedback help?").click()
    wait_for_app_run(page, timeout_ms=60_000)


def test_a_saved_report_reads_whole_in_english_and_in_chinese(page: Page, server: str, workspace: Workspace) -> None:
    """A saved report (the feedback helps): its value line, its verdict and the chart of each arm's final
    instruction, a screenshot at 1400 px in English, then, in the same session switched to Chinese (the sidebar's
    language picker: a rerun of the page instead of a second load), one at 1000 px."""
    with_weak_run(workspace)
    saved_result(workspace, HELPS)
    workspace.store.set(SETTING_LANGUAGE, "en")
    open_panel(page, server, WIDTHS[0])
    for language, width in (("en", WIDTHS[0]), ("zh_CN", WIDTHS[-1])):
        zh = language == "zh_CN"
        value = page.get_by_text("反馈价值" if zh else "Feedback value:", exact=False).first
        if zh:
            pick_language(page, "简体中文")
            if not value.is_visible():  # the panel, drawn again under its Chinese title, is closed
                page.locator("summary").filter(has_text="这个反馈有帮助吗").click()
                wait_for_app_run(page)
        expect(value).to_be_visible()
        page.get_by_text("反馈有帮助" if zh else "The feedback helps", exact=False).first.scroll_into_view_if_needed()
        chart = page.get_by_test_id("stPlotlyChart").filter(has_text="各实验组最终指令" if zh else "Validation score")
        expect(chart).to_have_count(1)
        for shown in at_widths(page, (width,)):
            chart.scroll_into_view_if_needed()
            assert_readable_picture(shot(page, f"uplift-{language}-{shown}"), shown)
