"""A small OpenAI-compatible chat server for tests: real HTTP on 127.0.0.1, never an outside host.

    with FakeOpenAI(latency_s=0.2, reply="PASS. Fine.") as server:
        ModelConfig("openai/judge", api_base=server.url)   # litellm talks to it as to any OpenAI server
        server.script = [429, 500]    # the next two calls fail, then calls succeed again
        server.requests[0].system     # what the server received

It answers ``POST /v1/chat/completions`` (and ``/chat/completions``) under its own path prefix (``url``) with a
chat completion whose usage is ``usage`` tokens, after ``latency_s``. Errors
use OpenAI's error body, so litellm maps them as it would a real provider's:
429 rate limit, 401 bad key (when ``require_key`` is set and the bearer token
differs), 404 unknown model (when ``models`` is set and lacks the one asked
for), 5xx server errors. Safe to use from many client threads at once.
"""

from __future__ import annotations

import json
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

ERROR_TYPES = {
    400: ("invalid_request_error", "bad_request"),
    401: ("invalid_request_error", "invalid_api_key"),
    404: ("invalid_request_error", "model_not_found"),
    429: ("rate_limit_error", "rate_limit_exceeded"),
    500: ("server_error", "internal_error"),
    502: ("server_error", "bad_gateway"),
    503: ("server_error", "overloaded"),
}
ERROR_MESSAGES = {
    401: "Incorrect API key provided. You can find your API key in your account settings.",
    404: "The model `{model}` does not exist or you do not have access to it.",
    429: "Rate limit reached for requests. Please try again in 1s.",
    500: "The server had an error while processing your request.",
    502: "Bad gateway.",
    503: "The engine is currently overloaded, please try again later.",
}


@dataclass(frozen=True)
class Received:
    """One request as the server saw it."""

    path: str
    model: str
    messages: list[dict[str, Any]]
    authorization: str | None
    body: dict[str, Any]

    @property
    def system(self) -> str | None:
        return next((m["content"] for m in self.messages if m.get("role") == "system"), None)

    @property
    def user(self) -> str | None:
        return next((m["content"] for m in self.messages if m.get("role") == "user"), None)


class FakeOpenAI:
    """The server; start it with ``with`` (or ``start()``/``stop()``). ``url`` is its API base."""

    def __init__(
        self,
        *,
        latency_s: float = 0.0,
        reply: str | Callable[[Received], str] = "PASS. The triage fits.",
        usage: tuple[int, int] = (20, 5),
        script: list[int] | None = None,
        require_key: str | None = None,
        models: set[str] | None = None,
        echo_authorization: bool = False,
    ) -> None:
        self.latency_s = latency_s
        self.echo_authorization = echo_authorization  # errors repeat the Authorization header, as some proxies do
        self.reply = reply
        self.usage = usage
        self.script = list(script or [])
        self.require_key = require_key
        self.models = models
        self.requests: list[Received] = []
        self.in_flight = 0
        self.max_in_flight = 0
        self._lock = threading.Lock()
        # Each server answers only under a path of its own: a call a finished test's client still makes (a retry
        # of a run that stopped) reaches a later test's server when the kernel gives it the same port; it is then
        # refused unrecorded, and the later test sees only its own requests.
        self.prefix = f"s{secrets.token_hex(4)}"
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self._httpd.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/{self.prefix}/v1"

    def start(self) -> FakeOpenAI:
        self._thread = threading.Thread(
            target=self._httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            daemon=True,
            name=f"fake-openai-{self.port}",
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    def answer(self, received: Received) -> tuple[int, dict[str, Any]]:
        """The status and JSON body for one request (the failure script first, then the checks)."""
        with self._lock:
            self.requests.append(received)
            scripted = self.script.pop(0) if self.script else None
        echo = f" (request had Authorization: {received.authorization})" if self.echo_authorization else ""
        if scripted is not None:
            return scripted, _error(scripted, received.model, echo)
        if self.require_key is not None and received.authorization != f"Bearer {self.require_key}":
            return 401, _error(401, received.model, echo)
        if self.models is not None and received.model not in self.models:
            return 404, _error(404, received.model)
        text = self.reply(received) if callable(self.reply) else self.reply
        prompt_tokens, completion_tokens = self.usage
        return 200, {
            "id": f"chatcmpl-fake-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": received.model,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_tokens,
                "completion_tokens": completion_tokens,
                "total_tokens": prompt_tokens + completion_tokens,
            },
        }


def _error(status: int, model: str, echo: str = "") -> dict[str, Any]:
    kind, code = ERROR_TYPES.get(status, ("server_error", "error"))
    message = ERROR_MESSAGES.get(status, f"Error {status}.").format(model=model) + echo
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _handler(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        disable_nagle_algorithm = True  # headers and body go out in two writes; Nagle would hold the second 40 ms

        def do_POST(self) -> None:  # noqa: N802  (the name http.server calls)
            own = f"/{server.prefix}"
            path = self.path[len(own) :] if self.path.startswith(own + "/") else ""
            if path.rstrip("/") not in ("/v1/chat/completions", "/chat/completions"):
                self._send(404, {"error": {"message": f"no route {self.path}", "type": "invalid_request_error"}})
                return
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except json.JSONDecodeError:
                self._send(400, _error(400, ""))
                return
            received = Received(
                path,
                str(body.get("model", "")),
                list(body.get("messages") or []),
                self.headers.get("Authorization"),
                body,
            )
            with server._lock:
                server.in_flight += 1
                server.max_in_flight = max(server.max_in_flight, server.in_flight)
            try:
                if server.latency_s:
                    time.sleep(server.latency_s)
                status, payload = server.answer(received)
            finally:
                with server._lock:
                    server.in_flight -= 1
            self._send(status, payload)

        def _send(self, status: int, payload: dict[str, Any]) -> None:
            data = json.dumps(payload).encode()
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to tell it

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002  (http.server's signature)
            pass

    return Handler
