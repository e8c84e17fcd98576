"""The browser tests' fixtures: a studio server for each module (shared by the modules that need nothing of their
own), and a fresh studio and Streamlit session for every test.

- ``app_server`` (module): ``streamlit run`` of ``server_script`` (``app.py``) with ``server_env``; a module
  overrides those two fixtures to run another app or add variables (a model server's URL, a short grace), or
  sets ``OWN_SERVER = True`` for a server of its own. The other modules share their worker's one studio server
  (``shared_server``): a server's start costs seconds of CPU, and every test empties the studio anyway.
- ``server`` (test): the module's server, its workspace emptied first through the workspace API (no draft,
  version, setting, run, mark or upload left by an earlier test), as its URL.
- ``workspace`` (test): that workspace, to seed what the test starts from (a draft, a run, a language).
- ``page`` (test): a browser tab on ``about:blank`` with nothing stored, so a new Streamlit session with nothing in
  it. The tab is reused from test to test (see ``tab``), which saves each test's first page load about half
  its CPU; a test that failed, or closed its tab, leaves the next test a new one.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Error as PlaywrightError

from skynet_core.workspace import Workspace
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, AppServer, start_server, stop_server

WAIT_MS = 30_000  # generous: a shared machine can be slow; a passing assertion returns as soon as it holds
VIEWPORT = {"width": 1500, "height": 1500}
# Every tab's pages draw without CSS animations or transitions. While anything moved (the running man, a
# spinner, a skeleton, a fading stale element), the renderer drew the whole 1500 × 1500 page again every frame:
# without them a module's run cost about 8% less CPU in all (tests/e2e/test_runs_e2e.py: 27 s against 30, three
# runs each; measured with /usr/bin/chromium 156, 6 December 2026). What a test waits for appears and goes
# as before, at once instead of after its transition.
STILL = """document.addEventListener("DOMContentLoaded", () => {
  const style = document.createElement("style");
  style.textContent = "*, *::before, *::after { animation: none !important; transition: none !important; }";
  document.head.appendChild(style);
});"""
FAILED = pytest.StashKey[bool]()


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here is a browser test (the ``e2e`` marker), and slow."""
    for item in items:
        if "/e2e/" in str(item.path):
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def server_script() -> str:
    return "serve.py"


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {}


@pytest.fixture(scope="session")
def shared_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppServer]:
    """The worker's studio server for the modules that need nothing of their own, started at first use."""
    data_dir = tmp_path_factory.mktemp("skynet-e2e-shared")
    process, url = start_server(data_dir)
    yield AppServer(url, data_dir)
    stop_server(process)


@pytest.fixture(scope="module")
def app_server(
    request: pytest.FixtureRequest,
    tmp_path_factory: pytest.TempPathFactory,
    server_script: str,
    server_env: dict[str, str],
) -> Iterator[AppServer]:
    if server_script == "serve.py" and not server_env and not getattr(request.module, "OWN_SERVER", False):
        yield request.getfixturevalue("shared_server")
        return
    data_dir = tmp_path_factory.mktemp("skynet-e2e")
    process, url = start_server(data_dir, script=server_script, env=server_env)
    yield AppServer(url, data_dir)
    stop_server(process)


@pytest.fixture
def server(app_server: AppServer) -> str:
    """The module's server with an empty studio: whatever an earlier test left is gone."""
    Workspace(app_server.data_dir).clear()
    return app_server.url


@pytest.fixture
def workspace(server: str, app_server: AppServer) -> Workspace:
    """The server's workspace (emptied for this test), to seed what the test starts from."""
    return Workspace(app_server.data_dir)


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    playwright_api = pytest.importorskip("playwright.sync_api")
    playwright_api.expect.set_options(timeout=WAIT_MS)
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """Note on the test that a phase of it failed (``page`` then gives the next test a new tab)."""
    report = yield
    if report.failed:
        item.stash[FAILED] = True
    return report


class Tab:
    """The worker's reusable browser tab.

    A new browser context costs a page load about 3.5 s of Chromium's CPU, a tab that loaded the studio before
    about 1.5 s: the renderer process and the scripts it compiled are kept (measured on this machine, 2 December
    2026). Every test still gets a new Streamlit session with nothing stored: between tests the tab's storage
    and cookies are cleared, its extra pages closed, and it goes to ``about:blank`` (which ends the session).
    Whatever could carry more than that (a failed test, a closed tab, a step that would not go) discards the
    whole context instead.
    """

    def __init__(self, browser: Any) -> None:
        self.browser = browser
        self.context: Any = None
        self.page: Any = None

    def take(self) -> Any:
        """The tab, new if there is none, at the default size and timeout."""
        if self.page is None or self.page.is_closed():
            self.discard()
            self.context = self.browser.new_context(viewport=VIEWPORT)
            self.context.add_init_script(STILL)
            self.page = self.context.new_page()
        self.page.set_viewport_size(VIEWPORT)
        self.page.set_default_timeout(WAIT_MS)
        return self.page

    def give_back(self, clean: bool) -> None:
        """After a test: clear the tab for the next one, or discard it when the test failed or it will not clear."""
        if not clean or self.page is None or self.page.is_closed():
            self.discard()
            return
        try:
            for other in self.context.pages:
                if other is not self.page:
                    other.close()
            if self.page.url.startswith("http"):
                self.page.evaluate("() => { localStorage.clear(); sessionStorage.clear(); }")
            self.page.goto("about:blank")
            self.context.clear_cookies()
            self.context.clear_permissions()
        except PlaywrightError:
            self.discard()

    def discard(self) -> None:
        if self.context is not None:
            try:
                self.context.close()
            except PlaywrightError:
                pass  # its browser already closed it
        self.context = self.page = None


@pytest.fixture(scope="session")
def tab(browser: Any) -> Iterator[Tab]:
    reusable = Tab(browser)
    yield reusable
    reusable.discard()


@pytest.fixture
def page(tab: Tab, request: pytest.FixtureRequest) -> Iterator[Any]:
    yield tab.take()
    tab.give_back(clean=not request.node.stash.get(FAILED, False))
