"""The contract check's sampled cases can be read whole (issue 23 item 3): every sampled case's score, named scores
and whole feedback are text in the page, wrapped, inside the window, in a monospace font, at 1400 px and at 1000 px.

A check on screen drawn again in the language just picked is checked through AppTest
(tests/app/test_app_author.py::test_a_check_on_screen_is_drawn_again_in_the_language_picked_in_the_sidebar)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobSlot
from tests.e2e.browser import LITERAL, WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import PASSES, open_author

REWARD = EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8")


def expected_sample(workspace: Workspace) -> list[tuple[str, float, dict[str, float], str]]:
    """The sampled cases as the workspace scores them: id, score, named scores, feedback."""
    job = workspace.jobs.check(JobSlot(), workspace.drafts.current().metric)
    assert job.wait(60) and job.result is not None
    return [(case.id, case.score or 0.0, case.scores, case.feedback) for case in job.result.cases]


def test_every_sampled_case_reads_whole_as_text_inside_the_window_at_two_widths(
    page: Page, server: str, workspace: Workspace
) -> None:
    """The reward example (several lines of feedback per case): every sampled case's id, score, named scores and
    whole feedback are text (no canvas), wrapped, inside the window, in a monospace font, at 1400 and at 1000 px
    (check-samples-*)."""
    workspace.drafts.replace(REWARD, "the test")
    expected = expected_sample(workspace)
    assert any("\n" in feedback for *_rest, feedback in expected)  # reward()'s lines: several per case
    page.set_viewport_size({"width": WIDTHS[0], "height": 1400})
    open_author(page, server)
    expect(page.get_by_text(PASSES)).to_be_visible()
    wait_for_app_run(page)
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
