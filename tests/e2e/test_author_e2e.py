"""The Author page in headless Chromium: a person's paths, one screenshot per state (see browser.ARTIFACTS)."""

from __future__ import annotations

import re
import time

import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import LITERAL, WIDTHS, at_widths, shot, wait_for_app_run
from tests.e2e.editor_moves import (
    EDITOR,
    PASSES,
    editor_text,
    load_example,
    open_author,
    pick_language,
    start_job,
    type_metric,
    wait_for_editor_text,
)

SYNTAX_ERROR = (
    "import json\n\ndef score(input, output, expected=None):\n    x = [1,\n    return 1.0, {'feedback': 'x'}\n"
)
FIXED = (
    "import json\n\ndef score(input, output, expected=None):\n    x = [1]\n"
    "    return 0.5, {'feedback': 'Half marks: the label is close.', 'scores': {'tone': 0.25}}\n"
)
LOOPS = "def score(input, output, expected=None):\n    while True:\n        pass\n"


def sampled_table(page: Page):
    """The contract check's sampled cases, each whole as text, one below the other."""
    return page.locator(".st-key-author-samples")


def check_panel(page: Page):
    return page.get_by_test_id("stMain")


def test_app_opens_on_the_example_and_it_passes(page: Page, server: str):
    open_author(page, server)
    expect(page.get_by_text(PASSES)).to_be_visible(timeout=20_000)
    expect(page).to_have_title("Skynet Metric Studio")
    expect(page.get_by_test_id("stSidebar")).to_contain_text("Support tickets (example)")
    expect(page.get_by_test_id("stSidebar")).to_contain_text(re.compile(r"full|reduced"))
    assert "def score(input, output, expected=None):" in editor_text(page)
    shot(page, "01-example-passes")


def test_syntax_error_marks_the_line_and_a_fix_passes_with_new_feedback(page: Page, server: str):
    open_author(page, server)
    type_metric(page, SYNTAX_ERROR)
    failure = page.get_by_text("The metric breaks the contract at load (metric.py line 4).")
    expect(failure).to_be_visible()
    expect(page.get_by_text(re.compile(r"load · failed · metric\.py line 4"))).to_be_visible()
    marked = page.frame_locator(EDITOR).locator(".ace_gutter-cell.ace_error")
    expect(marked).to_have_count(1)
    expect(marked).to_have_text("4")
    shot(page, "02-syntax-error-line-4")

    type_metric(page, FIXED)
    expect(page.get_by_text(PASSES)).to_be_visible()
    expect(page.frame_locator(EDITOR).locator(".ace_gutter-cell.ace_error")).to_have_count(0)
    table = sampled_table(page)
    expect(table).to_contain_text("Half marks: the label is close.")
    expect(table).to_contain_text("score.tone")
    shot(page, "03-fixed-new-feedback-and-named-score")


def test_reload_keeps_the_text(page: Page, server: str):
    open_author(page, server)
    marker = f"# kept across reloads {time.time():.0f}\n"
    type_metric(page, marker + FIXED)
    expect(page.get_by_text(PASSES)).to_be_visible()
    wait_for_app_run(page)
    page.reload()
    open_author(page, server)
    expect(page.get_by_text(PASSES)).to_be_visible(timeout=20_000)
    assert editor_text(page) == marker + FIXED
    shot(page, "04-after-reload")


def test_score_all_cases_fills_the_table(page: Page, server: str):
    open_author(page, server)
    assert load_example(page, "Exact match").startswith('"""Exact match')
    expect(page.get_by_text(PASSES)).to_be_visible()
    caption = page.get_by_text(re.compile(r"Showing 72 of 72 scored cases"))
    start_job(page, page.get_by_role("button", name="Score all cases"), caption)
    expect(page.get_by_test_id("stMetric").first).to_contain_text("Mean score (ok cases)")
    wait_for_app_run(page)
    # The last: while the run ended, the list of cases scored so far may still have stood above the table.
    grid = page.get_by_test_id("stDataFrame").filter(has_text="duration").last
    grid.scroll_into_view_if_needed()
    box = grid.bounding_box()
    # The first data row's selection cell: left edge of the grid, below the header row.
    page.mouse.click(box["x"] + 12, box["y"] + 35 + 17)
    expect(page.get_by_text(re.compile(r"^Case .+ · (train|val|test) · ok$"))).to_be_visible()
    expect(page.get_by_text("Side information", exact=True)).to_be_visible()
    grid.scroll_into_view_if_needed()
    shot(page, "05-score-all-table")
    page.get_by_text("Printed by metric.py").scroll_into_view_if_needed()
    shot(page, "06-selected-case-details")


def test_upload_refuses_non_utf8_and_loads_a_good_file(page: Page, server: str, tmp_path):
    open_author(page, server)
    page.get_by_text("Upload metric.py or a .zip of the metric folder", exact=True).click()
    bad = tmp_path / "latin1.py"
    bad.write_bytes("# caf\xe9\ndef score(input, output):\n    return 1.0, {'feedback': 'ok'}\n".encode("latin-1"))
    page.locator("input[type=file]").set_input_files(str(bad))
    expect(page.get_by_text(re.compile(r"latin1\.py is not UTF-8 text .* save it as UTF-8"))).to_be_visible()
    good = tmp_path / "uploaded.py"
    good.write_text("def score(input, output):\n    return 1.0, {'feedback': 'from the uploaded file'}\n")
    page.locator("input[type=file]").set_input_files(str(good))
    expect(sampled_table(page)).to_contain_text("from the uploaded file")
    wait_for_editor_text(page, lambda text: "from the uploaded file" in text)
    expect(page.get_by_text(re.compile(r"is not UTF-8 text"))).to_have_count(0)
    assert "from the uploaded file" in editor_text(page)
    shot(page, "07-uploaded-metric")


def test_reward_example_shows_its_weights_and_parts(page: Page, server: str):
    open_author(page, server)
    assert "REWARD_SPEC" in load_example(page, "Accuracy, speed and cost")
    expect(page.get_by_text(PASSES)).to_be_visible()
    expect(page.get_by_text(re.compile(r"reward spec · passed"))).to_be_visible()
    expect(page.get_by_text("Normalised weights (they sum to 1)")).to_be_visible()
    table = sampled_table(page)
    for part in ("score.accuracy", "score.speed", "score.cost"):
        expect(table).to_contain_text(part)
    weights = page.locator(".st-key-author-spec-weights")
    for share in ("accuracy: 70%", "speed: 20%", "cost: 10%"):  # as text, each with its bar
        expect(weights.get_by_text(share)).to_be_visible()
    weights.scroll_into_view_if_needed()
    shot(page, "08-reward-example")


def test_an_endless_loop_times_out_while_the_page_keeps_answering(page: Page, server: str):
    open_author(page, server)
    timeout = page.get_by_role("spinbutton", name="Timeout per call (s)")
    # 5 s: the "still running" note shows from the first second until the call is stopped, a window wide
    # enough to be seen on a loaded machine (with 2 s it was about one second and was sometimes missed).
    timeout.fill("5")
    timeout.press("Enter")
    expect(timeout).to_have_value("5")
    wait_for_app_run(page)
    type_metric(page, LOOPS)
    expect(page.get_by_text(re.compile(r"Checking… \d of 3 cases done"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"still running; each call is stopped after 5 s"))).to_be_visible()
    # The page answers while metric.py spins: the upload panel opens at once.
    page.get_by_text("Upload metric.py or a .zip of the metric folder", exact=True).click()
    expect(page.get_by_text("A UTF-8 Python file")).to_be_visible(timeout=2_000)
    shot(page, "09-endless-loop-running")
    expect(page.get_by_text("The metric breaks the contract at metric return value")).to_be_visible(timeout=15_000)
    expect(page.get_by_text(re.compile(r"metric return value · failed"))).to_be_visible()
    # The stage's message is plain text under it. It names the line the loop was found at when the runner
    # could sample it in time (not always, on a busy machine).
    timed_out = re.compile(r"did not finish within 5 s(, stuck at metric\.py line [23])?; it was stopped")
    expect(page.get_by_test_id("stText").filter(has_text=timed_out).first).to_be_visible()
    expect(sampled_table(page)).to_contain_text("timed out")
    shot(page, "10-endless-loop-timed-out")


def test_ctrl_s_in_the_editor_saves_a_named_version_once(page: Page, server: str):
    open_author(page, server)
    marker = f"# saved with the keyboard {time.time():.0f}\n"
    type_metric(page, marker + FIXED)
    expect(page.get_by_text(PASSES)).to_be_visible()
    wait_for_app_run(page)
    page.frame_locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+S")
    expect(page.get_by_text(re.compile(r"Saved version #\d+"))).to_be_visible()
    wait_for_app_run(page)
    shot(page, "11-ctrl-s-saved")
    page.frame_locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+S")
    expect(page.get_by_text(re.compile(r"Nothing new to save: the draft is already version #\d+"))).to_be_visible()


def test_try_one_case_in_the_browser(page: Page, server: str):
    open_author(page, server)
    type_metric(page, FIXED)
    expect(page.get_by_text(PASSES)).to_be_visible()
    wait_for_app_run(page)
    page.get_by_text("Try one case: edit its input, output and expected").click()
    typed_input = page.get_by_label("Input (a JSON object)")
    typed_input.fill('{"question": ')
    typed_input.press("Control+Enter")  # a text area's value is sent on Ctrl+Enter or blur
    wait_for_app_run(page)
    page.get_by_role("button", name="Run this case").click()
    expect(page.get_by_text(re.compile(r"The input is not valid"))).to_be_visible()
    typed_input.fill('{"question": "where is my refund?"}')
    typed_input.press("Control+Enter")
    wait_for_app_run(page)
    page.get_by_role("button", name="Run this case").click()
    # The try-out's own "Score" metric.
    tried = page.get_by_test_id("stMetric").filter(has=page.get_by_text("Score", exact=True))
    expect(tried.first).to_contain_text("0.500")
    expect(page.locator(LITERAL).filter(has_text="Half marks: the label is close.").first).to_be_visible()
    page.get_by_role("button", name="Run this case").scroll_into_view_if_needed()
    shot(page, "12-try-one-case")


@pytest.mark.parametrize("language", ["en", "zh_CN"])
def test_screenshots_at_two_widths_in_two_languages(page: Page, server: str, language: str):
    page.set_viewport_size({"width": WIDTHS[0], "height": 1400})
    open_author(page, server)
    if language != "en":
        pick_language(page, "简体中文")
        expect(page.get_by_text("契约检查").first).to_be_visible()
    type_metric(page, "def score(input, output, expected=None):\n    raise ValueError('no label here: ' + 'x' * 200)\n")
    verdict = page.get_by_test_id("stAlert").filter(has_text=re.compile("breaks the contract|违反契约"))
    expect(verdict.first).to_be_visible()
    wait_for_app_run(page)
    for width in at_widths(page):
        shot(page, f"20-author-error-{width}-{language}")
    start_job(
        page,
        page.get_by_role("button", name=re.compile("Score all cases|为全部用例评分")),
        page.get_by_text(re.compile("No ok case to plot|没有可绘制的成功用例")),
    )
    wait_for_app_run(page)
    for width in at_widths(page, WIDTHS[::-1]):
        shot(page, f"21-author-scored-{width}-{language}")
    type_metric(page, FIXED)
    expect(page.get_by_text(re.compile("The metric meets the contract|指标符合契约"))).to_be_visible()
    wait_for_app_run(page)
    for width in at_widths(page):
        shot(page, f"22-author-passes-{width}-{language}")


def test_completion_offers_python_3_names_and_enter_makes_a_new_line(page: Page, server: str):
    open_author(page, server)
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
    shot(page, "13-completion")
