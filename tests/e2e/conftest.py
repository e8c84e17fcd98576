"""A real server and a real browser: `streamlit run app.py` on a free port, Debian's Chromium through Playwright."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
# Screenshots go to a temporary folder, never into the repository ($SKYNET_SCREENSHOTS to choose one).
ARTIFACTS = Path(os.environ.get("SKYNET_SCREENSHOTS") or Path(tempfile.gettempdir()) / "skynet-screenshots")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(
    data_dir: Path, port: int | None = None, script: str = "app.py", env: dict[str, str] | None = None
) -> tuple[subprocess.Popen, str]:
    """Start the app (or another ``script``) with its data in ``data_dir``; return the process and its URL once it
    answers. ``env`` adds variables to the server's environment."""
    port = port or free_port()
    env = {**os.environ, **(env or {}), "SKYNET_DATA_DIR": str(data_dir)}
    log = (data_dir / "server.log").open("ab")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            script,
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.headless",
            "true",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"streamlit exited with {process.returncode}; see {data_dir / 'server.log'}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as reply:
                if reply.status == 200:
                    return process, url
        except OSError:
            time.sleep(0.2)
    stop_server(process)
    raise RuntimeError(f"streamlit did not answer on {url} within 30 s")


def stop_server(process: subprocess.Popen) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    data_dir = tmp_path_factory.mktemp("skynet-data")
    process, url = start_server(data_dir)
    yield url
    stop_server(process)


@pytest.fixture(scope="session")
def browser() -> Iterator:
    playwright_api = pytest.importorskip("playwright.sync_api")
    if not Path(CHROMIUM).exists():
        pytest.skip(f"{CHROMIUM} is not installed (apt-get install chromium)")
    with playwright_api.sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def page(browser) -> Iterator:
    from playwright.sync_api import expect

    # Generous waits: a shared CI machine can be slow; a passing assertion returns as soon as it holds.
    expect.set_options(timeout=15_000)
    context = browser.new_context(viewport={"width": 1500, "height": 1500})
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def wait_for_app_run(page, settle_ms: int = 150, timeout_ms: int = 20_000) -> None:
    """Wait until the app has finished the script run an action started (instead of sleeping).

    Streamlit marks its root element with the connection and script-run state; a run starts a
    moment after the click or keystroke that asks for it, hence the short settle before and after.
    """
    page.wait_for_timeout(settle_ms)
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)
    page.wait_for_timeout(settle_ms)


def shot(page, name: str) -> Path:
    """Save a full-page screenshot to NAME.png in the screenshots folder (see ARTIFACTS)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
