"""One workspace behind every page, in a real Chromium: the editor keeps the text typed last across visits to other
pages and a reload, keys typed while the check marks a line are kept, and a metric folder round-trips through a zip
(uploaded through the file chooser, downloaded back).

What needs no browser is checked through AppTest, in tests/app/test_app_author.py:

- results that say they are stale: test_results_say_they_are_stale_after_the_split_changes and
  test_candidate_and_split_on_the_author_page_make_results_stale;
- two tabs writing at once, told to other sessions and listed in History:
  test_a_write_from_another_tab_is_shown_a_stale_write_keeps_both_and_other_sessions_are_told;
- a running job listed and cancelled in another session's sidebar:
  test_another_session_lists_a_running_scoring_under_running_jobs_and_cancels_it.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from skynet_core.metric.archive import read_zip
from skynet_core.metric.source import MetricSource
from tests.e2e.browser import wait_for_app_run
from tests.e2e.editor_moves import (
    EDITOR,
    check_shows,
    editor_text,
    go_to,
    open_author,
    type_metric,
    wait_for_editor_text,
)

A = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'metric A'}\n"
B = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'metric B'}\n"


@pytest.mark.timeout(600)  # the flows of former tests, on a machine that may be busy
def test_typed_text_survives_visits_and_a_reload_keys_typed_during_a_check_are_kept_and_a_zip_round_trips(
    page: Page, server: str, tmp_path
):
    """One session on one tab, one page load, the behaviours in turn:

    - the editor keeps the text typed last after a visit to the Data and History pages, and a line typed after
      each visit builds on that text (not on the text of the editor's first load); a reload shows all of it;
    - keys typed while the check of a pause marks a line are kept (the editor once set its text back to the text
      of the pause when the mark arrived, mid-word, and typing went on there);
    - a .zip of a metric folder uploaded through the file chooser gives a tab per file, and "Download (.zip)"
      gives the same folder back.
    """
    # The editor keeps the typed text across visits to other pages.
    open_author(page, server)
    type_metric(page, A)
    check_shows(page, "metric A")
    type_metric(page, B)
    check_shows(page, "metric B")
    expected = B
    for away in ("Data", "History"):  # one visit each, back to what was last typed
        go_to(page, away)
        go_to(page, "Author")
        page.frame_locator(EDITOR).locator(".ace_content").wait_for()
        assert wait_for_editor_text(page, lambda text, now=expected: text == now) == expected, away
        # Typing one more line builds on that text, not on the text of the editor's first load.
        page.frame_locator(EDITOR).locator(".ace_content").click()
        page.keyboard.press("Control+End")
        line = f"# after {away}\n"
        page.keyboard.insert_text(line)
        expected += line
        wait_for_app_run(page, settle_ms=600)
    page.reload()  # the same tab loaded again: a new session, the editor fed from the stored draft
    expect(page.get_by_text("Contract check", exact=True)).to_be_visible(timeout=60_000)
    page.frame_locator(EDITOR).locator(".ace_content").wait_for(timeout=60_000)
    assert wait_for_editor_text(page, lambda text: text == expected) == expected
    check_shows(page, "metric B")

    # Keys typed while the check marks a line are kept: a pause sends the text; its check marks a line while the
    # next keys go in.
    page.frame_locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+End")
    page.keyboard.type("return", delay=70)  # outside the function: the check marks this line (line 5)
    page.wait_for_timeout(300)  # past the editor's 200 ms pause: it sends its text
    more = " # one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    page.keyboard.type(more, delay=70)  # six seconds without a pause, while the check answers
    wanted = expected + "return" + more
    assert wait_for_editor_text(page, lambda text: text == wanted, timeout=3.0) == wanted
    expect(page.get_by_text(re.compile(r"SyntaxError at metric.py line 5"))).to_be_visible()
    wait_for_app_run(page, settle_ms=600)
    assert editor_text(page) == wanted
    page.keyboard.press("Escape")  # Ace's word list, if open, would cover the page's next clicks

    # A metric folder round-trips through a zip.
    folder = MetricSource({"metric.py": B, "data/words.txt": "weak\n"})
    archive = tmp_path / "metric.zip"
    archive.write_bytes(folder.to_zip())
    page.get_by_text("Upload metric.py or a .zip of the metric folder").click()
    page.get_by_test_id("stFileUploader").locator('input[type="file"]').set_input_files(str(archive))
    expect(page.get_by_role("button", name="data/words.txt")).to_be_visible()
    expect(page.get_by_role("button", name="metric.py")).to_be_visible()
    check_shows(page, "metric B")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download (.zip)", exact=True).click()
    assert read_zip(download.value.path().read_bytes()) == folder
