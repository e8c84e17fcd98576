"""The one AppTest set-up of the page tests, and the one way to wait for what runs in the background.

    at = open_app("data")                       # the studio (app.py) on the Data page, English
    at = open_app("runs", language="zh_CN")     # the Runs page in Chinese (the test's thread too)
    run_until(at, lambda at: bool(at.dataframe))  # rerun until a background job's result is drawn

Every page runs through ``app.py`` (the router, the sidebar, the session's snapshot), as in a browser.
The data directory is the test's own (``tests/app/conftest.py``).
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, nullcontext
from pathlib import Path
from typing import Any

from streamlit.components.v2 import manifest_scanner
from streamlit.testing.v1 import AppTest

from skynet_core.i18n import use_language
from skynet_core.workspace.jobs import JobSlot

ROOT = Path(__file__).resolve().parents[2]
APP = str(ROOT / "app.py")
PAGES = ("author", "data", "feedback", "stress", "human", "tradeoffs", "history", "runs", "settings")
LANGUAGE_KEY = "studio.language"  # the sidebar picker's session-state key
POLL_S = 0.1
JOB_WAIT_S = 0.5

# Every AppTest scans the installed distributions' metadata for custom components once (a server does it once
# at start): 0.3 s of CPU per test, a sixth of a page test's time. The packages do not change during a test
# session, so the scan is made once per process and each AppTest gets its own copy of the list.
_scan = functools.cache(manifest_scanner.scan_component_manifests)
manifest_scanner.scan_component_manifests = lambda max_workers=None: list(_scan(max_workers))


def open_app(
    page: str = "author",
    *,
    language: str | None = None,
    state: dict[str, Any] | None = None,
    timeout: float = 60.0,
    check: bool = True,
) -> AppTest:
    """The studio opened on ``page`` (one of :data:`PAGES`), with ``state`` in the session first.

    With ``language``, the session picked it in the sidebar, and the test's thread runs in it while the
    app runs: AppTest formats a widget's choices with its ``format_func`` there, and a translated choice
    must match the page's. ``check``: fail on an exception the page raised.
    """
    at = _seeded(AppTest.from_file(APP, default_timeout=timeout), language, state)
    with speaking(language):
        if page != "author":
            # Asked for by its address, as a browser's first request for /data is: not through a run of the
            # Author page first (whose contract check alone doubled the cost of opening another page).
            _address(at, page)
        at.run()
    if check:
        assert not at.exception, at.exception
    return at


def open_function(
    script: Callable[[], None], *, language: str | None = None, state: dict[str, Any] | None = None
) -> AppTest:
    """A panel on its own: ``script`` (a function whose body imports what it needs) run as an app, with
    ``state`` in the session and the sidebar's ``language`` chosen; fails on an exception it raised."""
    at = _seeded(AppTest.from_function(script, default_timeout=60), language, state)
    with speaking(language):
        at.run()
    assert not at.exception, at.exception
    return at


def go_to(at: AppTest, page: str) -> AppTest:
    """Open ``page`` in the running app (as a click in the sidebar's menu would) and run it.

    The pages are functions (``st.Page(page, url_path=...)``), which ``AppTest.switch_page`` cannot name (it
    takes a file): the page is asked for by the hash ``st.navigation`` gives its URL path, as a browser's
    request for ``/data`` does. The one place that knows this."""
    _address(at, page)
    with speaking(session_language(at)):
        return at.run()


def session_language(at: AppTest) -> str | None:
    """The language the session picked in the sidebar (set by :func:`open_app`), or None."""
    try:
        language = at.session_state[LANGUAGE_KEY]
    except KeyError:
        return None
    return str(language) if language else None


def _address(at: AppTest, page: str) -> None:
    """The next run of ``at`` is of ``page``."""
    from streamlit.util import calc_hash

    assert page in PAGES, f"no page {page!r}; the pages are {PAGES}"
    at._page_hash = calc_hash(page)


def run_until(
    at: AppTest, done: Callable[[AppTest], bool], timeout: float = 60.0, *, what: str = "the expected state"
) -> AppTest:
    """Rerun the page until ``done(at)`` holds (checks, scoring and other jobs run in background threads);
    fail on an exception the page raised, or when ``timeout`` seconds pass first.

    Between reruns it waits for the session's running job to finish, up to :data:`JOB_WAIT_S`, instead of
    rerunning on a fixed beat: a page's run costs CPU the tests running beside it need, and the run after a
    job ends should come at once. A test that looks for what a page shows while a job runs still sees a run
    at least every :data:`JOB_WAIT_S`. Each run is in the session's language (:func:`session_language`): AppTest
    formats a widget's choices in the test's thread, and they must match the page's."""
    deadline = time.monotonic() + timeout
    while not done(at):
        assert not at.exception, at.exception
        assert time.monotonic() < deadline, f"the page did not reach {what} within {timeout:g} s"
        job = running_job(at)
        if job is None:
            time.sleep(POLL_S)
        else:
            job.wait(min(JOB_WAIT_S, max(0.0, deadline - time.monotonic())))
        with speaking(session_language(at)):
            at.run()
    assert not at.exception, at.exception
    return at


def running_job(at: AppTest) -> Any:
    """A job this session started that still runs (the first found), or None."""
    for value in at.session_state.values():
        job = value.job if isinstance(value, JobSlot) else None
        if job is not None and job.running:
            return job
    return None


@contextmanager
def speaking(language: str | None) -> Iterator[None]:
    """The test's thread in ``language`` (nothing changes without one)."""
    with use_language(language) if language else nullcontext():
        yield


def button(at: AppTest, label: str) -> Any:
    """The button whose label is ``label`` (the first, when several have it)."""
    return next(item for item in at.button if item.label == label)


def open_file(at: AppTest, path: Path | str) -> None:
    """Open the cases file at ``path`` on the Data page, as a person does: "A file", its path, "Open this file"."""
    at.radio(key="data.source").set_value("file").run()
    at.text_input(key="data.path").input(str(path))
    button(at, "Open this file").click()
    at.run()
    assert not at.exception, at.exception


def _seeded(at: AppTest, language: str | None, state: dict[str, Any] | None) -> AppTest:
    """``at`` with the sidebar's ``language`` chosen and ``state`` in its session, before its first run."""
    if language:
        at.session_state[LANGUAGE_KEY] = language
    for key, value in (state or {}).items():
        at.session_state[key] = value
    return at
