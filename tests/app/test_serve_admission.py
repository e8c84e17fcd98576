"""The README's server (``streamlit run serve.py``) answers its health check ahead of page work: the admission
(``skynet_core.http_admission.HealthFirst``, tested on its own in tests/core) is its outermost middleware, around
the pages and files served from memory, and knows the health check's address under the server's base path; the
root and each page's address are answered from memory, compressed once. Checked in a
fresh Python, as a server starts (see test_serve.py: importing serve pins Streamlit's config)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PROBE = """
import json, sys
from streamlit import config
if sys.argv[1]:
    config.set_option("server.baseUrlPath", sys.argv[1])  # as --server.baseUrlPath does before serve is imported
import serve
print(json.dumps([[item.cls.__name__, item.kwargs] for item in serve.app._user_middleware]))
"""


def probed(tmp_path: Path, probe: str, *args: str) -> Any:
    """What ``probe`` printed last (as JSON), run in a fresh Python from the project's folder, as a server starts."""
    done = subprocess.run(
        [sys.executable, "-c", probe, *args],
        cwd=ROOT,
        env={"PATH": "/usr/bin:/bin", "SKYNET_DATA_DIR": str(tmp_path), "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return json.loads(done.stdout.strip().splitlines()[-1])


def middleware(tmp_path: Path, base_path: str = "") -> list[list[object]]:
    found: list[list[object]] = probed(tmp_path, PROBE, base_path)
    return found


def test_the_health_check_is_admitted_ahead_of_page_work(tmp_path: Path) -> None:
    assert middleware(tmp_path) == [
        ["HealthFirst", {"health_paths": ["/_stcore/health"]}],
        ["PagesFromMemory", {}],
        ["AssetsFromMemory", {}],
        ["ComponentFilesRevalidated", {}],
    ]


def test_the_health_checks_address_follows_the_base_path(tmp_path: Path) -> None:
    found = middleware(tmp_path, "studio")
    assert found[0] == ["HealthFirst", {"health_paths": ["/studio/_stcore/health"]}]


PAGES_PROBE = """
import gzip, json
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient
import serve

def streamlit(scope, receive, send):  # what the request would reach without the middleware
    return PlainTextResponse("streamlit", headers={"x-answered-by": "streamlit"})(scope, receive, send)

client = TestClient(serve.PagesFromMemory(streamlit))
zipped = client.get("/data", headers={"Accept-Encoding": "gzip, deflate"})
plain = client.get("/", headers={"Accept-Encoding": "identity"})
print(json.dumps({
    "zipped": [zipped.headers.get("content-encoding"), zipped.text == serve.page_html()],
    "plain": [plain.headers.get("content-encoding"), plain.text == serve.page_html()],
    "cache": zipped.headers["cache-control"],
    "head": client.head("/data").headers.get("x-answered-by"),
    "other": client.get("/_stcore/host-config").headers.get("x-answered-by"),
}))
"""


def test_the_root_and_pages_are_answered_from_memory_compressed_once(tmp_path: Path) -> None:
    report = probed(tmp_path, PAGES_PROBE)
    assert report["zipped"] == ["gzip", True] and report["plain"] == [None, True]  # the client unpacks it
    assert report["cache"] == "no-cache"  # as Streamlit serves its page
    assert report["head"] == "streamlit" and report["other"] == "streamlit"  # the rest goes on
