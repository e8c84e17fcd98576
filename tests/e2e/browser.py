"""The browser tests' tools: a real server (`streamlit run serve.py`, the README's command, on a free port), the
one wait for a script run, screenshots, and what a screenshot must show.

Debian's Chromium through Playwright. The fixtures that use these are in ``tests/e2e/conftest.py``.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

RUNNING = '[data-testid="stApp"][data-test-script-state="running"]'
# Text shown literally (ui.widgets.text.box): a text element in a container keyed literal-….
LITERAL = '[class*="st-key-literal-"] [data-testid="stText"]'

# The checkout whose app the servers run: this one, or $SKYNET_E2E_APP_ROOT (to watch a new test fail on an
# earlier tree first, e.g. a copy of main).
ROOT = Path(os.environ.get("SKYNET_E2E_APP_ROOT") or Path(__file__).resolve().parents[2])
# Screenshots go to a temporary folder, never into the repository ($SKYNET_SCREENSHOTS to choose one).
ARTIFACTS = Path(os.environ.get("SKYNET_SCREENSHOTS") or Path(tempfile.gettempdir()) / "skynet-screenshots")
# Debian's Chromium: its old headless shell where it is installed (``scripts/setup.sh --dev`` installs it), which
# draws the same pages with the same Blink for about an eighth less CPU than the whole browser run headless
# (docs/testing.md); the whole browser otherwise. $SKYNET_CHROMIUM chooses another.
# The benchmarks time pages as a person's browser draws them: the whole browser (WHOLE_BROWSER) always.
WHOLE_BROWSER = "/usr/bin/chromium"
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"
CHROMIUM = os.environ.get("SKYNET_CHROMIUM") or (HEADLESS_SHELL if os.path.exists(HEADLESS_SHELL) else WHOLE_BROWSER)
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--headless",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
START_TIMEOUT_S = 60
# The widths every changed page is looked at: a wide window, and a narrow one where columns wrap.
WIDTHS = (1400, 1000)


@dataclass(frozen=True)
class AppServer:
    """A running studio server: where it answers, and its data directory."""

    url: str
    data_dir: Path


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(
    data_dir: Path,
    port: int | None = None,
    script: str = "serve.py",
    env: dict[str, str] | None = None,
    root: Path = ROOT,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start the app (or another ``script``) of the checkout ``root`` with its data in ``data_dir``; return the
    process and its URL once it answers. ``env`` adds variables to the server's environment. Another checkout runs
    with its own ``.venv`` when it has one."""
    port = port or free_port()
    environment = {**os.environ, **(env or {}), "SKYNET_DATA_DIR": str(data_dir)}
    log = (data_dir / "server.log").open("ab")
    own_python = root / ".venv" / "bin" / "python"
    process = subprocess.Popen(
        [
            str(own_python) if root != ROOT and own_python.exists() else sys.executable,
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
        cwd=root,
        env=environment,
        stdout=log,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + START_TIMEOUT_S
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
    raise RuntimeError(f"streamlit did not answer on {url} within {START_TIMEOUT_S} s")


def stop_server(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is None:
        process.terminate()
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(5)


def wait_for_app_run(page: Any, settle_ms: int = 150, timeout_ms: int = 60_000) -> None:
    """Wait until the app has finished the script run an action started (instead of sleeping).

    Streamlit marks its root element with the connection and script-run state. A run starts a moment after
    the click or keystroke that asks for it: it is given up to ``settle_ms`` to start (no longer than it takes
    to), then its end is awaited, with a short settle after it for the page to draw.
    """
    try:
        page.wait_for_selector(RUNNING, timeout=settle_ms)
    except PlaywrightTimeoutError:
        pass  # none started (nothing asked for one), or it started and ended meanwhile
    page.wait_for_selector('[data-testid="stApp"][data-test-connection-state="CONNECTED"]', timeout=timeout_ms)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]', timeout=timeout_ms)
    page.wait_for_timeout(settle_ms)


def at_widths(page: Any, widths: tuple[int, ...] = WIDTHS) -> Iterator[int]:
    """Each width in turn, the window resized to it (its height kept) and the app settled after, as a person
    narrowing the window sees the page: one flow gives the screenshots of both widths."""
    for width in widths:
        if page.viewport_size["width"] != width:
            page.set_viewport_size({"width": width, "height": page.viewport_size["height"]})
            page.wait_for_timeout(300)  # the layout (and plotly's charts) follow the new width
            wait_for_app_run(page)
        yield width


def shot(page: Any, name: str, *, whole: bool = False) -> Path:
    """Save a screenshot to NAME.png in the screenshots folder (see ARTIFACTS) and return its path.

    ``whole``: the whole page. Streamlit scrolls inside its main pane, so the window is made as tall as
    the pane's content first (a few times: charts re-lay themselves out), then set back.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    size = page.viewport_size
    if whole:
        pane = "document.querySelector('[data-testid=\"stMain\"]')"
        for _attempt in range(4):
            height = int(page.evaluate(f"{pane}.scrollHeight"))
            if height <= page.viewport_size["height"]:
                break
            page.set_viewport_size({"width": size["width"], "height": height + 40})
            wait_for_app_run(page)
    page.screenshot(path=str(path), full_page=True)
    if whole:
        page.set_viewport_size(size)
    return path


def assert_readable_picture(path: Path, width: int) -> None:
    """What a person needs from a screenshot of a page at ``width`` px: nothing sticks out to the right (the
    picture is as wide as the window), and it is not blank: the main pane holds text (dark pixels) in its
    top rows and further down."""
    from PIL import Image

    with Image.open(path) as image:
        picture = image.convert("L")
    assert picture.width == width, f"{path.name}: {picture.width} px wide in a {width} px window (something overflows)"
    main = picture.crop((int(width * 0.3), 0, width, picture.height))
    top = main.crop((0, 0, main.width, min(main.height, 400)))
    rest = main.crop((0, min(main.height, 400), main.width, main.height))
    for part, where in ((top, "the top of the page"), (rest, "below its top")):
        histogram = part.histogram()
        dark = sum(histogram[:100]) / max(1, part.width * part.height)
        assert dark > 0.001, f"{path.name}: no text in {where} (dark share {dark:.5f})"
