"""Reading the garbage collector's switch in tests, where other threads of the same worker may flip it."""

from __future__ import annotations

import time

from skynet_core.heap import collector_state


def steady_state(timeout: float = 5.0) -> tuple[int, bool]:
    """:func:`collector_state`, read again while it says "off, no section open": Python 3.11's subprocess turns
    the collector off around a fork with a ``preexec_fn`` (the pool starts its sandboxes so, in a thread of this
    worker), and another thread can run in that instant (``os.register_at_fork`` hooks run Python code)."""
    deadline = time.monotonic() + timeout
    state = collector_state()
    while state == (0, False) and time.monotonic() < deadline:
        time.sleep(0.01)
        state = collector_state()
    return state


def no_other_section(timeout: float = 60.0) -> None:
    """Wait until no thread of this worker is building (an earlier test may have started litellm's import)."""
    deadline = time.monotonic() + timeout
    while collector_state() != (0, True):
        assert time.monotonic() < deadline, f"the collector stayed off: {collector_state()}"
        time.sleep(0.05)
