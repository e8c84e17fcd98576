""" "Align the judge" on the Human scores page in headless Chromium, against scripted judge and reflection models on
127.0.0.1 (tests/align_world.py: people fail refunds promised without an order number, and say so in their notes).

A person opens the section, sees the plan's calls before anything runs, starts the alignment, and reads the result:
the verdict, the test figures before and after, the prompts' diff and the rounds chart; "Save as a version" writes a
version and leaves the draft alone. Screenshots of the result in English at 1400 px and in Chinese at 1000 px.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect

from skynet_core.paths import DATA_ROOTS_ENV
from skynet_core.workspace import Workspace
from tests import align_world as world
from tests.e2e.browser import assert_readable_picture, shot, wait_for_app_run
from tests.e2e.editor_moves import enter_number, pick_language, start_job
from tests.fake_openai import FakeOpenAI

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")
pytestmark = pytest.mark.timeout(900)  # litellm's first import and a whole run, on a machine that may be busy

RUN_MS = 300_000
LITELLM_MS = 240_000
SECTION = {"en": "Align the judge: let GEPA rewrite", "zh_CN": "校准评审"}
# The world's first 40 cases of its 48: the fewest whose test part (a quarter, 10 cases, stratified) still gives
# the gain an interval (skynet_core.human.report.MIN_LABELLED), so the verdict is the one of a real gain; 4 of the
# 40 are rude, 16 refunds promised blindly (the judge's disagreements), 20 good. The run judges each case in the
# sandbox, against the models on 127.0.0.1, several times: 40 cases ask the models 207 times against 247.
CASES = 40
TEST_CASES = 10


@pytest.fixture(scope="module")
def models() -> Iterator[FakeOpenAI]:
    with world.server() as server:
        yield server


@pytest.fixture(scope="module")
def server_env(models: FakeOpenAI) -> dict[str, str]:
    return {**world.environment(models.url), "OPENAI_API_KEY": "sk-test-unused"}


def seed(
    workspace: Workspace,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    *,
    labels: int = CASES,
    metric: str = world.METRIC,
) -> None:
    """The world's judge as the draft, its replies as the data in use (an upload), and ana's labels with notes (this
    process reads the server's uploads, to key the labels by the dataset the server loads)."""
    monkeypatch.setenv(DATA_ROOTS_ENV, str(workspace.directory))
    _metric, cases, labels_file = world.write(tmp_path, count=CASES)
    path = workspace.data.save_upload("replies.jsonl", io.BytesIO(cases.read_bytes()))
    workspace.data.save_choice(str(path))
    workspace.drafts.replace(metric, "the test")
    workspace.human.set_rater("ana")
    rows = labels_file.read_text().splitlines()[:labels]
    workspace.human.import_scores("labels.jsonl", ("\n".join(rows) + "\n").encode())


def open_section(page: Page, url: str, language: str = "en") -> None:
    page.goto(f"{url}/human")
    title = "人工评分" if language == "zh_CN" else "Human scores"
    expect(page.get_by_role("heading", name=title, exact=True)).to_be_visible(timeout=60_000)
    wait_for_app_run(page)
    page.locator("summary").filter(has_text=SECTION[language]).click()
    wait_for_app_run(page, timeout_ms=LITELLM_MS)  # the plan prices the calls: the server's first one loads litellm


def test_the_judge_is_aligned_from_the_page_and_saved_as_a_version(
    page: Page, server: str, workspace: Workspace, models: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(workspace, tmp_path, monkeypatch)
    draft = workspace.drafts.current()
    page.set_viewport_size({"width": 1400, "height": 1400})
    open_section(page, server)
    expect(page.get_by_text("Planned: at most", exact=False)).to_be_visible(timeout=LITELLM_MS)
    assert models.requests == []  # the plan is shown before anything is asked of a model
    enter_number(page, "Rounds", 2)
    expect(page.get_by_text("2 reflection calls (2 rounds)", exact=False)).to_be_visible()
    verdict = page.get_by_text(
        f"The aligned judge agrees better with people on the {TEST_CASES} test cases it never saw"
    )
    start_job(page, page.get_by_role("button", name="Align the judge"), verdict, RUN_MS)
    expect(page.locator("code").filter(has_text=f"+{world.POLICY}").first).to_be_visible()
    page.get_by_text("Calls that reached a model", exact=False).scroll_into_view_if_needed()  # charts draw in view
    charts = page.get_by_test_id("stPlotlyChart")
    expect(charts.filter(has_text="round by round")).to_have_count(1)
    expect(charts.filter(has_text="before and after")).to_have_count(1)
    expect(page.get_by_text("Gain in κ", exact=False)).to_be_visible()

    page.get_by_role("button", name="Save as a version").click()
    expect(page.get_by_text("Saved as the version “aligned judge”", exact=False)).to_be_visible()
    assert workspace.drafts.current() == draft  # the draft is never replaced unasked
    saved = next(version for version in workspace.drafts.versions() if version.name == "aligned judge")
    text = saved.folder.files["metric.py"]
    assert world.POLICY in text and text.replace(world.POLICY + "\n", "") == world.METRIC

    charts.filter(has_text="round by round").scroll_into_view_if_needed()
    wait_for_app_run(page)
    assert_readable_picture(shot(page, "align-en-1400", whole=True), 1400)

    # The same session in Chinese (the sidebar's picker: a rerun, not a second page load).
    page.set_viewport_size({"width": 1000, "height": 1400})
    pick_language(page, "简体中文")
    expect(page.get_by_role("heading", name="人工评分", exact=True)).to_be_visible(timeout=60_000)
    diff = page.get_by_text("提示词的修改前后", exact=False)
    if not diff.is_visible():  # the section, drawn again under its Chinese title, is closed
        page.locator("summary").filter(has_text=SECTION["zh_CN"]).click()
        wait_for_app_run(page, timeout_ms=LITELLM_MS)
    expect(diff).to_be_visible(timeout=60_000)
    page.get_by_text("实际到达模型的调用", exact=False).scroll_into_view_if_needed()
    expect(page.get_by_test_id("stPlotlyChart").filter(has_text="逐轮")).to_have_count(1)
    wait_for_app_run(page)
    assert_readable_picture(shot(page, "align-zh_CN-1000", whole=True), 1000)


def test_too_few_labels_are_refused_with_what_to_do(
    page: Page, server: str, workspace: Workspace, models: FakeOpenAI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seed(workspace, tmp_path, monkeypatch, labels=12, metric=world.METRIC + "\n# too few labels\n")
    asked = len(models.requests)
    open_section(page, server)
    expect(page.get_by_text("at least 20 labelled cases", exact=False)).to_be_visible(timeout=LITELLM_MS)
    expect(page.get_by_role("button", name="Align the judge")).to_be_disabled()
    assert len(models.requests) == asked
