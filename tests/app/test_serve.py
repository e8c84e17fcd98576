"""The README's server command (``streamlit run serve.py``) does the first visitor's slow work before it answers:
the app's modules imported, each language's formats loaded, the workspace opened, its spare sandboxes started, and
the draft and the bundled examples that ask no model checked.
Checked in a fresh Python, as a server starts (importing serve here would construct its ``st.App`` in the test
process, which pins Streamlit's script-level config for every later test of the worker)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from skynet_core.store import Store

ROOT = Path(__file__).resolve().parents[2]
MODEL = {"SKYNET_METRIC_MODEL": "openai/judge", "SKYNET_METRIC_API_BASE": "http://127.0.0.1:9/v1"}
# A metric that may ask the model, as far as the preload can tell (it reads, never runs): it names llm. (This one
# never calls it, so the visitor's check here is quick.)
JUDGE = "from skynet import llm\n\n\ndef score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n"
PROBE = """
import json, os, sys
heavy = ("pandas", "pyarrow", "plotly.graph_objects", "pages.author", "pages.settings", "ui.studio")
import serve
before = {name: name in sys.modules for name in heavy}
from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.workspace.jobs import JobSlot
from skynet_core.workspace.values import example_metric
pool = None
for directory, env in json.loads(sys.argv[1]):  # one server start after another, each on its own data directory
    os.environ.update(env, SKYNET_DATA_DIR=directory)
    serve.warm()
    from ui import studio
    workspace = studio.open_workspace()
    pool = workspace.pool
    spares = pool.wait_for_spares(0.0)
    draft = workspace.drafts.current().metric
    visitor = workspace.jobs.check(JobSlot(), draft, keys={})  # a first visitor's check, no key typed
    visitor.wait(60)
    examples = {}
    for title in EXAMPLE_METRICS:  # a visitor loading each bundled example
        loaded = workspace.jobs.check(JobSlot(), example_metric(title), keys={})
        loaded.wait(60)
        examples[title] = not loaded.partial  # remembered: no case run
    print(json.dumps({
        "examples remembered": examples,
        "before": before,
        "after": {name: name in sys.modules for name in heavy},
        "spares": spares,
        "components": [name for name in ("code_editor",) if name in sys.modules],
        "litellm": "litellm" in sys.modules,
        "script": str(serve.app.script_path),
        "visitor's check ran again": bool(visitor.partial),  # a run records each case; a remembered report none
        "visitor's check passed": visitor.result is not None and visitor.result.ok,
    }), flush=True)
pool.close()
"""


@pytest.fixture(scope="module")
def warmed(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """What a fresh Python holds after each of three ``serve.warm()`` calls, as three servers would start one after
    the other: no model configured; then a model configured in the environment (the draft the example); then the same
    with a draft that names ``llm``. Each on its own data directory, so each opens its own workspace (its own
    remembered checks) and the first sees no model. One Python for the three: each start's imports and litellm's
    are seconds of CPU, and ``serve.warm()`` reads the data directory and the model variables at each call."""
    home = tmp_path_factory.mktemp("warm")
    starts = {"no model": home / "plain", "model": home / "model", "judge": home / "judge"}
    Store(starts["judge"]).save_draft(JUDGE)
    plan = [[str(starts["no model"]), {}], [str(starts["model"]), MODEL], [str(starts["judge"]), MODEL]]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", PROBE, json.dumps(plan)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=360,  # 120 s a start, as each start had in a Python of its own
        check=True,
    )
    reports = [json.loads(line) for line in done.stdout.strip().splitlines()[-3:]]
    return dict(zip(starts, reports, strict=True))


def test_warm_imports_the_pages_and_starts_the_spare_sandboxes(warmed: dict[str, dict[str, Any]]) -> None:
    report = warmed["no model"]
    # Importing serve (and streamlit, which imports plotly itself) leaves the rest to warm().
    assert [name for name, held in report["before"].items() if held] == ["plotly.graph_objects"]
    assert all(report["after"].values()), report["after"]
    # A component declared outside a script run is never registered: its frame would answer 404.
    assert report["components"] == []
    assert report["spares"] is True  # warm() returned once the pool's spares were started
    assert report["script"] == "app.py"  # the app served is app.py's, the preload before it
    assert report["litellm"] is False  # no model configured: nothing will call one
    # The draft was checked while the server started: the first visitor's page draws that check at once.
    assert report["visitor's check passed"] and not report["visitor's check ran again"]
    # So was each bundled example that asks no model, on the data in use: loading one draws its check at once.
    assert report["examples remembered"] == {
        "Exact match": True,
        "Several checks (JSON)": True,
        "Model as judge": False,
        "Accuracy, speed and cost": True,
    }


def test_with_a_model_configured_warm_imports_litellm_too(warmed: dict[str, dict[str, Any]]) -> None:
    # The first check's handler would otherwise import it in the background while visitors wait. (The start before
    # this one, without a model, left litellm out: see the test above.)
    report = warmed["model"]
    assert warmed["no model"]["litellm"] is False
    assert report["litellm"] is True and report["spares"] is True
    # The draft (the example) asks no model: it was checked while the server started.
    assert report["visitor's check passed"] and not report["visitor's check ran again"]


def test_a_draft_that_may_ask_the_model_is_not_checked_while_starting(warmed: dict[str, dict[str, Any]]) -> None:
    # A judge's calls cost money, and nobody asked for them yet.
    report = warmed["judge"]
    assert report["visitor's check ran again"]


ADDRESS_PROBE = """
import json, sys
from streamlit import config
config.set_option("server.baseUrlPath", sys.argv[1])  # as `streamlit run --server.baseUrlPath` does before serve.py
import serve
html = serve.page_html()
from starlette.applications import Starlette
from starlette.testclient import TestClient
client = TestClient(serve.PagesFromMemory(Starlette(routes=serve.page_routes())), follow_redirects=False)
base = "/" + sys.argv[1] if sys.argv[1] else ""
answers = {path: client.get(base + path) for path in ("/author?lang=x", "/data")}
print(json.dumps({
    "routes": sorted(route.path for route in serve.app._user_routes),
    "told before Streamlit's script": html.index(serve.SERVER_ADDRESS) < html.index('<script type="module"'),
    "answers": {path: [reply.status_code, reply.headers.get("location")] for path, reply in answers.items()},
    "data is the page": answers["/data"].text == html,
}))
"""


def page_addresses(tmp_path: Path, base_path: str = "") -> dict[str, Any]:
    """serve.py's page routes and page, in a fresh Python whose server has ``base_path``."""
    env = {"PATH": "/usr/bin:/bin", "SKYNET_DATA_DIR": str(tmp_path), "HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-c", ADDRESS_PROBE, base_path],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    report: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return report


def test_each_page_address_is_served_the_page_that_tells_where_the_server_is(tmp_path: Path) -> None:
    report = page_addresses(tmp_path)
    pages = ["author", "data", "feedback", "history", "human", "runs", "settings", "stress", "tradeoffs"]
    assert report["routes"] == [f"/{name}" for name in pages]
    assert report["told before Streamlit's script"]  # window.__streamlit is read as Streamlit's script starts
    assert report["answers"]["/data"] == [200, None] and report["data is the page"]


def test_the_root_pages_own_address_is_sent_to_the_root(tmp_path: Path) -> None:
    """Author is the page at the app's root; at /author Streamlit's front end found no page and said "Page not
    found" over the Author page. A bookmark or a typed /author goes to the root, its query kept."""
    assert page_addresses(tmp_path)["answers"]["/author?lang=x"] == [302, "/?lang=x"]
    assert page_addresses(tmp_path, "studio")["answers"]["/author?lang=x"] == [302, "/studio/?lang=x"]


def test_page_addresses_follow_the_servers_base_path(tmp_path: Path) -> None:
    report = page_addresses(tmp_path, "studio")
    assert "/studio/data" in report["routes"] and "/data" not in report["routes"]


ASSETS_PROBE = """
import json
from pathlib import Path
from starlette.responses import PlainTextResponse
from starlette.testclient import TestClient
from streamlit import file_util
from streamlit.web import bootstrap
import serve

bootstrap._initialize_mimetypes()  # as the server's start does: the types Streamlit serves its files with
def streamlit(scope, receive, send):  # what the request would reach without the middleware
    return PlainTextResponse("streamlit")(scope, receive, send)

client = TestClient(serve.AssetsFromMemory(streamlit))
script = next((Path(file_util.get_static_dir()) / "static" / "js").glob("Selectbox.*.js"))
name = f"/static/js/{script.name}"
whole = client.get(name)
print(json.dumps({
    "same bytes": whole.content == script.read_bytes(),
    "type": whole.headers["content-type"],
    "cache": whole.headers["cache-control"],
    "again": client.get(name).content == whole.content,
    "range": client.get(name, headers={"Range": "bytes=0-9"}).text,
    "changed?": client.get(name, headers={"If-None-Match": '"x"'}).text,
    "unknown": client.get("/static/js/nope.js").text,
    "outside": client.get("/static/../serve.py").text,
    "page": client.get("/data").text,
}))

def component(scope, receive, send):  # a component's file as Streamlit answers it (no validator)
    body = "editor" if scope["path"].endswith(".js") else "<html>"
    return PlainTextResponse(body, headers={"Cache-Control": "public"})(scope, receive, send)

served = TestClient(serve.ComponentFilesRevalidated(component))
first = served.get("/component/code_editor.code_editor/static/js/2.chunk.js")
tag = first.headers["etag"]
again = served.get("/component/code_editor.code_editor/static/js/2.chunk.js", headers={"If-None-Match": tag})
stale = served.get("/component/code_editor.code_editor/static/js/2.chunk.js", headers={"If-None-Match": 'W/"old"'})
page = served.get("/component/code_editor.code_editor/index.html")
other_server = TestClient(serve.ComponentFilesRevalidated(component)).get(
    "/component/code_editor.code_editor/static/js/2.chunk.js", headers={"If-None-Match": tag}
)
print(json.dumps({
    "first": [first.status_code, first.text, first.headers["cache-control"]],
    "again": [again.status_code, again.text, again.headers["etag"] == tag],
    "stale": [stale.status_code, stale.text],
    "page": [page.text, page.headers["cache-control"], "etag" in page.headers],
    "other server": other_server.status_code,
}))
"""


@pytest.fixture(scope="module")
def assets(tmp_path_factory: pytest.TempPathFactory) -> list[dict[str, Any]]:
    """What the file middlewares answered, in a fresh Python (one for both tests)."""
    home = tmp_path_factory.mktemp("assets")
    env = {"PATH": "/usr/bin:/bin", "SKYNET_DATA_DIR": str(home), "HOME": str(home)}
    done = subprocess.run(
        [sys.executable, "-c", ASSETS_PROBE], cwd=ROOT, env=env, capture_output=True, text=True, timeout=60, check=True
    )
    return [json.loads(line) for line in done.stdout.strip().splitlines()[-2:]]


def test_streamlits_own_files_are_answered_from_memory_and_everything_else_goes_on(
    assets: list[dict[str, Any]],
) -> None:
    report = assets[0]
    assert report["same bytes"] and report["again"]
    assert report["type"] == "application/javascript"  # as Streamlit's own handler answers it
    assert report["cache"] == "public, immutable, max-age=31536000"  # the name carries the content's hash
    # A part of a file, a revalidation, a name the folder lacks, a path out of it and a page: Streamlit answers.
    assert [report[what] for what in ("range", "changed?", "unknown", "outside", "page")] == ["streamlit"] * 5


def test_a_components_files_are_kept_by_the_browser_and_answered_not_modified(assets: list[dict[str, Any]]) -> None:
    """The code editor's 1.2 MB of scripts were fetched, compressed and compiled again on every Author page load."""
    report = assets[1]
    assert report["first"] == [200, "editor", "no-cache"]  # asked again each time, with this server's tag
    assert report["again"] == [304, "", True]  # the browser's copy is current: nothing sent, Streamlit not asked
    assert report["stale"] == [200, "editor"]  # another tag (a copy from before a restart): the file again
    assert report["page"] == ["<html>", "public", False]  # a component's page keeps Streamlit's headers
    assert report["other server"] == 200  # a new server (a new package, perhaps) never answers an old tag
