"""The Data page in headless Chromium: upload a CSV, give its columns roles, use it, and score it on the Author page.

Screenshots go to the screenshots folder (browser.ARTIFACTS) as data-*.png.
"""

from __future__ import annotations

from pathlib import Path

import playwright.sync_api as playwright_api
import pytest
from playwright.sync_api import Page, expect

from tests.e2e.browser import AppServer, shot, wait_for_app_run

WAIT_MS = 60_000  # a rerun on a busy 2-core machine
SLOW_MS = 180_000  # starting metric workers and scoring there
# Unprefixed column names, so every role is set in the editor. Outputs are the JSON text a model returned.
TICKETS = """ticket_id,message,label,model_reply,notes
T-1,I was charged twice this month,billing,"{""label"": ""billing""}",called twice
T-2,Where is my parcel?,shipping,"{""label"": ""shipping""}",
T-3,The app crashes on start,technical,"{""label"": ""billing""}",angry
T-4,Please close my account,account,"{""label"": ""account""}",
T-5,Do you ship to Norway?,,"{""label"": ""shipping""}",not labelled yet
"""
IDS = ["T-1", "T-2", "T-3", "T-4", "T-5"]
# The role editor's columns are "medium" (200 px) wide and its rows 35 px tall (header included).
COLUMN_PX, ROW_PX = 200, 35
EDITOR_COLUMNS = 4  # column, role, field name, first value


@pytest.fixture
def tall_page(page: Page) -> Page:
    """The tab, tall enough for the whole Data page in one screenshot (Streamlit scrolls inside the app)."""
    page.set_viewport_size({"width": 1500, "height": 1900})
    page.set_default_timeout(WAIT_MS)
    return page


def set_cell(page, editor, row: int, column: int, text: str) -> None:
    """Edit a cell of the role editor (row 1 is the first column of the file) and wait until it shows ``text``.

    The grid is a canvas: a double click opens the cell's editor; for a role, the choices are filtered
    by what is typed and the one spelled exactly ``text`` is picked with the arrow keys.
    """
    cell = editor.locator("[role=gridcell]").nth((row - 1) * EDITOR_COLUMNS + column)
    overlay = page.get_by_test_id("portal").locator(".gdg-clip-region")
    for _ in range(4):
        # The first click may only give the grid the focus (e.g. after a button had it): then try again.
        editor.dblclick(position={"x": COLUMN_PX * column + COLUMN_PX / 2, "y": ROW_PX * row + ROW_PX / 2})
        try:
            overlay.wait_for(timeout=5_000)
        except playwright_api.TimeoutError:
            continue
        page.keyboard.type(text)
        options = page.get_by_test_id("portal").get_by_role("option").all_inner_texts()
        for _ in range(options.index(text) if text in options else 0):
            page.keyboard.press("ArrowDown")
        page.keyboard.press("Enter")
        try:
            expect(cell).to_have_text(text, timeout=5_000)
        except AssertionError:
            continue
        wait_for_app_run(page)
        return
    raise AssertionError(f"the role editor did not take {text!r} in row {row}")


def test_uploaded_csv_with_roles_is_scored_on_the_author_page(
    tall_page, server: str, app_server: AppServer, tmp_path: Path
) -> None:
    page = tall_page
    url, data_dir = server, app_server.data_dir
    csv_path = tmp_path / "tickets.csv"
    csv_path.write_text(TICKETS, encoding="utf-8")

    page.goto(url)
    expect(page.get_by_role("heading", name="Author metric.py")).to_be_visible(timeout=SLOW_MS)
    page.get_by_role("link", name="Data").click()
    expect(page.get_by_text("In use: Support tickets (example)")).to_be_visible()
    wait_for_app_run(page)
    shot(page, "data-1-example")

    page.get_by_text("A file", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Upload a CSV, JSON Lines or Parquet file")
    uploader.locator('input[type="file"]').set_input_files(str(csv_path))
    expect(page.get_by_role("heading", name="tickets.csv")).to_be_visible()
    editor = page.get_by_test_id("stDataFrame").nth(1)
    expect(editor.locator("[role=gridcell]").first).to_have_text("ticket_id")
    wait_for_app_run(page)
    assert [path.name for path in (data_dir / "uploads").rglob("*.csv")] == ["tickets.csv"]

    # The preview says what loading would refuse, before "Use this dataset" (which waits for a fix).
    expect(page.get_by_text("tickets.csv has no input column.")).to_be_visible()
    expect(page.get_by_role("button", name="Use this dataset")).to_be_disabled()
    expect(page.get_by_text("These are the splits of Support tickets (example), the dataset in use.")).to_be_visible()
    wait_for_app_run(page)
    shot(page, "data-2-uploaded-no-roles-yet")

    set_cell(page, editor, 1, 1, "id")
    set_cell(page, editor, 2, 1, "input field")
    set_cell(page, editor, 3, 1, "expected field")
    set_cell(page, editor, 4, 1, "output")
    # The last role's script run has surely started and ended before the click (on a loaded machine it may start
    # more than set_cell's 150 ms settle after the edit, and the click then raced it: the dataset was not used).
    wait_for_app_run(page, settle_ms=1_000)
    page.get_by_role("button", name="Use this dataset").click()
    expect(page.get_by_text("Using tickets.csv: 5 cases × 1 candidate.")).to_be_visible()
    expect(page.get_by_text("In use: tickets · 5 cases × 1 candidate")).to_be_visible()
    expect(page.get_by_test_id("stMetric").filter(has_text="train")).to_contain_text("5")
    cells = editor.locator("[role=gridcell]")
    expect(cells.nth(EDITOR_COLUMNS + 2)).to_have_text("message")  # the field name the metric reads
    wait_for_app_run(page)
    shot(page, "data-3-roles-used")

    page.get_by_role("link", name="Author").click()
    score_all = page.get_by_role("button", name="Score all cases")
    expect(score_all).to_be_enabled(timeout=SLOW_MS)
    expect(page.get_by_text("Runs metric.py on all 5 cases")).to_be_visible()
    score_all.click()
    expect(page.get_by_text("Showing 5 of 5 scored cases.")).to_be_visible(timeout=SLOW_MS)
    table = page.get_by_test_id("stDataFrame").last
    for case_id in IDS:
        expect(table.locator("[role=gridcell]").filter(has_text=case_id)).to_have_count(1, timeout=WAIT_MS)
    wrong = table.locator("[role=gridcell]").filter(has_text="Expected 'technical', got 'billing'.")
    expect(wrong).to_have_count(1, timeout=WAIT_MS)
    wait_for_app_run(page)
    shot(page, "data-4-author-scored")

    page.goto(f"{url}/data")  # a reload: the choice and the roles come back from the store
    expect(page.get_by_text("In use: tickets · 5 cases × 1 candidate")).to_be_visible(timeout=SLOW_MS)
    editor = page.get_by_test_id("stDataFrame").nth(1)
    expect(editor.locator("[role=gridcell]").nth(EDITOR_COLUMNS + 1)).to_have_text("input field")


def test_a_refused_upload_clears_the_previous_file_and_says_why(tall_page, server: str, tmp_path: Path) -> None:
    page = tall_page
    url = server
    good, empty = tmp_path / "tickets.csv", tmp_path / "empty.csv"
    good.write_text(TICKETS, encoding="utf-8")
    empty.write_bytes(b"")

    page.goto(f"{url}/data")
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible(timeout=SLOW_MS)
    page.get_by_text("A file", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Upload a CSV, JSON Lines or Parquet file")
    expect(uploader).to_contain_text("up to 250 MB")
    expect(uploader).to_contain_text("250MB per file")  # the uploader's own limit says the same
    uploader.locator('input[type="file"]').set_input_files(str(good))
    expect(page.get_by_role("heading", name="tickets.csv")).to_be_visible()
    wait_for_app_run(page)

    uploader.locator('input[type="file"]').set_input_files(str(empty))
    expect(page.get_by_text("empty.csv is empty. Add at least one case")).to_be_visible()
    expect(page.get_by_role("heading", name="tickets.csv")).to_have_count(0)
    expect(page.get_by_role("button", name="Use this dataset")).to_have_count(0)
    wait_for_app_run(page)
    shot(page, "data-5-refused-upload")
