"""Pre-started children, so a contract check on a keystroke pause does not pay for a process start.

A worker is used for one metric and then killed; the pool only keeps fresh,
never-used children waiting (started, imports done, blocked on their channel).
Every worker handed out holds a place of the process-wide sandbox limit until it
is closed (:mod:`skynet_core.scoring.runner.limit`): a take waits in its queue when all
places are taken.
"""

from __future__ import annotations

import atexit
import threading
import time
import weakref

from ...results import Isolation
from . import sandbox
from .limit import Place, SandboxLimit, sandbox_limit
from .worker import Worker

SPARE_WAIT_S = 30.0  # the longest take() waits for a spare being started (a child's start allows as long)


class WorkerPool:
    """Hands out fresh workers and keeps ``spares`` more started in the background.

    Thread-safe: several runs can take workers at once; each gets its own child.
    Spares are started by one long-lived thread because bubblewrap's
    ``--die-with-parent`` ties a sandbox's life to the thread that started it.
    ``limit``: the places every worker handed out holds (the process's limit by default).
    """

    def __init__(
        self,
        isolation: Isolation | None = None,
        limits: sandbox.Limits | None = None,
        spares: int = 2,
        refill: bool = True,
        limit: SandboxLimit | None = None,
    ) -> None:
        self.limits = limits or sandbox.Limits()
        self.limit = limit or sandbox_limit()
        self._places: weakref.WeakKeyDictionary[Worker, Place] = weakref.WeakKeyDictionary()
        self.spares = spares
        # Without ``refill``, only the first ``spares`` are started (a command line's one run needs one child,
        # and every sandbox started beside it takes a core from the run).
        self.refill = refill
        self._started = 0
        self._starting = 0  # spares being started now: take() waits for one rather than starting its own
        self._waiting = 0  # callers of take() waiting for them
        self._ready: list[Worker] = []
        self._wanted = threading.Condition()
        self._closed = False
        # Where full isolation may work, the first spare starts with it, and its start is the answer: a sandbox
        # that started shows bubblewrap works here as well as the probe would (a sandbox started only to see it
        # start, which took a core from the spare's start for as long). The probe runs when that spare fails.
        self._early = isolation is None and spares > 0 and sandbox.full_may_work()
        self._detected = threading.Event()
        self._spawner = threading.Thread(target=self._keep_spares, daemon=True, name="skynet-spares")
        if self._early:
            self._started = self._starting = 1
            self._spawner.start()
            self._detected.wait()
            return
        self.isolation, self.isolation_reason = (
            (isolation, "chosen by the caller") if isolation is not None else sandbox.detect_isolation()
        )
        self._spawner.start()

    def take(self, cancel: threading.Event | None = None) -> Worker:
        """A started worker of this pool's isolation, once the sandbox limit has a place for it (waiting in
        its queue meanwhile; raises ``Cancelled`` when ``cancel`` is set first). The caller closes it when
        done, which frees the place."""
        place = self.limit.acquire(cancel)
        try:
            worker = self._take()
        except BaseException:
            place.release()
            raise
        worker.on_close = place.release
        self._places[worker] = place
        return worker

    def crowded(self, worker: Worker) -> bool:
        """Whether ``worker``'s run should hand its place back (close it) at the end of its batch: another
        run with fewer places waits (see :meth:`SandboxLimit.crowded`)."""
        place = self._places.get(worker)
        return place is not None and self.limit.crowded(place)

    def _take(self) -> Worker:
        deadline = time.monotonic() + SPARE_WAIT_S
        with self._wanted:
            worker = None
            while worker is None:
                if self._ready:
                    candidate = self._ready.pop()
                    if candidate.alive and not candidate.stale:
                        worker = candidate
                    else:
                        candidate.close()
                    continue
                # A spare on its way that no other caller waits for is ready sooner than a child started now
                # (and on a machine of few cores two children starting at once each start slower).
                wait = deadline - time.monotonic()
                if self._starting <= self._waiting or wait <= 0:
                    break
                self._waiting += 1
                try:
                    self._wanted.wait(wait)
                finally:
                    self._waiting -= 1
            self._wanted.notify_all()
        return worker if worker is not None else Worker(self.isolation, self.limits)

    def _start_early(self) -> None:
        """The first spare, started with full isolation; whether it started is the pool's isolation (see
        __init__), else the probe's verdict."""
        worker: Worker | None = None
        try:
            worker = Worker(Isolation.FULL, self.limits)
            worker.wait_ready()
        except Exception:  # noqa: BLE001  (the probe says why, and the usual loop starts the spare instead)
            if worker is not None:
                worker.close()
            try:
                self.isolation, self.isolation_reason = sandbox.detect_isolation()
            finally:
                self._detected.set()  # __init__ waits for it, whatever happens
            self._spare_failed()
            return
        self.isolation, self.isolation_reason = Isolation.FULL, sandbox.FULL_REASON
        self._spare_started(worker)  # before the verdict: a pool made is one whose first spare waits
        self._detected.set()

    def _keep_spares(self) -> None:
        if self._early:
            self._start_early()
        while True:
            with self._wanted:
                # This thread lives until the pool closes, even when it starts no more: bubblewrap's
                # --die-with-parent kills the sandboxes it started when it ends.
                while not self._closed and (
                    len(self._ready) >= self.spares or (not self.refill and self._started >= self.spares)
                ):
                    self._wanted.wait()
                if self._closed:
                    return
                self._started += 1
                self._starting += 1
            try:
                worker = Worker(self.isolation, self.limits)
                worker.wait_ready()
            except Exception:  # noqa: BLE001  (a spare that fails to start is retried after a pause)
                self._spare_failed()
                time.sleep(1.0)
                continue
            if not self._spare_started(worker):
                return

    def _spare_failed(self) -> None:
        """A spare did not start: it no longer counts as started or starting."""
        with self._wanted:
            self._starting -= 1
            self._started -= 1
            self._wanted.notify_all()

    def _spare_started(self, worker: Worker) -> bool:
        """Hand a started spare to the pool; ``False`` (and the spare closed) when the pool closed meanwhile."""
        with self._wanted:
            self._starting -= 1
            self._wanted.notify_all()
            if self._closed:
                worker.close()
                return False
            self._ready.append(worker)
            return True

    def wait_for_spares(self, timeout: float) -> bool:
        """Wait at most ``timeout`` seconds until the spares this pool keeps are started (a server's preload
        waits so, so that its first visitor's check finds one, and no sandbox starts beside that first page);
        whether they are."""
        deadline = time.monotonic() + timeout
        with self._wanted:
            while not self._closed and len(self._ready) < self.spares:
                left = deadline - time.monotonic()
                if left <= 0:
                    return False
                self._wanted.wait(left)
            return not self._closed

    def close(self) -> None:
        with self._wanted:
            self._closed = True
            ready, self._ready = self._ready, []
            self._wanted.notify_all()
        for worker in ready:
            worker.close()


_default: WorkerPool | None = None
_default_lock = threading.Lock()


def default_pool(spares: int = 2, refill: bool = True) -> WorkerPool:
    """The process-wide pool (created on first use, closed at exit); ``spares`` and ``refill`` (see
    :class:`WorkerPool`) apply when this call creates it."""
    global _default
    with _default_lock:
        if _default is None:
            _default = WorkerPool(spares=spares, refill=refill)
            atexit.register(_default.close)
        return _default


def start_one_child_in_background() -> None:
    """For a command line's one run: the process-wide pool, starting one child and no more, made in a daemon
    thread (the sandbox starts while the data is read); calling it again is harmless (the pool is made once)."""
    threading.Thread(
        target=default_pool, kwargs={"spares": 1, "refill": False}, daemon=True, name="skynet-pool-start"
    ).start()
