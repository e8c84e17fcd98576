"""What a page shows on a revisit, and in a second tab: the Data page's file in use (issue 23 item 9), the
reflection step's text (item 11), a notice in a tab whose text is older than the stored draft (item 12), and
page strings in Chinese (the Data preview's row numbers, the Settings page's key line, the model review's
"metric model")."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from skynet_core.datasets import Role
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.workspace import Workspace
from tests.case_factory import with_weak_run
from tests.e2e.browser import shot, wait_for_app_run
from tests.e2e.editor_moves import PASSES, go_to, open_author, type_metric

REVIEWS = "id,review,label,prediction\n" + "".join(
    f"r{i:02d},Review number {i},{'pos' if i % 2 else 'neg'},{'pos' if i % 3 else 'neg'}\n" for i in range(40)
)
TYPED_TEXT = "Classify the review as pos or neg; answer with the label alone."
OTHER_TAB = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'typed in the other tab'}\n"


def test_a_revisit_shows_the_data_file_in_use_and_keeps_the_reflection_text(
    page: Page, server: str, workspace: Workspace
) -> None:
    """One session (each behaviour once had a test and an Author page load of its own): the Data page shows the
    file in use on a revisit (item 9), and the reflection step's text survives a visit to another page (item 11)."""
    path = workspace.directory / "reviews.csv"
    path.write_text(REVIEWS, encoding="utf-8")
    roles = {"id": (Role.ID, ""), "review": (Role.INPUT, "review"), "label": (Role.EXPECTED, "label")}
    workspace.data.save_choice(str(path), {**roles, "prediction": (Role.OUTPUT, "")})
    open_author(page, server)
    page.get_by_text("Try one reflection step: would this feedback help an optimizer?").click()
    field = page.get_by_label("The text being optimized", exact=False)
    field.fill(TYPED_TEXT)
    field.press("Control+Enter")  # a text area's value is sent on Ctrl+Enter or blur
    wait_for_app_run(page)
    go_to(page, "Data")
    expect(page.get_by_role("heading", name="reviews.csv")).to_be_visible()
    go_to(page, "Author")
    # The reflection text survives the visit to the Data page.
    page.get_by_text("Try one reflection step: would this feedback help an optimizer?").click()
    expect(page.get_by_label("The text being optimized", exact=False)).to_have_value(TYPED_TEXT)
    # The Data page shows the file in use on a revisit.
    go_to(page, "Data")
    expect(page.get_by_text("In use: reviews · 40 cases", exact=False)).to_be_visible()
    expect(page.get_by_role("heading", name="reviews.csv")).to_be_visible()
    expect(page.get_by_text("72 support tickets", exact=False)).to_have_count(0)  # not the bundled example
    shot(page, "revisit-data")


def test_a_tab_with_an_older_text_says_so_without_typing_or_reloading(page: Page, server: str) -> None:
    open_author(page, server)
    expect(page.get_by_text(PASSES)).to_be_visible()
    other = page.context.new_page()
    open_author(other, server)
    type_metric(other, OTHER_TAB)
    expect(other.get_by_text("typed in the other tab").first).to_be_attached()
    expect(page.get_by_text("metric.py was changed in another tab", exact=False)).to_be_visible(timeout=15_000)
    shot(page, "revisit-older-tab")
    other.close()


def test_page_strings_in_chinese(page: Page, server: str, workspace: Workspace) -> None:
    workspace.settings.set_language("zh_CN")
    with_weak_run(workspace)
    workspace.settings.save_models(ModelSettings(metric=ModelConfig("openai/judge", "http://127.0.0.1:9")))
    page.goto(f"{server}/feedback")
    page.get_by_text("模型审查（可选）", exact=False).first.click()
    expect(page.get_by_text("（指标模型）", exact=False).first).to_be_visible()
    expect(page.get_by_text("metric model", exact=False)).to_have_count(0)
    page.goto(f"{server}/data")
    preview = page.get_by_test_id("stDataFrame").first
    expect(preview.locator("[role=columnheader]").first).to_have_text("行")
    page.goto(f"{server}/settings")
    panel = page.locator(".st-key-settings-panel-metric")
    field = panel.get_by_label("本会话的 API 密钥（可选）", exact=True)
    field.fill("sk-typed-in-the-browser-1234")
    field.press("Enter")
    wait_for_app_run(page)
    page.get_by_role("button", name="保存设置").click()
    wait_for_app_run(page)
    expect(panel.get_by_text("已为本会话输入", exact=False)).to_be_visible()
    expect(panel.get_by_text("typed in for this session", exact=False)).to_have_count(0)
    shot(page, "revisit-settings-zh")
