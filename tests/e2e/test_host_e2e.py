"""DNS rebinding (issue #11 item 16): the app's websocket refuses a Host other than its own names."""

from __future__ import annotations

import socket

import pytest


@pytest.fixture
def port(server: str) -> int:
    return int(server.rsplit(":", 1)[1])


def websocket_status(port: int, host: str, path: str = "/_stcore/stream") -> int:
    """The status of a websocket handshake sent with ``Host: host`` and a matching Origin."""
    request = (
        f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        f"Sec-WebSocket-Protocol: streamlit\r\nOrigin: http://{host}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(request.encode())
        reply = b""
        while b"\r\n" not in reply:
            chunk = sock.recv(4096)
            if not chunk:
                break
            reply += chunk
    return int(reply.split(b" ", 2)[1]) if reply.startswith(b"HTTP/") else 0


def test_a_foreign_host_is_refused(port):
    assert websocket_status(port, f"evil.example:{port}") != 101
    assert websocket_status(port, "evil.example") != 101


def test_the_apps_own_names_are_accepted(port):
    assert websocket_status(port, f"127.0.0.1:{port}") == 101
    assert websocket_status(port, f"localhost:{port}") == 101
