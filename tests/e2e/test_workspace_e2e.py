"""One workspace behind every page, in a real Chromium: nothing typed is lost to navigation or a second tab,
stale results say so, and any session sees and cancels running jobs."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from skynet_core.metric.archive import read_zip
from tests.e2e.browser import shot, wait_for_app_run
from tests.e2e.editor_moves import (
    EDITOR,
    PASSES,
    check_shows,
    choose,
    click_until_gone,
    editor_text,
    go_to,
    open_author,
    open_list,
    set_timeout,
    start_endless_scoring,
    start_job,
    type_metric,
    wait_for_editor_text,
)

A = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'metric A'}\n"
B = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'metric B'}\n"
FIRST_TAB = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'typed in the first tab'}\n"
SECOND_TAB = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'typed in the second tab'}\n"


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    """A job whose browser closed is cancelled after this long unwatched: long enough for a new session to open
    and find it on a loaded machine (at the default 60 s, under load, the job was gone before the click)."""
    return {"SKYNET_JOB_ORPHAN_S": "600"}


@pytest.mark.timeout(900)  # the flows of four former tests (each allowed 300 s), on a machine that may be busy
def test_one_tab_keeps_typed_text_marks_stale_results_and_round_trips_a_folder(page: Page, server: str, tmp_path):
    """One session on one tab, the behaviours in turn (each once had a test of its own, which loaded the Author page
    again to start from it: a page load costs Chromium about 2 s of CPU, a visit through the menu a third of it):

    - the editor keeps the text typed last after a visit to the Data, Reward trade-offs and History pages, and a
      line typed after each visit builds on that text; a reload shows all of it;
    - results say when the Data page changed what is scored (split and candidate), until scored again;
    - the Feedback review page grades with the model saved on the Settings page;
    - a metric folder has a tab per file and round-trips through a zip (upload, then download).
    """
    # The editor keeps the typed text across visits to other pages.
    open_author(page, server)
    type_metric(page, A)
    check_shows(page, "metric A")
    type_metric(page, B)
    check_shows(page, "metric B")
    expected = B
    for away in ("Data", "Reward trade-offs", "History"):  # one visit each, back to what was last typed
        go_to(page, away)
        go_to(page, "Author")
        page.frame_locator(EDITOR).locator(".ace_content").wait_for()
        assert wait_for_editor_text(page, lambda text, now=expected: text == now) == expected, away
        shot(page, f"workspace-after-visiting-{away.split()[0].lower()}")
        # Typing one more line builds on that text, not on the text of the editor's first load.
        page.frame_locator(EDITOR).locator(".ace_content").click()
        page.keyboard.press("Control+End")
        line = f"# after {away}\n"
        page.keyboard.insert_text(line)
        expected += line
        wait_for_app_run(page, settle_ms=600)
    page.reload()
    open_author(page, server)
    assert wait_for_editor_text(page, lambda text: text.startswith(B)) == expected

    # Results say when the Data page changed what is scored.
    type_metric(page, A)
    check_shows(page, "metric A")
    start_job(
        page,
        page.get_by_role("button", name="Score all cases"),
        page.get_by_text(re.compile(r"Showing \d+ of \d+ scored cases")),
    )
    expect(page.get_by_text("These results match the current metric.py")).to_be_visible()
    go_to(page, "Data")
    choose(page, "Split", "val")
    choose(page, "Candidate", "large-careful")
    go_to(page, "Author")
    stale = page.get_by_test_id("stAlert").filter(has_text="These results are out of date")
    expect(stale).to_contain_text("the candidate is now large-careful")
    expect(stale).to_contain_text("the split is now val")
    shot(page, "workspace-stale-after-data")
    start_job(
        page,
        page.get_by_role("button", name="Score again"),
        page.get_by_text("These results match the current metric.py"),
    )
    expect(stale).to_have_count(0)

    # The Feedback review grades with the model saved on the Settings page.
    go_to(page, "Settings")
    panel = page.locator(".st-key-settings-panel-metric")
    field = panel.get_by_label("Model (a litellm model name)", exact=True)
    field.fill("openai/saved-judge")
    field.press("Enter")
    wait_for_app_run(page)
    page.get_by_role("button", name="Save settings").click()
    wait_for_app_run(page)
    go_to(page, "Feedback review")
    # The page offers to score whether or not a run is kept (this test kept one above): scoring now gives the
    # review a run in either case, without asking the page which it is mid-draw.
    score_now = page.get_by_role("button", name="Score all cases now")
    expect(score_now).to_be_enabled()
    score_now.click()
    page.get_by_text("Model review (optional)").click()
    expect(page.get_by_text("openai/saved-judge", exact=True)).to_be_visible(timeout=30_000)
    expect(page.get_by_text("No model is configured")).to_have_count(0)
    shot(page, "workspace-feedback-uses-saved-model")

    # A metric folder has tabs and round-trips through a zip.
    from skynet_core.metric.source import MetricSource

    go_to(page, "Author")
    type_metric(page, A)
    check_shows(page, "metric A")
    page.get_by_role("button", name="Files").click()
    page.get_by_label("New file").fill("helpers.py")
    page.get_by_label("New file").press("Enter")
    page.get_by_role("button", name="Add the file").click()
    wait_for_app_run(page)
    expect(page.get_by_role("button", name="helpers.py")).to_be_visible()
    expect(page.get_by_role("button", name="metric.py")).to_be_visible()
    shot(page, "workspace-folder-tabs")
    folder = MetricSource({"metric.py": B, "data/words.txt": "weak\n"})
    archive = tmp_path / "metric.zip"
    archive.write_bytes(folder.to_zip())
    page.get_by_text("Upload metric.py or a .zip of the metric folder").click()
    page.get_by_test_id("stFileUploader").locator('input[type="file"]').set_input_files(str(archive))
    expect(page.get_by_role("button", name="data/words.txt")).to_be_visible()
    check_shows(page, "metric B")
    with page.expect_download() as download:
        page.get_by_role("button", name="Download (.zip)", exact=True).click()
    assert read_zip(download.value.path().read_bytes()) == folder


@pytest.mark.timeout(900)  # the flows of three former tests (each allowed 300 s), on a machine that may be busy
def test_two_tabs_keep_both_texts_keys_typed_during_a_check_are_kept_and_a_closed_tabs_job_is_cancelled(
    page: Page, server: str
):
    """Two tabs, the behaviours in turn (the second tab serves both: a new tab costs Chromium seconds of CPU):

    - two tabs typing keep both texts: the second tab's is the draft, the first tab's a version, and the Author
      and History pages say so;
    - keys typed in the first tab while the check of a pause marks a line are kept (the editor once set its text
      back to the text of the pause when the mark arrived, mid-word, and typing went on there); last in the first
      tab's session, as Ace's word list it leaves open would hide its editor from the other steps' moves;
    - a job whose tab closed (the second tab's endless scoring) is seen by a new session under Running jobs, and
      cancelled there.
    """
    first = page
    second = page.context.new_page()
    open_author(first, server)
    open_author(second, server)
    for tab in (first, second):
        expect(tab.get_by_text(PASSES)).to_be_visible(timeout=20_000)  # both tabs have drawn their check
        wait_for_app_run(tab)
    type_metric(first, FIRST_TAB)
    check_shows(first, "typed in the first tab")
    type_metric(second, SECOND_TAB)
    check_shows(second, "typed in the second tab")
    first.reload()
    open_author(first, server)
    # The second tab's text is the draft; the first tab's text is a version, and the page says so.
    assert wait_for_editor_text(first, lambda text: text == SECOND_TAB) == SECOND_TAB
    expect(first.get_by_text("Two tabs edited metric.py at once")).to_be_visible()
    shot(first, "workspace-two-tabs-author")
    go_to(first, "History")
    open_list(first, first.get_by_test_id("stMain").get_by_test_id("stSelectbox").first)  # not the sidebar's language
    expect(first.get_by_role("option").filter(has_text="other tab's text").first).to_be_visible()
    shot(first, "workspace-two-tabs-history")

    # Keys typed while the check marks a line are kept: a pause sends the text; its check marks a line while the
    # next keys go in.
    go_to(first, "Author")
    type_metric(first, A)
    check_shows(first, "metric A")
    first.frame_locator(EDITOR).locator(".ace_content").click()
    first.keyboard.press("Control+End")
    first.keyboard.type("return", delay=70)  # outside the function: the check marks this line
    first.wait_for_timeout(300)  # past the editor's 200 ms pause: it sends its text
    more = " # one two three four five six seven eight nine ten eleven twelve thirteen fourteen"
    first.keyboard.type(more, delay=70)  # six seconds without a pause, while the check answers
    wanted = A + "return" + more
    assert wait_for_editor_text(first, lambda text: text == wanted, timeout=3.0) == wanted
    expect(first.get_by_text(re.compile(r"SyntaxError at metric.py line 3"))).to_be_visible()
    wait_for_app_run(first, settle_ms=600)
    assert editor_text(first) == wanted

    # A new session sees and cancels a job whose tab closed.
    start_endless_scoring(second, server)
    second.close()  # its session ends with it
    # Not waiting for the editor: while the endless scoring spins on every core, its component can take long.
    open_author(page, server, editor=False)  # a new session (the first tab's page loaded again)
    jobs = page.get_by_test_id("stSidebar")
    expect(jobs.get_by_text("Running jobs")).to_be_visible()
    expect(jobs.get_by_text(re.compile(r"^scoring · \d+ of 72 · started"))).to_be_visible()
    shot(page, "workspace-running-jobs")
    # The scoring job's own Cancel: the list may also hold a check still running (listed first).
    scoring = jobs.locator("[class*='st-key-studio-jobs-job-']").filter(has_text=re.compile(r"^scoring · "))
    click_until_gone(scoring.get_by_role("button", name="Cancel"), jobs.get_by_text(re.compile(r"^scoring · ")))
    restore_a_quick_metric(page)


def restore_a_quick_metric(page: Page) -> None:
    """Stop what this test started: metric A replaces the endless loop (its check ends), once written and
    checked (a tab closed before its editor sent A would leave the loop's check running)."""
    set_timeout(page, 60)
    type_metric(page, A)
    check_shows(page, "metric A")
