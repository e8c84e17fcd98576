"""The Data page in headless Chromium, where only a browser can check it: a file chosen in the uploader's file
chooser, the roles set in the role grid (a canvas) with the keyboard, what "Use this dataset" did said beside the
button, a refused upload clearing the file before it, and the page readable in English at 1400 px and in Chinese
at 1000 px.

What the page does with the file used is checked through AppTest (tests/app/test_app_data.py): the Author page's
Score all scoring exactly its cases, the choice and roles after a reload, the warnings before use, the upload's cap.
Screenshots go to the screenshots folder (browser.ARTIFACTS) as data-*.png.
"""

from __future__ import annotations

from pathlib import Path

import playwright.sync_api as playwright_api
import pytest
from playwright.sync_api import Page, expect

from skynet_core.workspace import Workspace
from tests.case_factory import TICKETS_CSV
from tests.e2e.browser import assert_readable_picture, shot, wait_for_app_run
from tests.e2e.editor_moves import pick_language
from tests.e2e.placement import alert, beside

WAIT_MS = 60_000  # a rerun on a busy 2-core machine
# The role editor's columns are "medium" (200 px) wide and its rows 35 px tall (header included).
COLUMN_PX, ROW_PX = 200, 35
EDITOR_COLUMNS = 4  # column, role, field name, first value
UPLOADER = 'input[type="file"]'


def set_cell(page: Page, editor, row: int, column: int, text: str) -> None:
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


def test_a_file_chosen_gets_its_roles_in_the_grid_is_used_and_an_empty_one_is_refused(
    page: Page, server: str, workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One session on the Data page, opened by its address, in this order:

    1. tickets.csv chosen in the uploader's file chooser is kept in the uploads folder and previewed in the role grid.
    2. Each column's role set in the grid with the keyboard (a double click opens the cell, the role typed, picked
       with the arrows and Enter): the roles reach the store, and the grid shows the field name the metric reads.
    3. "Use this dataset": "Using tickets.csv: 5 cases × 1 candidate." is said beside the button, in the window; the
       whole page readable at 1400 px.
    4. 简体中文 picked in the sidebar, at 1000 px: the choices made in English shown in Chinese; empty.csv chosen is
       refused, saying why, and tickets.csv is cleared (no preview, no "Use this dataset"); the whole page readable.
    """
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(workspace.directory))  # the server's uploads, read here too
    good, empty = tmp_path / "tickets.csv", tmp_path / "empty.csv"
    good.write_text(TICKETS_CSV, encoding="utf-8")
    empty.write_bytes(b"")
    page.set_viewport_size({"width": 1400, "height": 1400})
    page.set_default_timeout(WAIT_MS)

    # 1. The file chosen in the chooser.
    page.goto(f"{server}/data")
    expect(page.get_by_role("heading", name="Data", exact=True)).to_be_visible()
    wait_for_app_run(page)
    page.get_by_text("A file", exact=True).click()
    uploader = page.get_by_test_id("stFileUploader").filter(has_text="Upload a CSV, JSON Lines or Parquet file")
    uploader.locator(UPLOADER).set_input_files(str(good))
    expect(page.get_by_role("heading", name="tickets.csv")).to_be_visible()
    editor = page.get_by_test_id("stDataFrame").nth(1)
    expect(editor.locator("[role=gridcell]").first).to_have_text("ticket_id")
    wait_for_app_run(page)
    assert [path.name for path in (workspace.directory / "uploads").rglob("*.csv")] == ["tickets.csv"]

    # 2. The roles set in the grid with the keyboard.
    set_cell(page, editor, 1, 1, "id")
    set_cell(page, editor, 2, 1, "input field")
    set_cell(page, editor, 3, 1, "expected field")
    set_cell(page, editor, 4, 1, "output")
    expect(editor.locator("[role=gridcell]").nth(EDITOR_COLUMNS + 2)).to_have_text("message")  # the field read
    # The last role's script run has surely started and ended before the click (on a loaded machine it may start
    # more than set_cell's 150 ms settle after the edit, and the click then raced it: the dataset was not used).
    wait_for_app_run(page, settle_ms=1_000)

    # 3. "Use this dataset", and what it did beside it.
    use = page.get_by_role("button", name="Use this dataset")
    use.scroll_into_view_if_needed()
    use.click()
    wait_for_app_run(page)
    beside(alert(page, "Using tickets.csv: 5 cases × 1 candidate."), use, page)
    used = workspace.data.in_use()  # what the roles made of the file: the cases the metric gets
    assert [case.id for case in used.cases] == ["T-1", "T-2", "T-3", "T-4", "T-5"]
    third = used.cases[2]
    assert (third.input, third.expected) == ({"message": "The app crashes on start"}, {"label": "technical"}), third
    assert_readable_picture(shot(page, "data-used-en-1400", whole=True), 1400)

    # 4. In Chinese at 1000 px: a refused upload clears the file before it.
    page.set_viewport_size({"width": 1000, "height": 1400})
    pick_language(page, "简体中文")
    expect(page.get_by_role("heading", name="数据", exact=True)).to_be_visible()
    # The choices made in English are shown in Chinese: the browser kept the labels it was sent last ("A file"),
    # which match none of the Chinese ones, until the language switch sent each choice again.
    expect(page.get_by_role("radio", name="文件", exact=True)).to_be_checked()
    expect(page.get_by_role("combobox", name="划分", exact=True)).to_have_value("全部（5 个用例）")
    chinese = page.get_by_test_id("stFileUploader").filter(has_text="上传 CSV、JSON Lines 或 Parquet 文件")
    chinese.locator(UPLOADER).set_input_files(str(empty))
    expect(alert(page, "empty.csv 是空的。请添加至少一个用例")).to_be_visible()
    expect(page.get_by_role("heading", name="tickets.csv")).to_have_count(0)
    expect(page.get_by_role("button", name="使用此数据集")).to_have_count(0)
    wait_for_app_run(page)
    # The split picker drawn again in Chinese kept the split: the browser sent back its English label "all (5
    # cases)", and the page once stored that label as the split, which has no case.
    assert workspace.data.choice().split is None and len(workspace.data.in_use().cases) == 5
    assert_readable_picture(shot(page, "data-refused-zh_CN-1000", whole=True), 1000)
