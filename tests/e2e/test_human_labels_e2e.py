"""Screenshots of the human scores' new states, in English at 1400 px and in Chinese at 1000 px, each asserted
readable (nothing sticks out, text top and bottom): the Human scores page after an import of many ids the data
lacks and with another candidate in use, the Two raters panel with raters named ``id`` and ``gap``, the Data
page after "Use this dataset" on a file that keeps the labelled ids, and the Author page after a metric upload."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from skynet_core.workspace import SETTING_LANGUAGE, Workspace
from tests.case_factory import with_weak_run
from tests.e2e.browser import assert_readable_picture, shot, wait_for_app_run

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


def picture(page: Page, name: str, width: int) -> None:
    wait_for_app_run(page, timeout_ms=2 * WAIT_MS)
    assert_readable_picture(shot(page, name, whole=True), width)


@pytest.mark.parametrize("language", list(SHOTS))
def test_the_human_scores_page_after_an_import_of_unknown_ids_and_with_another_candidate(
    page: Page, server: str, workspace: Workspace, tmp_path: Path, language: str
) -> None:
    ids, width, words = seed(workspace, language), SHOTS[language], WORDS[language]
    labels = tmp_path / "labels.csv"
    labels.write_text("id,human,note\n" + "".join(f"{case_id},{n % 3 // 2},\n" for n, case_id in enumerate(ids[:30]))
                      + "".join(f"ghost-{n},1,\n" for n in range(5_000)))  # fmt: skip
    open_page(page, f"{server}/human", words["title"], width)
    page.get_by_test_id("stFileUploader").locator('input[type="file"]').set_input_files(str(labels))
    wait_for_app_run(page)
    page.get_by_role("button", name=words["import"], exact=True).click()
    expect(page.get_by_test_id("stAlert").filter(has_text="ghost-0")).to_be_visible(timeout=WAIT_MS)
    expect(page.get_by_test_id("stPlotlyChart")).to_have_count(2, timeout=2 * WAIT_MS)  # the report, from 30 labels
    picture(page, f"human-import-unknown-{language}-{width}", width)
    workspace.data.choose_cases(workspace.data.in_use().data.candidates[1], None)
    open_page(page, f"{server}/human", words["title"], width)
    expect(page.get_by_test_id("stProgress")).to_contain_text("0", timeout=WAIT_MS)
    picture(page, f"human-other-candidate-{language}-{width}", width)


@pytest.mark.parametrize("language", list(SHOTS))
def test_the_two_raters_panel_with_raters_named_id_and_gap(
    page: Page, server: str, workspace: Workspace, language: str
) -> None:
    ids, width, words = seed(workspace, language), SHOTS[language], WORDS[language]
    rows = "".join(f"{case_id},{n % 2}\n" for n, case_id in enumerate(ids[:16]))
    workspace.human.import_scores("a.csv", ("id,human\n" + rows).encode(), rater="id")
    workspace.human.import_scores("b.csv", ("id,human\n" + "".join(f"{c},1\n" for c in ids[:16])).encode(), rater="gap")
    open_page(page, f"{server}/human", words["title"], width)
    panel = page.get_by_test_id("stDataFrame").last
    expect(panel).to_be_visible(timeout=WAIT_MS)
    picture(page, f"human-two-raters-id-gap-{language}-{width}", width)


@pytest.mark.parametrize("language", list(SHOTS))
def test_the_data_page_says_how_many_labels_a_grown_file_keeps(
    page: Page,
    server: str,
    workspace: Workspace,
    tmp_path: Path,
    language: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    width, words = SHOTS[language], WORDS[language]
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(workspace.directory))  # the server's uploads, read here too
    workspace.store.set(SETTING_LANGUAGE, language)
    workspace.human.set_rater("ana")
    rows = "id,question,answer,response\n" + "".join(f"s{n},q {n},a {n},r {n}\n" for n in range(60))
    grown = tmp_path / "support80.csv"
    grown.write_text(rows + "".join(f"s{n},q {n},a {n},r {n}\n" for n in range(60, 80)))
    workspace.data.save_choice(str(workspace.data.save_upload("support.csv", io.BytesIO(rows.encode()))))
    assert workspace.data.in_use().problem is None
    for n in range(60):
        workspace.human.set_score(f"s{n}", float(n % 2))
    open_page(page, f"{server}/data", words["data"], width)
    page.get_by_text(words["file"], exact=True).click()
    wait_for_app_run(page)
    page.get_by_test_id("stFileUploader").first.locator('input[type="file"]').set_input_files(str(grown))
    expect(page.get_by_role("heading", name="support80.csv")).to_be_visible(timeout=WAIT_MS)
    wait_for_app_run(page)
    page.get_by_role("button", name=words["use"]).click()
    said = page.get_by_test_id("stAlert").filter(has_text="support80.csv").filter(has_text="support.csv")
    expect(said).to_be_visible(timeout=WAIT_MS)
    picture(page, f"data-labels-kept-{language}-{width}", width)


@pytest.mark.parametrize("language", list(SHOTS))
def test_the_author_pages_upload_says_what_it_loaded(
    page: Page, server: str, workspace: Workspace, tmp_path: Path, language: str
) -> None:
    width = SHOTS[language]
    workspace.store.set(SETTING_LANGUAGE, language)
    metric = tmp_path / "uploaded.py"
    metric.write_text("def score(input, output):\n    return 1.0, {'feedback': 'from the uploaded file'}\n")
    title, expander = (
        ("Author metric.py", "Upload metric.py or a .zip of the metric folder")
        if language == "en"
        else ("编写 metric.py", "上传 metric.py 或指标文件夹的 .zip")
    )
    open_page(page, server, title, width)
    page.get_by_text(expander, exact=True).click()
    page.get_by_test_id("stFileUploader").first.locator('input[type="file"]').set_input_files(str(metric))
    expect(page.get_by_test_id("stAlert").filter(has_text="uploaded.py")).to_be_visible(timeout=WAIT_MS)
    picture(page, f"author-upload-{language}-{width}", width)
