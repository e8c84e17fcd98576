"""Serves the studio: ``streamlit run serve.py`` (the README's command). ``app.py`` stays the app's script.

A plain ``streamlit run app.py`` imports the app's modules (pandas, pyarrow, plotly, the pages), loads the
languages' number formats and opens the workspace (starting the sandboxes the first check takes) inside the
first visitor's first script run: that visitor waited 2.4 s where later ones wait 1.5 s. Here the same work
is done while the server starts, before it answers its health check, as an application server's "preload"
does; the server answers about 1 s later. Both commands serve the same app; tests use either.

A page's own address (``/data``) is answered with Streamlit's page telling its front end where the server is
(see :func:`page_html`), so that a visitor who opens a page by its address connects at once, and Streamlit's own
scripts, styles and fonts, the root and the pages' addresses are answered from memory (:class:`AssetsFromMemory`,
:class:`PagesFromMemory`); a custom component's files are kept by the browser and answered "not modified"
(:class:`ComponentFilesRevalidated`). The health check is answered
ahead of page work: at most a few page and file requests are served at once, and the check never waits for one
(:class:`~skynet_core.http_admission.HealthFirst`).
"""

from __future__ import annotations

import asyncio
import gzip
import importlib
import mimetypes
import os
import pkgutil
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import streamlit as st
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response
from starlette.routing import Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send
from streamlit import config, file_util
from streamlit.url_util import make_url_path
from streamlit.web.server.starlette.starlette_server_config import STATIC_ASSET_CACHE_MAX_AGE_SECONDS

from skynet_core.http_admission import HealthFirst

# The longest the preload waits for the pool's spare sandboxes (a start takes 0.1 to 1 s; a machine where they
# cannot start serves anyway, and the check says why).
SPARES_WAIT_S = 10.0
CHECK_WAIT_S = 10.0  # the longest the preload waits for its checks, all together (a slow one is left to finish)
# What the first script run would import. ``app`` itself is not imported here: it is a script, run per session.
WARM_MODULES = ("ui.studio", "pages", "ui.widgets.sidebar", "plotly.graph_objects", "babel.numbers", "babel.dates")


def warm() -> None:
    """Import what every first script run needs, load each language's formats once (CLDR data is read from
    disk on first use), open the workspace, whose pool starts its spare sandboxes in the background (the
    first check takes one instead of starting a child), when a model is configured import litellm, and check the
    draft in the studio's language unless it may ask that model (the first visitor's page finds the check done).
    Idempotent; a second call costs nothing."""
    for name in WARM_MODULES:
        importlib.import_module(name)
    pages = importlib.import_module("pages")
    for page in pkgutil.iter_modules(pages.__path__, "pages."):
        if page.ispkg:  # each page's package (its ``pages/<name>.py`` beside it is a script, never imported)
            importlib.import_module(page.name)
    from skynet_core import i18n

    workspace = importlib.import_module("ui.studio").open_workspace()
    asks_a_model = workspace.settings.models().effective() is not None
    if asks_a_model:
        # A model is configured: the first check's handler would import litellm (seconds of CPU, most of them
        # holding the GIL) in the background, and a visitor arriving meanwhile waited 12 s for the verdict.
        from skynet_core.llm import warm_up

        warm_up(wait=True)
    workspace.pool.wait_for_spares(SPARES_WAIT_S)
    draft = workspace.drafts.current().metric
    # The first visitor's check, made now: a check that passes is remembered, and the page draws it at once. Not
    # for a metric that may ask a model: a server that starts must not pay for a judge's calls nobody asked for.
    # The same for each bundled example that asks none, on the data in use: a newcomer's first click is often
    # "Load", whose check took a second where a remembered one draws in half that.
    from skynet_core.examples import EXAMPLE_METRICS
    from skynet_core.workspace.jobs import JobSlot
    from skynet_core.workspace.values import example_metric

    examples = [example_metric(title) for title in EXAMPLE_METRICS]
    unasked = [metric for metric in examples if not metric.names_llm()]
    to_check = ([draft] if not asks_a_model or not draft.names_llm() else []) + unasked
    deadline = time.monotonic() + CHECK_WAIT_S
    with i18n.use_language(workspace.settings.language()):
        for metric in to_check:  # the draft's or an example's check already made is at once
            left = deadline - time.monotonic()
            if left <= 0:  # a slow check (a slow metric, a distant cluster) is left to finish; no more start
                break
            workspace.jobs.check(JobSlot(), metric).wait(left)
    if to_check:
        workspace.pool.wait_for_spares(SPARES_WAIT_S)  # the checks took some

    for language in i18n.LANGUAGES:
        with i18n.use_language(language):
            i18n.translations(language)
            i18n.format_number(1234.5, 2)
            i18n.format_duration(75.0)
            i18n.format_datetime(datetime(2026, 1, 1))


@asynccontextmanager
async def preload(_app: Any) -> AsyncIterator[None]:
    await asyncio.to_thread(warm)
    yield


# Before Streamlit's script: its front end takes the server's address from ``window.__streamlit`` when set (the way a
# host that embeds Streamlit tells it); the page's address without its last part is the app's root, proxied or not.
SERVER_ADDRESS = '<script>window.__streamlit ??= {BACKEND_BASE_URL: new URL(".", location.href).href}</script>'


@cache
def page_html() -> str:
    """Streamlit's index.html, telling its front end where the server is.

    Without it, a page opened by its address (``/data``) first asks ``/data/_stcore/health`` (a 404, then a
    100 ms wait) and only then the app's root: 0.1 s of every page's first draw in a new browser."""
    html = (Path(file_util.get_static_dir()) / "index.html").read_text(encoding="utf-8")
    return html.replace("<head>", "<head>" + SERVER_ADDRESS, 1)


async def page(_request: Request) -> HTMLResponse:
    return HTMLResponse(page_html(), headers={"Cache-Control": "no-cache"})  # as Streamlit serves it


async def to_root(request: Request) -> RedirectResponse:
    """The root page's own address (``/author``) sent to the app's root, its query kept: Streamlit knows its default
    page only by the root, and its front end said "Page not found" over the page at the page's own address."""
    root = make_url_path(config.get_option("server.baseUrlPath"), "")
    query = request.url.query
    return RedirectResponse(f"{root}?{query}" if query else root, status_code=302)


def page_routes() -> list[Route]:
    """A route for each page's address: the page packages under ``pages/``, whose names are their URL paths (app.py
    routes them so, as each ``pages/<name>.py`` is named), under the server's base path; the root page's is sent to
    the root (:func:`to_root`)."""
    pages = importlib.import_module("pages")
    names = [module.name for module in pkgutil.iter_modules(pages.__path__) if module.ispkg]
    base = config.get_option("server.baseUrlPath")
    return [
        Route(make_url_path(base, name), to_root if name == pages.ROOT_PAGE else page, methods=["GET"])
        for name in names
    ]


class PagesFromMemory:
    """The app's root and each page's address (:func:`page_routes`) answered from memory with :func:`page_html`,
    compressed once for a browser that accepts gzip, ahead of Streamlit's middleware.

    Under a flood of page requests, Streamlit's stack compressed the same 7.8 KB page again for every request, in
    the event loop, and its root page was read from disk each time (1 ms and 3 ms of the server's CPU a request,
    against 0.5 ms answered here). A request other than a plain GET goes on to the routes and Streamlit."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        base = config.get_option("server.baseUrlPath")
        self.paths = {make_url_path(base, ""), *(route.path for route in page_routes() if route.endpoint is page)}
        self.plain = page_html().encode("utf-8")
        self.gzipped = gzip.compress(self.plain, mtime=0)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "GET" or scope["path"] not in self.paths:
            await self.app(scope, receive, send)
            return
        accepts = b", ".join(value for name, value in scope["headers"] if name == b"accept-encoding")
        headers = {"Cache-Control": "no-cache", "Vary": "Accept-Encoding"}  # as Streamlit serves it
        body = self.plain
        if b"gzip" in accepts:
            body, headers["Content-Encoding"] = self.gzipped, "gzip"
        await HTMLResponse(body, headers=headers)(scope, receive, send)


class AssetsFromMemory:
    """Streamlit's own scripts, styles and fonts (the files of its ``static/`` folder) answered from memory.

    A new visitor's first draw fetches 60 to 110 of them, most at once; Streamlit's file handler reads each through
    worker threads, and on this 2-core machine the last of a burst came 0.1 s or more after the first. Each file is
    read once and kept (at most the folder's 25 MB). Only the folder's files, by their exact names, are answered
    here, with the headers Streamlit gives them (immutable: their names carry their content's hash); any other path,
    and a request for part of a file or asking whether it changed, goes on to Streamlit."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.prefix = make_url_path(config.get_option("server.baseUrlPath"), "static/")
        folder = Path(file_util.get_static_dir()) / "static"
        self.files = {path.relative_to(folder).as_posix(): path for path in folder.rglob("*") if path.is_file()}
        self.kept: dict[str, bytes] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        name = self.asset(scope)
        if name is None:
            await self.app(scope, receive, send)
            return
        if name not in self.kept:
            self.kept[name] = await asyncio.to_thread(self.files[name].read_bytes)
        kind = mimetypes.guess_type(name)[0] or "application/octet-stream"  # as Streamlit's handler tells it
        cache = f"public, immutable, max-age={STATIC_ASSET_CACHE_MAX_AGE_SECONDS}"
        await Response(self.kept[name], media_type=kind, headers={"Cache-Control": cache})(scope, receive, send)

    def asset(self, scope: Scope) -> str | None:
        """The name of the file a plain GET asks for, if it is one of the folder's."""
        if scope["type"] != "http" or scope["method"] != "GET" or not scope["path"].startswith(self.prefix):
            return None
        if any(name in (b"range", b"if-none-match", b"if-modified-since") for name, _value in scope["headers"]):
            return None
        name = scope["path"][len(self.prefix) :]
        return name if name in self.files else None


class ComponentFilesRevalidated:
    """The custom components' files (the code editor's scripts and styles, under ``component/``) kept by the browser
    and asked again with a validator, answered "not modified" here.

    Streamlit serves them with ``Cache-Control: public`` and no validator, so a browser fetched the editor's 1.2 MB of
    scripts again on every load of the Author page, the server compressed them again, and the browser compiled them
    again (its compiled code is kept only with a cached file). Here each such file carries an entity tag for this
    server's lifetime (``no-cache``: asked again each time, answered 304 without Streamlit or compression). A
    component's files change only with its package, whose Python side this server loaded once at start too: a new
    server, a new tag. Its pages (``.html``) keep Streamlit's headers."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app
        self.prefix = make_url_path(config.get_option("server.baseUrlPath"), "component/")
        self.tag = f'W/"{os.getpid()}-{time.time_ns()}"'.encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "") if scope["type"] == "http" else ""
        if scope.get("method") != "GET" or not path.startswith(self.prefix) or path.endswith(".html"):
            await self.app(scope, receive, send)
            return
        if any(name == b"if-none-match" and self.tag in value for name, value in scope["headers"]):
            headers = {"ETag": self.tag.decode(), "Cache-Control": "no-cache"}
            await Response(status_code=304, headers=headers)(scope, receive, send)
            return

        async def tagged(message: Message) -> None:
            if message["type"] == "http.response.start" and message["status"] == 200:
                kept = [(name, value) for name, value in message["headers"] if name.lower() != b"cache-control"]
                message = {**message, "headers": [*kept, (b"cache-control", b"no-cache"), (b"etag", self.tag)]}
            await send(message)

        await self.app(scope, receive, tagged)


def health_paths() -> list[str]:
    """The health check's address under the server's base path (what load balancers and the tests ask)."""
    return [make_url_path(config.get_option("server.baseUrlPath"), "_stcore/health")]


app = st.App(
    "app.py",
    lifespan=preload,
    routes=page_routes(),
    # Outermost first: the admission wraps everything, the files from memory included.
    middleware=[
        Middleware(HealthFirst, health_paths=health_paths()),
        Middleware(PagesFromMemory),
        Middleware(AssetsFromMemory),
        Middleware(ComponentFilesRevalidated),
    ],
)
