"""Screenshots of the human scores' new states, in English at 1400 px and in Chinese at 1000 px, each asserted
readable (nothing sticks out, text top and bottom): the Human scores page after an import of many ids the data
lacks and with another candidate in use, the Two raters panel with raters named ``id`` and ``gap``, the Data
page after "Use this dataset" on a file that keeps the labelled ids, and the Author page after a metric upload.

Each state is reached in English first; the Chinese one is the same session after the sidebar's language picker
(a rerun of the page, not a new load: a page load costs Chromium 1 to 2 s of CPU), with the step that shows the
state's message done again in Chinese where the message is said once (an import, an upload, "Use this dataset")."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from skynet_core.workspace import SETTING_LANGUAGE, Workspace
from tests.case_factory import with_weak_run
from tests.e2e.browser import assert_readable_picture, shot, wait_for_app_run
from tests.e2e.editor_moves import pick_language

WAIT_MS = 60_000
SHOTS = {"en": 1400, "zh_CN": 1000}
WORDS = {
    "en": {"title": "Human scores", "import": "Import", "data": "Data", "file": "A file", "use": "Use this dataset"},
    "zh_CN": {"title": "人工评分", "import": "导入", "data": "数据", "file": "文件", "use": "使用此数据集"},
}


def seed(workspace: Workspace, language: str) -> list[str]:
    workspace.human.set_rater("ana")
    with_weak_run(workspace)
    workspace.store.set(SETTING_LANGUAGE, language)
    return [case.id for case in workspace.data.in_use().cases]


def open_page(page: Page, url: str, heading: str, width: int) -> None:
    page.set_viewport_size({"width": width, "height": 1400})
    page.goto(url)
    expect(page.get_by_role("heading", name=heading, exact=True)).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page, timeout_ms=2 * WAIT_MS)


def to_chinese(page: Page) -> None:
    """The same session in Chinese (the sidebar's picker), at the Chinese screenshots' width."""
    page.set_viewport_size({"width": SHOTS["zh_CN"], "height": 1400})
    pick_language(page, "简体中文")


def picture(page: Page, name: str, width: int) -> None:
    wait_for_app_run(page, timeout_ms=2 * WAIT_MS)
    assert_readable_picture(shot(page, name, whole=True), width)


def test_the_human_scores_page_after_an_import_of_unknown_ids_and_with_another_candidate(
    page: Page, server: str, workspace: Workspace, tmp_path: Path
) -> None:
    """In each language: the import's warning names the ids the data lacks (ghost-0) and the report of the 30 labels
    that fit draws its two charts; with another candidate in use, the progress counts none of them. Screenshots of
    both states, English at 1400 px, Chinese at 1000 px."""
    ids = seed(workspace, "en")
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human,note\n" + "".join(f"{case_id},{n % 3 // 2},\n" for n, case_id in enumerate(ids[:30]))
                      + "".join(f"ghost-{n},1,\n" for n in range(5_000)))  # fmt: skip
    open_page(page, f"{server}/human", WORDS["en"]["title"], SHOTS["en"])
    page.get_by_test_id("stFileUploader").locator('input[type="file"]').set_input_files(str(labels))
    wait_for_app_run(page)
    for language in SHOTS:
        if language == "zh_CN":
            to_chinese(page)
            expect(page.get_by_role("heading", name=WORDS[language]["title"], exact=True)).to_be_visible()
        page.get_by_role("button", name=WORDS[language]["import"], exact=True).click()
        warning = page.get_by_test_id("stAlert").filter(has_text="ghost-0")
        if language == "zh_CN":
            warning = warning.filter(has_not_text="Imported")  # the import's new message, said in Chinese
        expect(warning).to_be_visible(timeout=WAIT_MS)
        expect(page.get_by_test_id("stPlotlyChart")).to_have_count(2, timeout=2 * WAIT_MS)  # the report, from 30 labels
        picture(page, f"human-import-unknown-{language}-{SHOTS[language]}", SHOTS[language])
    workspace.data.choose_cases(workspace.data.in_use().data.candidates[1], None)
    for language in ("zh_CN", "en"):
        if language == "zh_CN":
            open_page(page, f"{server}/human", WORDS[language]["title"], SHOTS[language])
        else:
            page.set_viewport_size({"width": SHOTS[language], "height": 1400})
            pick_language(page, "English")
            expect(page.get_by_role("heading", name=WORDS[language]["title"], exact=True)).to_be_visible()
        expect(page.get_by_test_id("stProgress")).to_contain_text("0", timeout=WAIT_MS)
        picture(page, f"human-other-candidate-{language}-{SHOTS[language]}", SHOTS[language])


def test_the_two_raters_panel_with_raters_named_id_and_gap(page: Page, server: str, workspace: Workspace) -> None:
    """The Two raters panel with raters named ``id`` and ``gap`` draws its table; English at 1400 px, then Chinese at
    1000 px in the same session."""
    ids = seed(workspace, "en")
    rows = "".join(f"{case_id},{n % 2}\n" for n, case_id in enumerate(ids[:16]))
    workspace.human.import_scores("a.csv", ("id,human\n" + rows).encode(), rater="id")
    workspace.human.import_scores("b.csv", ("id,human\n" + "".join(f"{c},1\n" for c in ids[:16])).encode(), rater="gap")
    open_page(page, f"{server}/human", WORDS["en"]["title"], SHOTS["en"])
    for language in SHOTS:
        if language == "zh_CN":
            to_chinese(page)
            expect(page.get_by_role("heading", name=WORDS[language]["title"], exact=True)).to_be_visible()
        panel = page.get_by_test_id("stDataFrame").last
        expect(panel).to_be_visible(timeout=WAIT_MS)
        picture(page, f"human-two-raters-id-gap-{language}-{SHOTS[language]}", SHOTS[language])


def test_the_data_page_says_how_many_labels_a_grown_file_keeps(
    page: Page, server: str, workspace: Workspace, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In each language: "Use this dataset" on a grown file (support80.csv) that keeps the 60 labelled ids of the
    one in use (support.csv) says so, naming both files. English at 1400 px; then, with support.csv in use again,
    the same steps in Chinese at 1000 px in the same session."""
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(workspace.directory))  # the server's uploads, read here too
    workspace.store.set(SETTING_LANGUAGE, "en")
    workspace.human.set_rater("ana")
    rows = "id,question,answer,response\n" + "".join(f"s{n},q {n},a {n},r {n}\n" for n in range(60))
    grown = tmp_path / "support80.csv"
    grown.write_text(rows + "".join(f"s{n},q {n},a {n},r {n}\n" for n in range(60, 80)))
    first = str(workspace.data.save_upload("support.csv", io.BytesIO(rows.encode())))
    workspace.data.save_choice(first)
    assert workspace.data.in_use().problem is None
    for n in range(60):
        workspace.human.set_score(f"s{n}", float(n % 2))
    open_page(page, f"{server}/data", WORDS["en"]["data"], SHOTS["en"])
    for language in SHOTS:
        words, width = WORDS[language], SHOTS[language]
        if language == "zh_CN":
            workspace.data.save_choice(first)  # the smaller file in use again
            to_chinese(page)
            expect(page.get_by_role("heading", name=words["data"], exact=True)).to_be_visible()
        page.get_by_text(words["file"], exact=True).click()
        wait_for_app_run(page)
        page.get_by_test_id("stFileUploader").first.locator('input[type="file"]').set_input_files(str(grown))
        expect(page.get_by_role("heading", name="support80.csv")).to_be_visible(timeout=WAIT_MS)
        wait_for_app_run(page)
        page.get_by_role("button", name=words["use"]).click()
        said = page.get_by_test_id("stAlert").filter(has_text="support80.csv").filter(has_text="support.csv")
        if language == "zh_CN":
            said = said.filter(has_text=re.compile("[\u4e00-\u9fff]"))  # said again, in Chinese
        expect(said).to_be_visible(timeout=WAIT_MS)
        picture(page, f"data-labels-kept-{language}-{width}", width)


def test_the_author_pages_upload_says_what_it_loaded(
    page: Page, server: str, workspace: Workspace, tmp_path: Path
) -> None:
    """In each language, an upload of metric.py on the Author page says what it loaded (uploaded.py); English at
    1400 px, then another uploaded.py in the same session in Chinese at 1000 px."""
    workspace.store.set(SETTING_LANGUAGE, "en")
    open_page(page, server, "Author metric.py", SHOTS["en"])
    for language, title, expander in (
        ("en", "Author metric.py", "Upload metric.py or a .zip of the metric folder"),
        ("zh_CN", "编写 metric.py", "上传 metric.py 或指标文件夹的 .zip"),
    ):
        metric = tmp_path / language / "uploaded.py"
        metric.parent.mkdir()
        metric.write_text(f"def score(input, output):\n    return 1.0, {{'feedback': 'uploaded in {language}'}}\n")
        if language == "zh_CN":
            to_chinese(page)
            expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible()
        uploader = page.get_by_test_id("stFileUploader").first
        if not uploader.is_visible():
            page.get_by_text(expander, exact=True).click()
        uploader.locator('input[type="file"]').set_input_files(str(metric))
        loaded = page.get_by_test_id("stAlert").filter(has_text="uploaded.py")
        if language == "zh_CN":
            loaded = loaded.filter(has_text="已载入")  # said again, in Chinese
        expect(loaded).to_be_visible(timeout=WAIT_MS)
        picture(page, f"author-upload-{language}-{SHOTS[language]}", SHOTS[language])
