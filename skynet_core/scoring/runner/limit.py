"""At most N sandboxes alive at once in this process, whoever asked for them: one queue every run waits in.

Every sandbox a run uses is taken from a :class:`~skynet_core.scoring.runner.pool.WorkerPool`, and every take
holds a *place* of the process-wide :class:`SandboxLimit` until the sandbox is closed (the pool's idle
spares, at most two, hold none). A run that finds every place taken waits in the queue, cancellably
(its job's cancel event ends the wait at once).

Fair across runs: a freed place goes to the waiting run that holds the fewest places (first come, first
served among equals), and a run that holds more than its share hands one back at the end of its batch
when a run with fewer waits (:meth:`SandboxLimit.crowded`), so six "Score all" of eight cases in flight
share eight places instead of starting forty-eight sandboxes, and a contract check typed meanwhile
waits for one batch, not for six runs.

A *run* is what :func:`holding` names: the jobs of the studio name theirs (``holding(label, job_id)``
around the job's work); elsewhere each thread that takes a sandbox is a run of its own, named after the
thread, and the helper threads a run starts belong to it (they copy its context).

N is :func:`default_capacity`: twice the cores, and at least 8 (one "Score all" of a judge keeps 8
calls in flight by default, and a sandbox that waits for a model answer takes no CPU);
``SKYNET_MAX_SANDBOXES`` or :meth:`SandboxLimit.set_capacity` (the Settings page) changes it.
:meth:`SandboxLimit.view` is the queue as the sidebar shows it: who holds places, who waits and for
how long.
"""

from __future__ import annotations

import contextvars
import itertools
import os
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .values import Cancelled

CAPACITY_ENV = "SKYNET_MAX_SANDBOXES"
SETTING_KEY = "runner.max_sandboxes"
"""The store key of the capacity the Settings page sets (an int; missing: :func:`default_capacity`)."""
MIN_CAPACITY = 8
MAX_CAPACITY = 256
CANCEL_POLL_S = 0.1  # how often a waiting run looks at its cancel event

_run_ids = itertools.count(1)


@dataclass(frozen=True)
class Run:
    """Who holds places: one run (a job's, or a thread's). ``job_id`` is the studio job's id, when known."""

    id: int
    label: str
    job_id: int | None = None


_current: contextvars.ContextVar[Run | None] = contextvars.ContextVar("skynet_sandbox_run", default=None)


def current_run() -> Run:
    """The run the calling code belongs to: the one :func:`holding` named, else one named after this thread
    (made on first use and kept in the context, so the helper threads it starts share it)."""
    run = _current.get()
    if run is None:
        run = Run(next(_run_ids), threading.current_thread().name)
        _current.set(run)
    return run


@contextmanager
def holding(label: str, job_id: int | None = None) -> Iterator[Run]:
    """Name the run of the code inside (a studio job's): its sandboxes count as one run in the queue."""
    run = Run(next(_run_ids), label, job_id)
    token = _current.set(run)
    try:
        yield run
    finally:
        _current.reset(token)


def default_capacity(cores: int | None = None, env: dict[str, str] | None = None) -> int:
    """Twice the cores, at least :data:`MIN_CAPACITY`; ``SKYNET_MAX_SANDBOXES`` (1 to 256) overrides it."""
    given = (os.environ if env is None else env).get(CAPACITY_ENV, "").strip()
    if given.isdigit() and 1 <= int(given) <= MAX_CAPACITY:
        return int(given)
    return max(MIN_CAPACITY, 2 * (cores if cores is not None else os.cpu_count() or 1))


def capacity_from_setting(value: object) -> int:
    """The capacity the ``runner.max_sandboxes`` setting asks for (1 to 256), else :func:`default_capacity`."""
    if isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= MAX_CAPACITY:
        return value
    return default_capacity()


class Place:
    """One sandbox's place, held from the pool's take until the sandbox closes. :meth:`release` is idempotent."""

    __slots__ = ("_limit", "released", "run")

    def __init__(self, limit: SandboxLimit, run: Run) -> None:
        self._limit, self.run, self.released = limit, run, False

    def release(self) -> None:
        self._limit._release(self)


@dataclass(frozen=True)
class Holding:
    """A run holding places: its label, its job (when known) and how many places."""

    run: Run
    places: int


@dataclass(frozen=True)
class Waiting:
    """A request for a place waiting in the queue: the run, and since how long (seconds)."""

    run: Run
    waited_s: float


@dataclass(frozen=True)
class QueueView:
    """The queue at one moment: ``capacity`` places, the runs holding them, and the requests waiting, in
    the order they will be served. Invariant: ``in_use`` (the sum of the holdings) ≤ ``capacity``."""

    capacity: int
    holding: tuple[Holding, ...] = ()
    waiting: tuple[Waiting, ...] = ()

    @property
    def in_use(self) -> int:
        return sum(item.places for item in self.holding)

    @property
    def longest_wait_s(self) -> float:
        return max((item.waited_s for item in self.waiting), default=0.0)


@dataclass(eq=False)
class _Request:
    run: Run
    since: float
    order: int
    place: Place | None = None


@dataclass
class _Counts:
    held: dict[int, int] = field(default_factory=dict)  # run id -> places
    runs: dict[int, Run] = field(default_factory=dict)


class SandboxLimit:
    """The places (see the module docstring). Thread-safe."""

    def __init__(self, capacity: int | None = None) -> None:
        self._capacity = capacity if capacity is not None else default_capacity()
        self._changed = threading.Condition(threading.Lock())
        self._waiting: list[_Request] = []
        self._counts = _Counts()
        self._in_use = 0
        self._order = itertools.count()

    @property
    def capacity(self) -> int:
        return self._capacity

    def set_capacity(self, capacity: int) -> None:
        """Change N (1 to 256); a lower N takes effect as places are released, a higher one at once."""
        if not 1 <= capacity <= MAX_CAPACITY:
            raise ValueError(f"the sandbox limit must be from 1 to {MAX_CAPACITY}, not {capacity}")
        with self._changed:
            self._capacity = capacity
            self._serve()

    def raise_to(self, capacity: int) -> None:
        """At least ``capacity`` places (a command line asking for more cases in flight than N)."""
        with self._changed:
            if capacity > self._capacity:
                self._capacity = min(MAX_CAPACITY, capacity)
                self._serve()

    def acquire(self, cancel: threading.Event | None = None, run: Run | None = None) -> Place:
        """A place for ``run`` (the caller's :func:`current_run` by default), waiting in the queue for one;
        raises :class:`~skynet_core.scoring.runner.worker.Cancelled` when ``cancel`` is set meanwhile."""
        request = _Request(run or current_run(), time.monotonic(), next(self._order))
        with self._changed:
            self._waiting.append(request)
            self._serve()
            while request.place is None:
                if cancel is not None and cancel.is_set():
                    self._waiting.remove(request)
                    self._serve()
                    raise Cancelled()
                self._changed.wait(CANCEL_POLL_S if cancel is not None else None)
        return request.place

    def crowded(self, place: Place) -> bool:
        """Whether ``place``'s run should hand a place back: a waiting run holds at least two fewer places."""
        with self._changed:
            if place.released or not self._waiting:
                return False
            mine = self._counts.held.get(place.run.id, 0)
            return any(self._counts.held.get(request.run.id, 0) < mine - 1 for request in self._waiting)

    def waiting(self) -> int:
        """How many requests wait for a place."""
        with self._changed:
            return len(self._waiting)

    def view(self) -> QueueView:
        """Who holds places and who waits (see :class:`QueueView`)."""
        now = time.monotonic()
        with self._changed:
            holding = tuple(
                Holding(self._counts.runs[run_id], places) for run_id, places in self._counts.held.items() if places > 0
            )
            waiting = tuple(Waiting(request.run, now - request.since) for request in self._ordered())
            return QueueView(self._capacity, holding, waiting)

    def _release(self, place: Place) -> None:
        with self._changed:
            if place.released:
                return
            place.released = True
            self._in_use -= 1
            run_id = place.run.id
            left = self._counts.held[run_id] - 1
            if left:
                self._counts.held[run_id] = left
            else:
                del self._counts.held[run_id]
                del self._counts.runs[run_id]
            self._serve()

    def _ordered(self) -> list[_Request]:
        """The waiting requests in the order they are served: fewest places held by their run first, then
        first come."""
        held = self._counts.held
        return sorted(self._waiting, key=lambda request: (held.get(request.run.id, 0), request.order))

    def _serve(self) -> None:
        """Hand free places to waiting requests (the lock is held)."""
        served = False
        while self._waiting and self._in_use < self._capacity:
            request = self._ordered()[0]
            self._waiting.remove(request)
            request.place = Place(self, request.run)
            self._in_use += 1
            self._counts.held[request.run.id] = self._counts.held.get(request.run.id, 0) + 1
            self._counts.runs[request.run.id] = request.run
            served = True
        if served:
            self._changed.notify_all()


_limit: SandboxLimit | None = None
_limit_lock = threading.Lock()


def sandbox_limit() -> SandboxLimit:
    """The process's limit (created on first use with :func:`default_capacity`)."""
    global _limit
    with _limit_lock:
        if _limit is None:
            _limit = SandboxLimit()
        return _limit
