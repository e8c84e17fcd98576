"""The contract check's sampled cases can be read whole (issue 23 item 3): every sampled case's score, named scores
and whole feedback are text in the page, wrapped, inside the window, at 1400 px and at 1000 px; and a check on
screen is drawn again in the language just picked (issue 23, Chinese left in English)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobSlot
from tests.e2e.browser import LITERAL, WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import PASSES, open_author, pick_language

REWARD = EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8")


def expected_sample(workspace: Workspace) -> list[tuple[str, float, dict[str, float], str]]:
    """The sampled cases as the workspace scores them: id, score, named scores, feedback."""
    job = workspace.jobs.check(JobSlot(), workspace.drafts.current().metric)
    assert job.wait(60) and job.result is not None
    return [(case.id, case.score or 0.0, case.scores, case.feedback) for case in job.result.cases]


def test_every_sampled_case_reads_whole_as_text_and_the_check_is_drawn_again_in_the_language_picked(
    page: Page, server: str, workspace: Workspace
) -> None:
    """One session on the reward example (a page load of Author costs seconds of CPU), in this order:

    1. Every sampled case's id, score, named scores and whole feedback are text (no canvas), wrapped, inside the
       window, in a monospace font, at 1400 and at 1000 px (check-samples-*).
    2. 简体中文 picked in the sidebar: the check on screen is drawn again in it (no English stage left), and the
       metric uploader speaks Chinese (check-redrawn-in-chinese, at the default window size).
    """
    workspace.drafts.replace(REWARD, "the test")
    expected = expected_sample(workspace)
    assert any("\n" in feedback for *_rest, feedback in expected)  # reward()'s lines: several per case
    page.set_viewport_size({"width": WIDTHS[0], "height": 1400})
    open_author(page, server)
    expect(page.get_by_text(PASSES)).to_be_visible()
    wait_for_app_run(page)
    # 1. Every sampled case reads whole as text, at both widths.
    samples = page.locator(".st-key-author-samples")
    expect(samples.locator("canvas")).to_have_count(0)  # text, not a grid drawn on a canvas
    for width in at_widths(page):
        for index, (case_id, score, named, feedback) in enumerate(expected):
            card = page.locator(f".st-key-author-sample-{index}")
            card.scroll_into_view_if_needed()
            text = card.inner_text()
            assert case_id in text and f"score {score:.3f}" in text
            for name, value in named.items():
                assert f"score.{name} {value:.3f}" in text
            for line in feedback.splitlines():  # the whole feedback, literally
                assert line in text, (line, text)
            box = card.bounding_box()
            assert box is not None and box["x"] + box["width"] <= width  # inside the window, nothing off to the right
            literal = card.locator(LITERAL).first
            assert literal.evaluate("el => el.scrollWidth <= el.clientWidth + 1")  # wrapped: no sideways scrolling
            assert "monospace" in literal.evaluate("el => getComputedStyle(el).fontFamily")  # set off as written
        card = page.locator(".st-key-author-sample-0")
        card.scroll_into_view_if_needed()
        assert_readable_picture(shot(page, f"check-samples-{width}"), width)

    # 2. The check on screen is drawn again in the language picked.
    page.set_viewport_size({"width": 1500, "height": 1500})  # the tests' default window
    wait_for_app_run(page)
    expect(page.get_by_text(PASSES)).to_be_visible()
    expect(page.get_by_text("metric.py compiles and imports")).to_be_visible()
    pick_language(page, "简体中文")
    expect(page.get_by_text("指标符合契约").first).to_be_visible()
    expect(page.get_by_text("metric.py compiles and imports")).to_have_count(0)
    main = page.get_by_test_id("stMain")
    page.get_by_text("上传 metric.py 或指标文件夹的 .zip", exact=False).first.click()
    uploader = main.get_by_test_id("stFileUploader").first
    expect(uploader).to_be_visible()
    expect(uploader.get_by_text("per file", exact=False)).to_be_hidden()
    expect(uploader.get_by_text("Upload", exact=True)).to_be_hidden()
    expect(main.get_by_text("每个文件最大", exact=False).first).to_be_visible()
    shot(page, "check-redrawn-in-chinese")
