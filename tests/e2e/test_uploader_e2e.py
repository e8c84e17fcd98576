"""A file uploader in headless Chromium: its button reads "Choose a file" in the page's language, and once a file
is chosen, the file's chip shows the file's name beside a bare remove (×) button, nothing drawn over either."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Locator, Page, expect

from tests.e2e.browser import shot, wait_for_app_run
from tests.e2e.editor_moves import pick_language

FILE_NAME = "labels-rater-a.csv"  # Streamlit shortens a longer name in the middle (its title has it whole)
AFTER = "el => getComputedStyle(el, '::after').content"


def boxes_overlap(first: Locator, second: Locator) -> bool:
    a, b = first.bounding_box(), second.bounding_box()
    assert a is not None and b is not None
    return (
        a["x"] < b["x"] + b["width"]
        and b["x"] < a["x"] + a["width"]
        and (a["y"] < b["y"] + b["height"] and b["y"] < a["y"] + a["height"])
    )


def choose_and_check(page: Page, uploader: Locator, folder: Path, choose: str, language: str, width: int) -> None:
    """The empty uploader's button reads ``choose``; a file chosen, its chip shows its whole name beside a bare
    remove button, and no button beside it reads ``choose``."""
    folder.mkdir()
    labels = folder / FILE_NAME
    labels.write_text("id,human\nT-1,1\n", encoding="utf-8")
    button = uploader.get_by_test_id("stBaseButton-secondary")
    expect(button).to_be_visible(timeout=60_000)
    assert button.evaluate(AFTER) == f'"{choose}"'  # the empty uploader's button reads "Choose a file"

    uploader.locator('input[type="file"]').set_input_files(str(labels))
    name = uploader.get_by_test_id("stFileChipName")
    expect(name).to_have_text(FILE_NAME)
    wait_for_app_run(page)
    remove = uploader.get_by_test_id("stFileChipDeleteBtn").get_by_role("button")
    expect(remove).to_be_visible()
    assert remove.evaluate(AFTER) in ("none", "normal")
    assert not boxes_overlap(name, remove)
    labelled = uploader.locator("button").evaluate_all(f"els => els.map({AFTER})")
    assert set(labelled) <= {"none", "normal"}, labelled  # no button beside the chosen file reads "Choose a file"
    assert name.evaluate("el => el.scrollWidth <= el.clientWidth")  # the name is whole, not cut
    uploader.scroll_into_view_if_needed()
    shot(page, f"uploader-file-chosen-{language}-{width}")


def test_a_chosen_file_shows_its_name_beside_an_unlabelled_remove_button(
    page: Page, server: str, workspace, tmp_path: Path
):
    """One session on the Human scores page: in English at 1400 px, then, the file removed with its × and
    简体中文 picked in the sidebar, at 1000 px (the button then reads "选择文件")."""
    workspace.settings.set_language("en")
    page.set_viewport_size({"width": 1400, "height": 1200})
    page.goto(f"{server}/human")
    uploader = page.get_by_test_id("stFileUploader").first
    choose_and_check(page, uploader, tmp_path / "en", "Choose a file", "en", 1400)

    uploader.get_by_test_id("stFileChipDeleteBtn").get_by_role("button").click()
    expect(uploader.get_by_test_id("stFileChipName")).to_have_count(0)
    wait_for_app_run(page)
    page.set_viewport_size({"width": 1000, "height": 1200})
    pick_language(page, "简体中文")
    expect(page.get_by_role("heading", name="人工评分")).to_be_visible()
    choose_and_check(page, uploader, tmp_path / "zh_CN", "选择文件", "zh_CN", 1000)
