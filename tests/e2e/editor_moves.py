"""What a person does again and again in the studio, as browser moves: open the Author page, type into its
editor, read the editor back, go to another page, pick an option."""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Locator, Page, expect

from skynet_core.examples import EXAMPLE_METRICS
from tests.e2e.browser import wait_for_app_run

EDITOR = 'iframe[title="code_editor.code_editor"]'
PASSES = "The metric meets the contract."
# A metric that never returns, idly: each call waits until the runner stops it (a spinning loop would take
# every core for the whole test and starve the other browser tests running beside it).
LOOPS = "import time\n\ndef score(input, output, expected=None):\n    while True:\n        time.sleep(0.05)\n"


def open_author(page: Page, url: str, *, editor: bool = True) -> None:
    """The Author page, once its check panel and (with ``editor``) its editor have drawn."""
    page.goto(url)
    expect(page.get_by_text("Contract check", exact=True)).to_be_visible(timeout=60_000)
    if editor:
        page.frame_locator(EDITOR).locator(".ace_content").wait_for(timeout=60_000)  # its component loads last


def type_metric(page: Page, text: str) -> None:
    """Click into the editor, select everything, and type ``text`` over it."""
    expect(page.locator(EDITOR)).to_have_count(1)
    page.frame_locator(EDITOR).locator(".ace_content").click()
    page.keyboard.press("Control+A")
    # insert_text types the whole text at once, as an input method would: Ace's auto-closing
    # brackets and auto-indent would otherwise rewrite key-by-key typing of Python.
    page.keyboard.insert_text(text)


def wait_for_editor_text(page: Page, check: Callable[[str], bool], timeout: float = 10.0) -> str:
    """The editor's text once ``check(text)`` holds (an example or upload replaces the editor)."""
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        try:
            text = (
                page.frame_locator(EDITOR)
                .last.locator("#REACT_ACE_EDITOR")
                .evaluate("el => el.env.editor.getValue()", timeout=2_000)
            )
        except PlaywrightError:  # the old editor's frame went away mid-read
            continue
        if check(text):
            break
        time.sleep(0.1)
    return text


def editor_text(page: Page) -> str:
    expect(page.locator(EDITOR)).to_have_count(1)  # a freshly loaded example replaces the editor
    return str(page.frame_locator(EDITOR).locator("#REACT_ACE_EDITOR").evaluate("el => el.env.editor.getValue()"))


def check_shows(page: Page, feedback: str) -> None:
    """The check passed, and its sampled cases show ``feedback``."""
    expect(page.get_by_text(PASSES)).to_be_visible()
    expect(page.get_by_test_id("stMain").get_by_text(feedback).first).to_be_attached()


def go_to(page: Page, title: str) -> None:
    """Open another page from the sidebar's menu, and wait for its script run to end.

    The address changes when the page's run starts (Streamlit sets it from the run's first message), so waiting
    for it first means the run awaited is that page's: on a loaded machine a run can start later than
    :func:`wait_for_app_run` waits for one to start, and it then returned with the old page still drawn."""
    link = page.get_by_test_id("stSidebarNav").get_by_text(title, exact=True)
    path = _path(link.evaluate("el => el.closest('a').href"))
    link.click()
    page.wait_for_url(lambda url: _path(url) == path)
    wait_for_app_run(page)


def _path(url: str) -> str:
    return urlsplit(url).path.rstrip("/")


def choose(page: Page, label: str, option_start: str, where: Any = None) -> None:
    """Pick the option of the select box ``label`` whose text starts with ``option_start``."""
    box = (where or page).get_by_test_id("stSelectbox").filter(has_text=label)
    open_list(page, box)
    page.get_by_role("option").filter(has_text=re.compile("^" + re.escape(option_start))).first.click()
    wait_for_app_run(page)


def open_list(page: Page, box: Any, attempts: int = 4) -> None:
    """Open a select box's list. A rerun that lands just after the click draws the box again, closed (seen on a
    loaded machine): then the list never shows, so wait for the app to settle and click again."""
    for attempt in range(attempts):
        wait_for_app_run(page)
        box.click()
        try:
            page.get_by_role("listbox").first.wait_for(state="visible", timeout=10_000)
            return
        except PlaywrightError:
            if attempt == attempts - 1:
                raise
            page.keyboard.press("Escape")


def pick_language(page: Page, name: str) -> None:
    """The sidebar's language picker: ``name`` as it lists it ("English", "简体中文"). The picker is left
    unfocused, as a person clicking elsewhere leaves it (a screenshot then shows no focus ring on it)."""
    open_list(page, page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox"))
    page.get_by_role("option", name=name).click()
    wait_for_app_run(page)
    page.evaluate("() => document.activeElement && document.activeElement.blur()")


def act_until(act: Callable[[], None], effect: Callable[[int], None], timeout_s: float = 90.0) -> None:
    """Do ``act`` until ``effect(timeout_ms)`` (an ``expect``) holds, as a person clicks again when nothing
    happened. On a loaded machine a click can land on a node a rerun has just replaced, or on a chart still
    moving; such a click is lost, so it is tried again until its effect shows (and not again once it has)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        try:
            effect(500)
            return
        except AssertionError:
            pass
        try:
            act()
        except PlaywrightError:
            pass
        try:
            effect(15_000)
            return
        except AssertionError:
            continue
    effect(1_000)


def click(button: Locator) -> Callable[[], None]:
    """A click on ``button``; when it will not stand still, the event goes to the node found now."""

    def act() -> None:
        try:
            button.first.click(timeout=5_000)
        except PlaywrightError:
            button.first.dispatch_event("click", timeout=2_000)

    return act


def click_until_shown(button: Locator, shown: Locator, timeout_s: float = 90.0) -> None:
    """Click ``button`` until ``shown`` is visible (a job's line after its start button)."""
    act_until(click(button), lambda ms: expect(shown).to_be_visible(timeout=ms), timeout_s)


def start_job(page: Page, button: Locator, result: Locator, timeout_ms: int = 180_000) -> None:
    """Click ``button`` until its job shows, then wait for ``result``. The job shows as this page draws it: the
    button disabled while the job it started runs, or ``result`` once it has finished.

    A click can be lost on a loaded machine (CI runs lost one right after a page's first run); it is clicked
    again only while nothing at all happened, so a job that started is never started twice. Only this page's
    own signs count: a line in the sidebar's running jobs (which lists every session's) once passed for the
    start of a job whose click was lost, and the test waited for a result that never came."""
    expect(button.first).to_be_enabled(timeout=60_000)
    started = button.first.and_(page.locator("button:disabled"))
    act_until(click(button), lambda ms: expect(result.or_(started).first).to_be_visible(timeout=ms))
    expect(result.first).to_be_visible(timeout=timeout_ms)


def load_example(page: Page, name: str) -> str:
    """Pick the example ``name`` in "Start from an example" and press Load until the editor holds its text
    (a click lost on a loaded machine is made again); returns that text."""
    expected = EXAMPLE_METRICS[name].read_text(encoding="utf-8").strip()
    open_list(page, page.get_by_test_id("stMain").get_by_test_id("stSelectbox").first)
    page.get_by_role("option", name=name).click()
    expect(page.get_by_role("combobox", name="Start from an example")).to_have_value(name)
    wait_for_app_run(page)

    def loaded(timeout_ms: int) -> None:
        text = wait_for_editor_text(page, lambda text: text.strip() == expected, timeout_ms / 1000)
        assert text.strip() == expected, f"the editor does not hold the example {name!r} yet"

    act_until(click(page.get_by_role("button", name="Load", exact=True)), loaded)
    return expected
