"""The server's health check is answered while page requests are held: at most 8 plain GET/HEAD requests are let in
at once, the others wait their turn in order of arrival, and the health check, websockets and uploads never wait.
A request whose response has started (a client reading its body slowly, or never) keeps no place."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from typing import Any

import pytest

from skynet_core.http_admission import PAGE_REQUESTS_AT_ONCE, HealthFirst

HEALTH = "/_stcore/health"


class HeldApp:
    """An ASGI app whose page requests are held until released; everything else is answered at once."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.entered: list[str] = []
        self.answered: list[str] = []

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        self.entered.append(scope["path"])
        if scope["path"].startswith("/page"):
            await self.release.wait()
        self.answered.append(scope["path"])


def request(path: str, method: str = "GET", kind: str = "http") -> dict[str, Any]:
    return {"type": kind, "method": method, "path": path}


async def nothing() -> dict[str, Any]:
    return {}


async def ignore(message: Any) -> None:
    return None


def run(scenario: Callable[[], Coroutine[Any, Any, None]]) -> None:
    """``scenario`` on an event loop of its own, in a thread of its own: the worker's thread may hold a running loop
    another test module left behind, where ``asyncio.run`` refuses to start."""
    failed: list[BaseException] = []

    def target() -> None:
        try:
            asyncio.run(scenario())
        except BaseException as exc:  # noqa: BLE001  (raised again in the test's thread)
            failed.append(exc)

    thread = threading.Thread(target=target)
    thread.start()
    thread.join()
    if failed:
        raise failed[0]


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def test_health_is_answered_while_page_requests_are_held() -> None:
    async def scenario() -> None:
        app = HeldApp()
        admission = HealthFirst(app, health_paths=[HEALTH])
        pages = [asyncio.create_task(admission(request(f"/page{n}"), nothing, ignore)) for n in range(40)]
        await settle()
        assert (admission.in_flight, admission.waiting) == (PAGE_REQUESTS_AT_ONCE, 40 - PAGE_REQUESTS_AT_ONCE)
        await asyncio.wait_for(admission(request(HEALTH), nothing, ignore), timeout=1)
        assert app.answered == [HEALTH]
        await asyncio.wait_for(admission(request(HEALTH, "HEAD"), nothing, ignore), timeout=1)
        app.release.set()
        await asyncio.wait_for(asyncio.gather(*pages), timeout=5)
        assert app.entered[:PAGE_REQUESTS_AT_ONCE] == [f"/page{n}" for n in range(PAGE_REQUESTS_AT_ONCE)]
        # Those that waited went in in the order they came.
        waited = [path for path in app.entered if path.startswith("/page")][PAGE_REQUESTS_AT_ONCE:]
        assert waited == [f"/page{n}" for n in range(PAGE_REQUESTS_AT_ONCE, 40)]
        assert (admission.in_flight, admission.waiting) == (0, 0)

    run(scenario)


@pytest.mark.parametrize(
    "scope",
    [request("/page-ws", kind="websocket"), request("/page-upload", "POST"), request("/page-x", "PUT")],
    ids=["websocket", "upload", "put"],
)
def test_websockets_and_uploads_never_wait_for_page_requests(scope: dict[str, Any]) -> None:
    async def scenario() -> None:
        app = HeldApp()
        admission = HealthFirst(app, health_paths=[HEALTH], limit=1)
        held = asyncio.create_task(admission(request("/page0"), nothing, ignore))
        await settle()
        passed = asyncio.create_task(admission(scope, nothing, ignore))
        await settle()
        assert scope["path"] in app.entered  # let in although the one place is taken
        app.release.set()
        await asyncio.wait_for(asyncio.gather(held, passed), timeout=5)

    run(scenario)


def test_a_request_that_fails_gives_its_place_back() -> None:
    async def failing(scope: Any, receive: Any, send: Any) -> None:
        raise RuntimeError("the app failed")

    async def scenario() -> None:
        admission = HealthFirst(failing, limit=1)
        for _ in range(3):
            with pytest.raises(RuntimeError):
                await asyncio.wait_for(admission(request("/page"), nothing, ignore), timeout=1)
        assert admission.in_flight == 0

    run(scenario)


def test_a_response_being_sent_to_a_slow_reader_keeps_no_place() -> None:
    async def scenario() -> None:
        never_read = asyncio.Event()

        async def slow_client(message: Any) -> None:
            if message["type"] == "http.response.body":
                await never_read.wait()  # the body is not read: sending it never ends

        async def page(scope: Any, receive: Any, send: Any) -> None:
            await send({"type": "http.response.start", "status": 200, "headers": []})
            await send({"type": "http.response.body", "body": b"x" * 1000})

        admission = HealthFirst(page, limit=2)
        stuck = [asyncio.create_task(admission(request(f"/big{n}"), nothing, slow_client)) for n in range(5)]
        await settle()
        assert admission.in_flight == 0 and admission.waiting == 0
        answered: list[Any] = []

        async def reader(message: Any) -> None:
            answered.append(message["type"])

        await asyncio.wait_for(admission(request("/page"), nothing, reader), timeout=1)
        assert answered == ["http.response.start", "http.response.body"]
        never_read.set()
        await asyncio.gather(*stuck)

    run(scenario)
