"""The server's admission of HTTP requests: its health check first, page work a few requests at a time.

Under a flood (40 connections asking for pages and static files 500 times a second) while a "Score all"
ran, every request in flight took its turns of the server's one event loop, and the health check waited
behind them: 2 of 176 checks took over a second. :class:`HealthFirst`, the outermost ASGI middleware
(``serve.py``), lets at most :data:`PAGE_REQUESTS_AT_ONCE` plain ``GET``/``HEAD`` requests in at once; the
others wait their turn, in order of arrival, taking no turn of the loop while they wait. A request's place
is given back as its response starts: sending the body is the network's pace, not the server's work, and a
client that reads slowly (or not at all) must not keep the others out. The health check never waits, nor do
websockets (each visitor's session), uploads and other requests that change something.

A pure ASGI middleware: nothing here imports Streamlit or Starlette.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Collection, MutableMapping
from typing import Any

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

PAGE_REQUESTS_AT_ONCE = 8
"""Plain ``GET``/``HEAD`` requests (pages, static files, media) the app serves at once; the rest wait."""
BOUNDED_METHODS = frozenset({"GET", "HEAD"})


class HealthFirst:
    """Bounds the page requests in flight so that the health check (``health_paths``) is answered at once."""

    def __init__(
        self, app: ASGIApp, health_paths: Collection[str] = ("/_stcore/health",), limit: int = PAGE_REQUESTS_AT_ONCE
    ) -> None:
        if limit < 1:
            raise ValueError(f"at least one page request must be let in at once, not {limit}")
        self.app, self.health_paths, self.limit = app, frozenset(health_paths), limit
        self._slots: asyncio.Semaphore | None = None  # made in the server's loop, on its first request
        self.in_flight = 0
        self.waiting = 0

    def bounded(self, scope: Scope) -> bool:
        """Whether the request waits for a place: a plain ``GET``/``HEAD`` that is not the health check."""
        return (
            scope.get("type") == "http"
            and scope.get("method") in BOUNDED_METHODS
            and scope.get("path") not in self.health_paths
        )

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if not self.bounded(scope):
            await self.app(scope, receive, send)
            return
        if self._slots is None:
            self._slots = asyncio.Semaphore(self.limit)
        slots = self._slots
        self.waiting += 1
        try:
            await slots.acquire()
        finally:
            self.waiting -= 1
        self.in_flight += 1
        held = True

        def give_back() -> None:
            nonlocal held
            if held:
                held = False
                self.in_flight -= 1
                slots.release()

        async def sending(message: Message) -> None:
            if message.get("type") == "http.response.start":
                give_back()
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            give_back()
