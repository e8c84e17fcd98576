"""This process's ends of a child's three pipes: requests written, replies read as lines, its output kept.

Nothing read here is trusted. A reply line over :data:`MAX_LINE_BYTES` is refused (the child caps honest
replies at 1 MiB), and of what the child writes to stdout and stderr only the last :data:`STDERR_KEEP` bytes
are kept. Every descriptor is non-blocking: a full pipe or nothing to read never holds this process up past
the ``wait`` it gives :meth:`Pipes.pump`.
"""

from __future__ import annotations

import os
import select
import time

MAX_LINE_BYTES = 2 << 20  # a reply over this is hostile: the child caps honest replies at 1 MiB
STDERR_KEEP = 64 * 1024


class ReplyTooLarge(Exception):
    """The child sent a reply line longer than :data:`MAX_LINE_BYTES`."""


class Pipes:
    """The request pipe's write end, the reply pipe's read end, and the read end of the child's output.

    ``lines`` holds the complete reply lines read and not yet taken, oldest first; ``stderr`` the child's
    output, its last :data:`STDERR_KEEP` bytes. Not thread-safe: the one caller driving a worker uses it.
    """

    def __init__(self, requests: int, replies: int, output: int) -> None:
        self.requests, self.replies, self.output = requests, replies, output
        for fd in (replies, output, requests):
            os.set_blocking(fd, False)
        self.lines: list[bytes] = []
        self.stderr = bytearray()
        self._buffer = bytearray()

    def write(self, data: memoryview) -> int | None:
        """Write what the request pipe takes of ``data`` now: the bytes written, or None when it is full.
        Raises OSError (BrokenPipeError among them) when the child closed its end."""
        try:
            return os.write(self.requests, data)
        except BlockingIOError:
            return None

    def pump(self, wait: float, want_write: bool = False) -> bool:
        """Read whatever the child has sent (replies and output) for up to ``wait`` seconds, returning early
        when the request pipe has room again if ``want_write``. False once the child closed its reply pipe (it
        exited: its last output is read first); raises :class:`ReplyTooLarge` for a reply line too long."""
        readable, _, _ = select.select([self.replies, self.output], [self.requests] if want_write else [], [], wait)
        for fd in readable:
            chunk = _read(fd)
            if chunk is None:
                continue
            if fd == self.output:
                if chunk:
                    self._keep(chunk)
                continue
            if not chunk:
                self.drain_output()
                return False
            self._buffer += chunk
            if b"\n" in chunk:
                *complete, rest = self._buffer.split(b"\n")
                self.lines.extend(bytes(line) for line in complete)
                self._buffer = bytearray(rest)
            if len(self._buffer) > MAX_LINE_BYTES:
                raise ReplyTooLarge()
        return True

    def drain_output(self, within: float = 0.2) -> None:
        """Read the child's output until its end, for ``within`` seconds at most (it may still be writing)."""
        deadline = time.monotonic() + within
        while time.monotonic() < deadline:
            try:
                chunk = os.read(self.output, 1 << 16)
            except BlockingIOError:
                time.sleep(0.01)
                continue
            except OSError:
                return
            if not chunk:
                return
            self._keep(chunk)

    def _keep(self, chunk: bytes) -> None:
        self.stderr += chunk
        if len(self.stderr) > STDERR_KEEP:
            del self.stderr[: len(self.stderr) - STDERR_KEEP]

    def close(self) -> None:
        """Close the three descriptors (once the child is gone)."""
        for fd in (self.replies, self.output, self.requests):
            try:
                os.close(fd)
            except OSError:
                pass


def _read(fd: int) -> bytes | None:
    """Bytes read, ``b""`` at end of file, ``None`` when nothing was ready after all."""
    try:
        return os.read(fd, 1 << 20)
    except BlockingIOError:
        return None
    except OSError:
        return b""
