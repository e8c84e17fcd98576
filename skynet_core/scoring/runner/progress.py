"""The progress page: 16 bytes of memory this process shares with a child, where the child writes which case runs.

The child writes the running case's index and when it started (monotonic ns) as the case starts, and ``(-1, 0)``
when it is idle (``skynet_core.scoring.sandbox.child_channel.Progress``). Metric code runs in that child and can rewrite
the page, so what the page says bounds a call only together with this process's own clock
(``Worker.run_chunks``).
"""

from __future__ import annotations

import mmap
import os
import struct
import time

_PAGE = struct.Struct("qq")  # the running case's index and its start, as the child writes them


class ProgressPage:
    """One child's page, read here. :attr:`fd` is handed to the child at its start and then closed here
    (the mapping outlives it)."""

    def __init__(self) -> None:
        self.fd = os.memfd_create("skynet-progress", 0)
        os.ftruncate(self.fd, _PAGE.size)
        self._page = mmap.mmap(self.fd, _PAGE.size)
        self.idle()

    def idle(self) -> None:
        """Mark no case as running (before a request is sent, so that a stale index is not read)."""
        _PAGE.pack_into(self._page, 0, -1, 0)

    def running_index(self) -> int | None:
        """The position of the case the child is in (None when idle)."""
        index, started_ns = _PAGE.unpack_from(self._page, 0)
        return index if index >= 0 and started_ns else None

    def running_ms(self) -> float:
        """How long the running case has run (0 when none runs)."""
        _, started_ns = _PAGE.unpack_from(self._page, 0)
        return (time.monotonic_ns() - started_ns) / 1e6 if started_ns else 0.0

    def overran(self, first: int, limit_s: float) -> int | None:
        """The running case's position when it is ``first`` or later and has run ``limit_s`` or more, else None
        (a case before ``first`` was answered already: the page has not caught up with it)."""
        index, started_ns = _PAGE.unpack_from(self._page, 0)
        if index >= first and started_ns and time.monotonic_ns() - started_ns >= limit_s * 1e9:
            return int(index)
        return None
