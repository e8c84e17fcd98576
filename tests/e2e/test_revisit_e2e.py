"""A tab whose editor shows an older text than the stored draft says so at once, without typing or reloading (issue
23 item 12): the editor's polling fragment, which only a browser runs on its own. Another tab's typing is the
workspace's write, made here in the test process.

The other revisit checks run through AppTest: the Data page's file in use and the reflection step's text after a
visit (tests/app/test_app_author.py::test_the_reflection_text_survives_a_visit_to_data_which_shows_the_file_in_use),
and the page strings in Chinese (tests/app/test_app_data.py, test_app_feedback.py, test_app_settings.py)."""

from __future__ import annotations

from playwright.sync_api import Page, expect

from skynet_core.workspace import Workspace
from tests.e2e.editor_moves import PASSES, open_author, wait_for_editor_text

OTHER_TAB = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'typed in the other tab'}\n"


def test_a_tab_with_an_older_text_says_so_without_typing_or_reloading(
    page: Page, server: str, workspace: Workspace
) -> None:
    open_author(page, server)
    expect(page.get_by_text(PASSES)).to_be_visible()
    shown = workspace.drafts.current().revision
    workspace.drafts.type(OTHER_TAB, shown)  # another tab typed, from the text both tabs showed
    older = page.get_by_text("metric.py was changed in another tab: this editor shows an older text", exact=False)
    expect(older).to_be_visible(timeout=15_000)
    page.get_by_role("button", name="Show the latest text").click()
    assert wait_for_editor_text(page, lambda text: text == OTHER_TAB) == OTHER_TAB
    expect(older).to_have_count(0)
