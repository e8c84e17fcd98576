"""The Author page in headless Chromium, for what only a browser shows: the code editor's gutter mark, Ctrl+S and
completion in the editor, a click on the table of every case, and the page's look at two widths in two languages
(seeded runs, each picture checked by ``assert_readable_picture``; see browser.ARTIFACTS).

The page's messages and the rest of its behaviour are checked through AppTest (tests/app/test_app_author.py)."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect

from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.workspace import Workspace
from tests.e2e.browser import WIDTHS, assert_readable_picture, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import EDITOR, PASSES, open_author, pick_language, type_metric

SYNTAX_ERROR = (
    "import json\n\ndef score(input, output, expected=None):\n    x = [1,\n    return 1.0, {'feedback': 'x'}\n"
)
FIXED = (
    "import json\n\ndef score(input, output, expected=None):\n    x = [1]\n"
    "    return 0.5, {'feedback': 'Half marks: the label is close.', 'scores': {'tone': 0.25}}\n"
)
RAISES = "def score(input, output, expected=None):\n    raise ValueError('no label here: ' + 'x' * 200)\n"


def test_the_editor_marks_the_failing_line_saves_with_ctrl_s_once_and_completes_python_3_names(page: Page, server: str):
    """One page load for the editor's own behaviour, in turn:

    - a syntax error marks its line in the gutter (line 4), and the mark goes once the text is fixed;
    - Ctrl+S in the editor saves a named version, and a second Ctrl+S of the same text saves none;
    - completion offers Python 3's names (isinstance, not raw_input), and Enter makes a new line, not the
      suggestion.
    """
    open_author(page, server)
    type_metric(page, SYNTAX_ERROR)
    marked = page.frame_locator(EDITOR).locator(".ace_gutter-cell.ace_error")
    expect(marked).to_have_count(1)
    expect(marked).to_have_text("4")
    type_metric(page, FIXED)
    expect(page.get_by_text(PASSES)).to_be_visible()
    expect(marked).to_have_count(0)
    wait_for_app_run(page)

    # Ctrl+S saves a named version, once.
    page.frame_locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+S")
    expect(page.get_by_text(re.compile(r"Saved version #\d+"))).to_be_visible()
    wait_for_app_run(page)
    page.frame_locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+S")
    expect(page.get_by_text(re.compile(r"Nothing new to save: the draft is already version #\d+"))).to_be_visible()
    wait_for_app_run(page)

    # Completion offers Python 3's names; Enter starts a new line.
    type_metric(page, "def score(input, output, expected=None):\n    x = 1\n")
    frame = page.frame_locator(EDITOR)
    page.keyboard.press("Control+End")
    page.keyboard.type("    isinst", delay=60)
    popup = frame.locator(".ace_autocomplete")
    expect(popup).to_be_visible()
    expect(popup).to_contain_text("isinstance")
    page.keyboard.press("Enter")  # a new line, not the suggestion
    page.keyboard.type("    raw_in", delay=60)
    page.wait_for_timeout(600)
    assert "raw_input" not in (popup.inner_text() if popup.is_visible() else "")
    text = frame.locator("#REACT_ACE_EDITOR").evaluate("el => el.env.editor.getValue()")
    assert "    isinst\n" in text and "isinstance" not in text


def keep_run(workspace: Workspace, metric: str, passes: bool) -> None:
    """A finished "Score all" of ``metric`` on every case in use, kept as the page's own run keeps it (what scoring
    72 cases would give, without scoring them): each case half marks with a named score, or each an error."""
    in_use = workspace.data.in_use()
    results = [
        CaseResult(
            case.id,
            case.split,
            score=0.5,
            scores={"tone": 0.25},
            feedback="Half marks: the label is close.",
            candidate=case.candidate,
        )
        if passes
        else CaseResult(
            case.id,
            case.split,
            CaseStatus.ERROR,
            error="ValueError: no label here: " + "x" * 200,
            line=2,
            candidate=case.candidate,
        )
        for case in in_use.cases
    ]
    workspace.runs.keep(MetricSource.of(metric), results, workspace.settings.provenance(metric), list(in_use.cases))


def test_the_page_reads_at_two_widths_in_two_languages_failing_and_passing(
    page: Page, server: str, workspace: Workspace
):
    """The page with a kept run of every case, failing then passing, in English at 1400 px and in Chinese (picked
    in the sidebar) at 1000 px: each picture inside the window with text at its top and below. A click on the
    table of every case (a canvas grid) opens that case."""
    workspace.drafts.replace(RAISES, "the test")
    keep_run(workspace, RAISES, passes=False)
    page.set_viewport_size({"width": WIDTHS[0], "height": 1400})
    open_author(page, server)
    failing = page.get_by_test_id("stAlert").filter(has_text=re.compile("breaks the contract|违反契约"))
    passing = page.get_by_text(re.compile("^(The metric meets the contract|指标符合契约)"))
    expect(failing.first).to_be_visible()
    expect(page.get_by_text("No ok case to plot")).to_be_visible()
    wait_for_app_run(page)
    assert_readable_picture(shot(page, f"20-author-error-{WIDTHS[0]}-en"), WIDTHS[0])

    keep_run(workspace, FIXED, passes=True)  # kept before the text is typed: the page shows it with its check
    type_metric(page, FIXED)
    expect(passing.first).to_be_visible()
    caption = page.get_by_text(re.compile(r"Showing 72 of 72 scored cases"))
    expect(caption).to_be_visible()
    wait_for_app_run(page)
    assert_readable_picture(shot(page, f"21-author-passes-{WIDTHS[0]}-en"), WIDTHS[0])
    # The first data row's selection cell: left edge of the grid, below the header row.
    grid = page.get_by_test_id("stDataFrame").filter(has_text="duration").last
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 17)
    expect(page.get_by_text(re.compile(r"^Case .+ · (train|val|test) · ok$"))).to_be_visible()
    expect(page.get_by_text("Side information", exact=True)).to_be_visible()

    pick_language(page, "简体中文")
    expect(page.get_by_text("契约检查").first).to_be_visible()
    for width in at_widths(page, WIDTHS[1:]):
        page.get_by_test_id("stMain").evaluate("el => el.scrollTo(0, 0)")
        expect(passing.first).to_be_visible()
        assert_readable_picture(shot(page, f"22-author-passes-{width}-zh_CN"), width)
        keep_run(workspace, RAISES, passes=False)
        type_metric(page, RAISES)
        expect(failing.first).to_be_visible()
        expect(page.get_by_text("没有可绘制的成功用例")).to_be_visible()
        wait_for_app_run(page)
        assert_readable_picture(shot(page, f"23-author-error-{width}-zh_CN"), width)
