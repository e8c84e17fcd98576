"""The browser tests' fixtures, Streamlit's e2e convention: one server per test module, with its own data
directory, and a fresh studio for every test.

- ``app_server`` (module): ``streamlit run`` of ``server_script`` (``app.py``) with ``server_env``; a module
  overrides those two fixtures to run another app or add variables (a model server's URL, a short grace).
- ``server`` (test): the module's server, its workspace emptied first through the workspace API (no draft,
  version, setting, run, mark or upload left by an earlier test), as its URL.
- ``workspace`` (test): that workspace, to seed what the test starts from (a draft, a run, a language).
- ``page`` (test): a new browser context, so a new Streamlit session with nothing in it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skynet_core.workspace import Workspace
from tests.e2e.browser import CHROMIUM, CHROMIUM_ARGS, AppServer, start_server, stop_server

WAIT_MS = 30_000  # generous: a shared machine can be slow; a passing assertion returns as soon as it holds


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test here is a browser test (the ``e2e`` marker), and slow."""
    for item in items:
        if "/e2e/" in str(item.path):
            item.add_marker(pytest.mark.e2e)
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="module")
def server_script() -> str:
    return "app.py"


@pytest.fixture(scope="module")
def server_env() -> dict[str, str]:
    return {}


@pytest.fixture(scope="module")
def app_server(
    tmp_path_factory: pytest.TempPathFactory, server_script: str, server_env: dict[str, str]
) -> Iterator[AppServer]:
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


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1500, "height": 1500})
    page = context.new_page()
    page.set_default_timeout(WAIT_MS)
    yield page
    context.close()
