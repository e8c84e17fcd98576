"""Pre-started children, so a contract check on a keystroke pause does not pay for a process start.

A worker is used for one metric and then killed; the pool only keeps fresh,
never-used children waiting (started, imports done, blocked on their channel).
"""

from __future__ import annotations

import atexit
import threading
import time

from ..results import Isolation
from . import sandbox
from .worker import Worker


class WorkerPool:
    """Hands out fresh workers and keeps ``spares`` more started in the background.

    Thread-safe: several runs can take workers at once; each gets its own child.
    Spares are started by one long-lived thread because bubblewrap's
    ``--die-with-parent`` ties a sandbox's life to the thread that started it.
    """

    def __init__(
        self, isolation: Isolation | None = None, limits: sandbox.Limits | None = None, spares: int = 2
    ) -> None:
        self.isolation, self.isolation_reason = (
            (isolation, "chosen by the caller") if isolation is not None else sandbox.detect_isolation()
        )
        self.limits = limits or sandbox.Limits()
        self.spares = spares
        self._ready: list[Worker] = []
        self._wanted = threading.Condition()
        self._closed = False
        self._spawner = threading.Thread(target=self._keep_spares, daemon=True, name="skynet-spares")
        self._spawner.start()

    def take(self) -> Worker:
        """A started worker of this pool's isolation; the caller closes it when done."""
        with self._wanted:
            worker = None
            while self._ready:
                candidate = self._ready.pop()
                if candidate.alive and not candidate.stale:
                    worker = candidate
                    break
                candidate.close()
            self._wanted.notify()
        return worker if worker is not None else Worker(self.isolation, self.limits)

    def _keep_spares(self) -> None:
        while True:
            with self._wanted:
                while not self._closed and len(self._ready) >= self.spares:
                    self._wanted.wait()
                if self._closed:
                    return
            try:
                worker = Worker(self.isolation, self.limits)
                worker.wait_ready()
            except Exception:  # noqa: BLE001  (a spare that fails to start is retried after a pause)
                time.sleep(1.0)
                continue
            with self._wanted:
                if self._closed:
                    worker.close()
                    return
                self._ready.append(worker)

    def close(self) -> None:
        with self._wanted:
            self._closed = True
            ready, self._ready = self._ready, []
            self._wanted.notify_all()
        for worker in ready:
            worker.close()


_default: WorkerPool | None = None
_default_lock = threading.Lock()


def default_pool() -> WorkerPool:
    """The process-wide pool (created on first use, closed at exit)."""
    global _default
    with _default_lock:
        if _default is None:
            _default = WorkerPool()
            atexit.register(_default.close)
        return _default
