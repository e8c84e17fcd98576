"""Ctrl+C during a run: the first one cancels the run (its event), as the app's Cancel button does, so the
runner stops its children, a Ray cluster its tasks, and the command says what happened; a second one stops
the process at once, as Python does by default.

The run's own ``cancel`` event carries the request: nothing depends on ``KeyboardInterrupt`` finding its
way out of a thread, a C extension or a library's loop.
"""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from types import FrameType

EXIT_INTERRUPTED = 130  # 128 + SIGINT, what a shell reports for a command stopped by Ctrl+C


@dataclass
class Interrupt:
    """Whether Ctrl+C came while :func:`cancelled_by_ctrl_c` was in force."""

    caught: bool = False


@contextmanager
def cancelled_by_ctrl_c(cancel: threading.Event) -> Iterator[Interrupt]:
    """While in force, SIGINT sets ``cancel`` (once; the next SIGINT gets the handler that was there before).
    Outside the main thread, where Python cannot take signals, it does nothing."""
    interrupt = Interrupt()
    if threading.current_thread() is not threading.main_thread():
        yield interrupt
        return
    before = signal.getsignal(signal.SIGINT)

    def on_sigint(signum: int, frame: FrameType | None) -> None:
        interrupt.caught = True
        cancel.set()
        signal.signal(signal.SIGINT, before)

    signal.signal(signal.SIGINT, on_sigint)
    try:
        yield interrupt
    finally:
        signal.signal(signal.SIGINT, before)
