"""Scoring cases in isolated workers: one run's batches, the children that score them, its results in order.

Each child is driven by a :class:`~skynet_core.scoring.runner.shard.Shard`, which recovers from a bad case.
"""

from __future__ import annotations

import contextvars
import functools
import statistics
import threading
import time
from collections.abc import Collection, Sequence

from ...cases import Case
from ...heap import Settler
from ...i18n import _
from ...metric.source import MetricSource
from ...results import CaseResult, CaseStatus, RunTally
from ..options import ResultCallback, RunOptions, ScoreRun
from .pool import default_pool
from .replies import failed_result
from .shard import LoadFailure, Shard
from .values import Cancelled
from .worker import Worker

MAX_BATCH_CASES = 1024
GUIDED_SHARES = 2  # a slice takes at most 1/(workers × this) of the cases left
AHEAD_CASES = 8 * MAX_BATCH_CASES  # how far past the first unfinished case workers may run (bounds held results)
# A case quicker than this takes its child less time than this process takes to handle its result, so more
# children would only wait on this process: a run starts with one child and adds the others once its cases
# are slower than this on average and have kept the child busy for BUSY_MS (so that one case held up by a
# busy machine does not count, while a judge's first answer does).
SLOW_CASE_MS = 0.05
BUSY_MS = 20.0
# Nor when what is left would take one child less than this: starting a child costs about 0.1 s of CPU, so
# 200 cases of a judge answered from the cache (a millisecond each) are done sooner by the one child.
HELPERS_PAY_MS = 500.0
TYPICAL_OF = 64
# A case that asks the model is judged by the cases that asked it, not by the typical case: after 60 cases
# answered from the answer cache (a millisecond each), 20 new ones of a judge answering in 0.5 s still pay for
# helpers. Until they start, the one child's batch never holds cases not scored before in this process (whose
# calls are not on record: they may ask the model) behind those that were, nor more of them than a guided
# slice (:func:`batch_size`), so that a case that asks the model never waits behind many others that may too.

# take_batch's answer to a shard that must give its sandbox back before it waits
_IDLE: tuple[int, list[Case]] = (-1, [])


def batch_size(remaining: int, workers: int) -> int:
    """How many of the ``remaining`` cases the next slice takes.

    One worker takes slices of ``MAX_BATCH_CASES`` (fewest round trips).
    Several take a share of what is left that shrinks as the run goes on
    (guided scheduling): large slices first, then smaller ones, so that no
    worker is left with a long tail while the others idle, whether a case
    takes microseconds or a slow judge's whole second.
    """
    if workers <= 1:
        return min(MAX_BATCH_CASES, remaining)
    return max(1, min(MAX_BATCH_CASES, remaining // (workers * GUIDED_SHARES)))


class _InOrder:
    """Hands results on in the order of the cases, holding those that finish early.

    Workers take no cases more than ``AHEAD_CASES`` past the first unfinished
    one, so what is held stays bounded however many cases the run has. Not
    thread-safe by itself: callers hold ``lock``.
    """

    def __init__(self, count: int, deliver: ResultCallback, lock: threading.Condition) -> None:
        self.deliver, self.lock = deliver, lock
        self.done = bytearray(count)
        self.next = 0
        self.early: dict[int, CaseResult] = {}
        self.waiting = 0  # workers waiting for the first unfinished case to finish

    def put(self, index: int, result: CaseResult) -> None:
        self.done[index] = 1
        if index != self.next:
            self.early[index] = result
            return
        self.deliver(result)
        self.next += 1
        while self.next in self.early:
            self.deliver(self.early.pop(self.next))
            self.next += 1
        if self.waiting:
            self.lock.notify_all()

    def flush(self) -> None:
        """Hand on what is held past a gap (cases a cancelled or halted run never ran)."""
        for index in sorted(self.early):
            self.deliver(self.early.pop(index))


def _asked_the_model(result: CaseResult) -> bool:
    """Whether the case asked the model (a call not answered from the answer cache)."""
    return any(not call.cached for call in result.llm_calls)


def score_cases(
    source: str | MetricSource, cases: Sequence[Case], options: RunOptions, *, worker: Worker | None = None
) -> ScoreRun:
    """Score every case with the metric ``source`` (metric.py's text, or a metric folder) in isolated children,
    as ``options`` say (:class:`~skynet_core.scoring.RunOptions`, taken whole). Callers score through a
    :class:`~skynet_core.scoring.Scorer`; this is what the local one runs.

    Up to ``options.concurrency`` children run at once; the others start once cases
    prove slower than ``SLOW_CASE_MS`` on average (a quick metric is faster in
    one child, a model-as-judge needs them all).
    ``on_result`` is called for each result as it arrives (from worker
    threads when ``concurrency`` > 1; keep it quick and thread-safe).
    ``in_order`` is called for each result in the order of ``cases``, one call
    at a time (for writing results as they come); ``keep=False`` then keeps
    none of them in the returned run, only its tally, so memory does not grow
    with the number of cases (``cases`` may be a lazy sequence too).
    ``cancel`` stops the run; the results so far are returned. A metric that
    does not load fails every case with the load error (``load_error`` set).
    ``worker``: an already-loaded worker to start with (the contract check's).
    ``stop_on_timeout``: after the first timeout, run no more cases (the
    contract check wants a fast verdict, not every case's timeout).
    """
    return _Run(MetricSource.of(source), cases, options).run(worker)


class _Run:
    """One :func:`score_cases` call: its cases, the results in order, and the children that score them.

    One shard (the caller's thread) starts; helpers join once cases prove slow (:meth:`slow`). Every field a
    shard's thread changes is changed under ``lock``, except ``busy`` and ``first``, which only the starting
    shard touches before the helpers exist.
    """

    def __init__(self, source: MetricSource, cases: Sequence[Case], options: RunOptions) -> None:
        self.source, self.cases, self.timeout, self.llm = source, cases, options.timeout_s, options.llm
        self.pool = options.pool or default_pool()
        self.cancel = options.cancel or threading.Event()
        self.halt = threading.Event() if options.stop_on_timeout else None
        self.on_result, self.in_order, self.keep = options.on_result, options.in_order, options.keep
        self.results: list[CaseResult] = []
        self.tally = RunTally()
        self.lock = threading.Condition(threading.Lock())  # never taken twice by one thread, so no RLock
        self.load_error: list[LoadFailure] = []
        self.settler = Settler()  # kept results leave the garbage collector's scans (skynet_core.heap)
        self.ordered = _InOrder(len(cases), self.deliver, self.lock)
        self.workers = max(1, min(int(options.concurrency), len(cases) or 1))
        self.line_batch = getattr(cases, "line_batch", None)
        self.next_start = 0
        self.cancelled = False
        self.helpers: list[threading.Thread] = []
        self.busy = [0, 0.0]  # results seen and the time their calls took, until the helpers start
        self.first: list[float] = []  # the durations of the first TYPICAL_OF of them
        self.asked: list[float] = []  # the durations of those that asked the model (not answered from the cache)
        self.may_ask = source.names_llm()

    def deliver(self, result: CaseResult) -> None:
        self.tally.add(result)
        if self.keep:
            self.results.append(result)
            self.settler.kept()
        if self.in_order is not None:
            self.in_order(result)

    def emit(self, index: int, result: CaseResult) -> None:
        with self.lock:
            self.ordered.put(index, result)
        if self.on_result is not None:
            self.on_result(result)
        if not self.helpers:
            self.busy[0] += 1
            self.busy[1] += result.duration_ms
            if len(self.first) < TYPICAL_OF:
                self.first.append(result.duration_ms)
            if self.may_ask and _asked_the_model(result):
                self.asked.append(result.duration_ms)
            if self.slow():
                self.start_helpers()

    def emit_many(self, indexes: list[int], results: list[CaseResult]) -> None:
        """``emit`` for each, under one lock."""
        with self.lock:
            for index, result in zip(indexes, results, strict=True):
                self.ordered.put(index, result)
        if self.on_result is not None:
            for result in results:
                self.on_result(result)
        if not self.helpers:
            self.busy[0] += len(results)
            self.busy[1] += sum(result.duration_ms for result in results)
            self.first.extend(result.duration_ms for result in results[: TYPICAL_OF - len(self.first)])
            if self.may_ask:
                self.asked.extend(result.duration_ms for result in results if _asked_the_model(result))
            if self.slow():
                self.start_helpers()

    def slow(self) -> bool:
        """Whether more children would finish sooner (see SLOW_CASE_MS, BUSY_MS and HELPERS_PAY_MS). What is
        left is judged by the typical case (the median of the first ones), not by their mean: on a busy
        machine one case held up for 0.2 s would otherwise start every helper for a run of quick ones."""
        seen, spent = self.busy
        if spent < max(BUSY_MS, SLOW_CASE_MS * seen):
            return False
        return self.helpers_pay()

    def helpers_pay(self) -> bool:
        """Whether what is left would take one child at least HELPERS_PAY_MS, each case taking as long as the
        typical case, or as the typical case that asked the model once one did."""
        typical = statistics.median(self.first)
        if self.asked:
            typical = max(typical, statistics.median(self.asked))
        return typical * (len(self.cases) - self.busy[0]) >= HELPERS_PAY_MS

    def may_share(self) -> bool:
        """Whether other children take, or may yet take, part of what is left (so that slices shrink as the run
        goes on). Not once the typical case shows that what is left never pays for helpers (:meth:`slow`): the
        median of the first cases no longer changes and fewer cases are left each time, so they never will
        (unless a case asks the model: :meth:`cut` keeps such cases out of the one child's large batches)."""
        if self.helpers or self.workers <= 1 or len(self.first) < TYPICAL_OF:
            return self.workers > 1
        return self.helpers_pay()

    def cut(self, start: int, count: int, on_record: Collection[int]) -> int:
        """How many of the batch of ``count`` cases from ``start`` the one child is sent (the rest go back to
        the run), given the positions in it of the cases whose calls are on record: those before the first
        case not on record, or a guided slice of the cases from it. All of them once helpers run (or when
        none may: one worker), or when every case is on record."""
        with self.lock:
            if self.helpers or self.workers <= 1 or self.next_start != start + count:
                return count
            first_new = next((position for position in range(count) if position not in on_record), None)
            if first_new is None:
                return count
            keep = first_new or min(count, batch_size(len(self.cases) - start, self.workers))
            self.next_start = start + keep
            return keep

    def take_batch(self, shard: Shard, wait: bool = True) -> tuple[int, list[Case]] | None:
        """The next batch for ``shard``; None when none is left. ``wait=False``: None too when it would have to
        wait (too far past the first unfinished case) or give its sandbox back (:data:`_IDLE`)."""
        cases, ordered = self.cases, self.ordered
        with self.lock:
            while True:
                start = self.next_start
                if start >= len(cases) or self.load_error or (self.halt is not None and self.halt.is_set()):
                    return None
                if start - ordered.next <= AHEAD_CASES or self.cancel.is_set():
                    break
                if not wait:
                    return None
                if shard.worker is not None and self.pool.limit.waiting():
                    return _IDLE  # its sandbox would sit idle while others wait for a place: it is closed first
                ordered.waiting += 1  # the first unfinished case is still running; do not run too far ahead of it
                self.lock.wait(0.1)
                ordered.waiting -= 1
            end = start + batch_size(len(cases) - start, self.workers if self.may_share() else 1)
            self.next_start = end
        # A JSON Lines file's cases come as their lines, to be sent as they are (datasets.lines.LineCase).
        return start, self.line_batch(start, end) if self.line_batch is not None else list(cases[start:end])

    def take_ahead(self, shard: Shard) -> tuple[int, list[Case]] | None:
        """The batch a shard sends as its child ends one (``Shard.next_batch``): never one to wait for, nor
        while the shard's sandbox should go to another run."""
        worker = shard.worker
        if worker is None or self.pool.crowded(worker) or self.pool.limit.waiting():
            return None
        return self.take_batch(shard, wait=False)

    def drive(self, shard: Shard) -> None:
        shard.next_batch = functools.partial(self.take_ahead, shard)
        shard.cut = self.cut
        try:
            while (batch := shard.pending() or self.take_batch(shard)) is not None:
                if batch is _IDLE:
                    shard.close()
                    continue
                if self.halt is not None and self.halt.is_set():  # a batch taken ahead, before the halt
                    shard.drop_pending()
                    break
                shard.run_batch(*batch)
                if shard.queued is None and shard.worker is not None and self.pool.crowded(shard.worker):
                    shard.close()  # the sandbox limit's place goes to a run that holds fewer
        except Cancelled:
            self.cancelled = True
        except LoadFailure as exc:
            with self.lock:
                self.load_error.append(exc)
        finally:
            shard.close()

    def shard(self, worker: Worker | None = None) -> Shard:
        return Shard(
            self.source, self.pool, self.timeout, self.llm, self.cancel, self.emit, worker, self.halt, self.emit_many
        )

    def start_helpers(self) -> None:
        with self.lock:
            if self.helpers:
                return
            self.helpers.extend(
                # In the starter's context: the messages of the helper's cases follow its language.
                threading.Thread(target=contextvars.copy_context().run, args=(self.drive, self.shard()), daemon=True)
                for _helper in range(self.workers - 1)
            )
        for thread in self.helpers:
            thread.start()

    def run(self, worker: Worker | None) -> ScoreRun:
        """Score every case (starting with ``worker`` when given), then fail the unscored ones with the load
        error if the metric did not load."""
        began = time.monotonic()
        self.drive(self.shard(worker))
        with self.lock:
            started = list(self.helpers)
        for thread in started:
            thread.join()
        if self.load_error:
            failure = self.load_error[0]
            message = _("metric.py did not load: {error}").format(error=failure.message)
            for index, done in enumerate(self.ordered.done):
                if not done:
                    failed = failed_result(
                        self.cases[index], CaseStatus.ERROR, message, failure.line, file=failure.file
                    )
                    self.emit(index, failed)
        with self.lock:
            self.ordered.flush()
        return ScoreRun(
            results=self.results,
            isolation=self.pool.isolation,
            cancelled=self.cancelled or self.cancel.is_set(),
            duration_ms=(time.monotonic() - began) * 1000.0,
            load_error=self.load_error[0] if self.load_error else None,
            by_status=dict(self.tally.by_status),
            tally=self.tally,
        )
