"""Background jobs: a contract check or a full scoring run in a thread, so a page never waits on metric code.

A :class:`Job` is read by the page while its thread writes it:

- ``done``/``total`` count cases finished so far; ``partial`` holds their
  results in arrival order (a copy is safe to read at any time).
- Exactly one of ``result``, ``error`` is set once ``finished`` is true;
  neither when the job was cancelled (``cancelled`` true). ``error_kind`` types
  the error (a :class:`~skynet_core.results.JobError`'s kind, else ``internal``).
- :meth:`Job.outcome` reads all of that once, as an
  :class:`~skynet_core.results.Outcome`: the one way pages read a job.
- ``cancel`` is the event the runner watches; setting it stops the metric's
  child soon after.

A :class:`JobSlot` holds one session's latest job of one kind: submitting a
new one cancels the older one still running, so a newer edit always wins.

A :class:`JobBoard` holds every job of the process, whoever started it: any
session lists and cancels them, and a job nobody watches any more (its last
watching session has been gone for ``grace_s``) is cancelled, unless it came
from the command line.
"""

from __future__ import annotations

import contextvars
import itertools
import logging
import os
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..provenance import Provenance
from ..results import CaseResult, CheckReport, ErrorKind, JobError, JobKind, Outcome, OutcomeStatus
from ..scoring.runner.limit import holding
from ..scoring.runner.values import Cancelled

T = TypeVar("T")

_ids = itertools.count(1)
_log = logging.getLogger(__name__)


@dataclass(eq=False)
class Job(Generic[T]):
    """One background run. ``kind`` says what it is, ``label`` what it ran on."""

    kind: JobKind
    total: int = 0
    label: str = ""
    id: int = field(default_factory=lambda: next(_ids))
    cancel: threading.Event = field(default_factory=threading.Event)
    done: int = 0
    result: T | None = None
    error: str | None = None
    error_kind: ErrorKind | None = None
    cancelled: bool = False
    started_at: float = field(default_factory=time.monotonic)
    started_wall: float = field(default_factory=time.time)
    finished_at: float | None = None
    provenance: Provenance | None = None
    _partial: list[CaseResult] = field(default_factory=list)
    _items: list[Any] = field(default_factory=list)
    _lock: threading.Lock = field(default_factory=threading.Lock)
    _finished: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.kind = JobKind(self.kind)

    @property
    def finished(self) -> bool:
        return self._finished.is_set()

    @property
    def running(self) -> bool:
        return not self._finished.is_set()

    @property
    def progress(self) -> float:
        """Fraction of cases done, 0 to 1 (1 once finished)."""
        if self.finished:
            return 1.0
        return min(1.0, self.done / self.total) if self.total else 0.0

    @property
    def elapsed_s(self) -> float:
        end = self.finished_at if self.finished_at is not None else time.monotonic()
        return end - self.started_at

    @property
    def partial(self) -> list[CaseResult]:
        with self._lock:
            return list(self._partial)

    def latest(self, count: int) -> list[CaseResult]:
        """The last ``count`` results recorded so far, in the order they came (no copy of every result: a page
        polling a 900,000-case job asks five times a second)."""
        with self._lock:
            return self._partial[-count:] if count > 0 else []

    def add_result(self, result: CaseResult) -> None:
        """Record one case's result (called from runner threads)."""
        with self._lock:
            self._partial.append(result)
            self.done += 1

    @property
    def items(self) -> list[Any]:
        """What a job that makes something else than case results made so far (a grade per case), in order."""
        with self._lock:
            return list(self._items)

    def add_item(self, item: Any) -> None:
        """Record one item of progress (a grade…) and count it done."""
        with self._lock:
            self._items.append(item)
            self.done += 1

    def outcome(self) -> Outcome:
        """This job's state, read once (see :class:`~skynet_core.results.Outcome` for what each field means)."""
        kind, done, total = self.kind, self.done, self.total
        if not self.finished or self.cancelled:
            status = OutcomeStatus.CANCELLED if self.finished else OutcomeStatus.RUNNING
            return Outcome(kind, status, done, total, tuple(self.partial))
        if self.error is not None or self.result is None:
            kind_of_error = self.error_kind or ErrorKind.INTERNAL
            return Outcome(
                kind, OutcomeStatus.COULD_NOT_RUN, done, total, error_kind=kind_of_error, error=self.error or ""
            )
        report = self.result
        if not isinstance(report, CheckReport):
            return Outcome(kind, OutcomeStatus.SCORED, done, total, tuple(self.partial))
        if not report.cases and report.first_failure is not None:
            return Outcome(kind, OutcomeStatus.METRIC_BROKEN, done, total, failure=report.first_failure)
        return Outcome(kind, OutcomeStatus.SCORED, done, total, tuple(report.cases))

    def wait(self, timeout: float | None = None) -> bool:
        """Wait up to ``timeout`` seconds for the job to finish; True when it has."""
        return self._finished.wait(timeout)

    def start(self, target: Callable[[Job[T]], T]) -> Job[T]:
        """Run ``target(self)`` in a daemon thread and return self."""
        # The job runs in a copy of the starter's context, so that its messages follow the language of the
        # session that started it.
        context = contextvars.copy_context()
        threading.Thread(
            target=context.run, args=(self._run, target), daemon=True, name=f"skynet-{self.kind}-{self.id}"
        ).start()
        return self

    def _run(self, target: Callable[[Job[T]], T]) -> None:
        try:
            with holding(self.label or str(self.kind), self.id):  # its sandboxes count as one run in the queue
                value = target(self)
            if self.cancel.is_set():
                self.cancelled = True
            else:
                self.result = value
        except Cancelled:
            self.cancelled = True
        except JobError as exc:
            if self.cancel.is_set():
                self.cancelled = True
            else:
                self.error, self.error_kind = str(exc), exc.kind
        except Exception as exc:  # noqa: BLE001  (a job reports its failure; the page shows it)
            if self.cancel.is_set():
                self.cancelled = True
            else:
                self.error_kind = ErrorKind.INTERNAL
                last = traceback.extract_tb(exc.__traceback__)[-1:]
                where = f" ({last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
                self.error = f"{type(exc).__name__}: {exc}{where}"
        finally:
            self.finished_at = time.monotonic()
            self._finished.set()


class JobSlot:
    """The current job of one kind for one session. Thread-safe."""

    def __init__(self) -> None:
        self._job: Job[Any] | None = None
        self._lock = threading.Lock()

    @property
    def job(self) -> Job[Any] | None:
        return self._job

    def submit(self, job: Job[T], target: Callable[[Job[T]], T]) -> Job[T]:
        """Cancel the job still running here (if any), then start ``job``."""
        with self._lock:
            older, self._job = self._job, job
        if older is not None and older.running:
            older.cancel.set()
        return job.start(target)

    def cancel(self) -> None:
        """Cancel the current job if it still runs; it stays in the slot, marked cancelled when it stops."""
        job = self._job
        if job is not None and job.running:
            job.cancel.set()

    def clear(self) -> None:
        self.cancel()
        self._job = None


ORPHAN_GRACE_ENV = "SKYNET_JOB_ORPHAN_S"
DEFAULT_ORPHAN_GRACE_S = 60.0
CLI_ORIGIN = "cli"


def orphan_grace_s() -> float:
    """How long a job may go unwatched before it is cancelled (``$SKYNET_JOB_ORPHAN_S``, default 60 s)."""
    try:
        value = float(os.environ.get(ORPHAN_GRACE_ENV, "") or DEFAULT_ORPHAN_GRACE_S)
    except ValueError:
        return DEFAULT_ORPHAN_GRACE_S
    return value if value > 0 else DEFAULT_ORPHAN_GRACE_S


@dataclass
class _Entry:
    job: Job[Any]
    origin: str
    watchers: set[str]


class JobBoard:
    """Every job of the process: who may see it (anyone), who watches it, and the cancelling of orphans.

    A *watcher* is an opaque id (a browser session's). :meth:`watch` says "this watcher is still
    here"; a job is watched by the watcher that started it and by every watcher that was shown it
    (:meth:`running` with ``watcher``). A running job none of whose watchers was seen for
    ``grace_s`` is cancelled by :meth:`reap` (a background thread calls it every second or so),
    except jobs whose ``origin`` is :data:`CLI_ORIGIN` or that were added without a watcher.
    Thread-safe.
    """

    def __init__(self, grace_s: float | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        self.grace_s = orphan_grace_s() if grace_s is None else grace_s
        self._clock = clock
        self._entries: dict[int, _Entry] = {}
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()
        self._reaper: threading.Thread | None = None

    def add(self, job: Job[Any], watcher: str | None, origin: str = "studio") -> Job[Any]:
        with self._lock:
            self._entries[job.id] = _Entry(job, origin, {watcher} if watcher else set())
            if watcher:
                self._seen[watcher] = self._clock()
            # Finished jobs leave the board; only the running ones are listed and watched.
            for job_id in [key for key, entry in self._entries.items() if entry.job.finished]:
                del self._entries[job_id]
        self._start_reaper()
        return job

    def watch(self, watcher: str) -> None:
        """``watcher`` is still here (a session calls this whenever it runs or polls)."""
        with self._lock:
            self._seen[watcher] = self._clock()

    def running(self, watcher: str | None = None) -> list[Job[Any]]:
        """The running jobs, oldest first; with ``watcher``, that watcher now watches each of them."""
        with self._lock:
            entries = [entry for entry in self._entries.values() if entry.job.running]
            if watcher:
                self._seen[watcher] = self._clock()
                for entry in entries:
                    entry.watchers.add(watcher)
        return sorted((entry.job for entry in entries), key=lambda job: job.started_at)

    def cancel(self, job_id: int) -> None:
        with self._lock:
            entry = self._entries.get(job_id)
        if entry is not None and entry.job.running:
            entry.job.cancel.set()

    def reap(self) -> list[Job[Any]]:
        """Cancel the running jobs nobody has watched for ``grace_s``; return them."""
        now = self._clock()
        orphans = []
        with self._lock:
            for entry in self._entries.values():
                if entry.origin == CLI_ORIGIN or not entry.watchers or not entry.job.running:
                    continue
                last = max(self._seen.get(watcher, 0.0) for watcher in entry.watchers)
                if now - last > self.grace_s:
                    orphans.append(entry.job)
        for job in orphans:
            job.cancel.set()
            _log.warning("Cancelled job %d (%s): no session has watched it for %g s.", job.id, job.kind, self.grace_s)
        return orphans

    def _start_reaper(self) -> None:
        with self._lock:
            if self._reaper is not None:
                return
            self._reaper = threading.Thread(target=self._reap_forever, daemon=True, name="skynet-job-reaper")
        self._reaper.start()

    def _reap_forever(self) -> None:
        pause = min(1.0, self.grace_s / 4)
        while True:
            time.sleep(pause)
            self.reap()
