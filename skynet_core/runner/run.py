"""Scoring cases in isolated workers: batching, concurrency, and recovery after a bad case.

A case that raises, hangs, crashes its child or breaks the channel fails
alone; the cases after it run in a fresh child with the metric loaded again.
"""

from __future__ import annotations

import contextvars
import functools
import statistics
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..cases import Case
from ..heap import Settler
from ..i18n import _
from ..metric_source import MAIN_FILE, MetricSource
from ..packages import missing_module_hint
from ..results import CaseResult, CaseStatus, Isolation, RunTally
from .pool import WorkerPool, default_pool
from .replies import clean_file, failed_result, file_of, judge_usage, reply_to_result, timeout_message
from .values import AnswersAhead, CallsAhead, CallTimeout, Cancelled, ChildDied, EncodedCases, LlmHandler
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

ResultCallback = Callable[[CaseResult], None]
_OK = CaseStatus.OK
_IDLE: tuple[int, list[Case]] = (
    -1,
    [],
)  # take_batch's answer to a shard that must give its sandbox back before it waits


@dataclass
class LoadFailure(Exception):
    """metric.py did not load: ``message`` for people, ``line`` in ``file`` (metric.py or a
    helper module of the metric folder) where known."""

    message: str
    line: int | None = None
    detail: str = ""
    file: str = MAIN_FILE

    def __str__(self) -> str:
        return self.message


@dataclass
class ScoreRun:
    """The outcome of scoring many cases: results in the order of the cases given
    (only those that ran when ``cancelled``; none when the caller streamed them
    instead of keeping them), their tally, and the isolation they ran with."""

    results: list[CaseResult]
    isolation: Isolation
    cancelled: bool = False
    duration_ms: float = 0.0
    load_error: LoadFailure | None = None
    by_status: dict[str, int] = field(default_factory=dict)
    tally: RunTally = field(default_factory=RunTally)


def load_into(
    worker: Worker, source: str | MetricSource, timeout: float, cancel: threading.Event | None
) -> dict[str, Any]:
    """Load the metric folder in ``worker``; raise LoadFailure when metric.py does not import cleanly.

    A missing module's message says what to install and the exact command (contract rule 13).
    """
    source = MetricSource.of(source)
    try:
        reply = worker.load(source, timeout, cancel)
    except CallTimeout as exc:
        raise LoadFailure(
            timeout_message(timeout, exc.line, "loading metric.py", exc.file), exc.line, file=exc.file
        ) from None
    except ChildDied as exc:
        raise LoadFailure(_("loading metric.py failed: {error}").format(error=exc)) from None
    if not reply.get("ok"):
        return_line = reply.get("line") if isinstance(reply.get("line"), int) else None
        message = str(reply.get("error") or _("metric.py failed to load"))
        missing = reply.get("missing_module")
        if isinstance(missing, str) and missing:
            message = _("{error}. {hint}").format(error=message, hint=missing_module_hint(missing, source))
        raise LoadFailure(message, return_line, str(reply.get("detail", "")), file_of(reply))
    return reply


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


@dataclass(frozen=True)
class _Queued:
    """A request of cases sent to a shard's worker while it finished the one before (``Worker.run_chunks``'s
    ``last``): the cases from ``start``, as sent, and when (``time.monotonic()``)."""

    start: int
    cases: list[Case]
    payloads: list[dict[str, Any]] | EncodedCases
    ahead: CallsAhead | None
    sent: float


class _Shard:
    """Runs batches in one worker at a time, replacing the worker after a failure.

    ``next_batch`` (the run's, which never waits) gives the batch to send as the child sends its last results
    of one, so that the child scores it while this thread handles them: the shard's :attr:`pending` batch,
    run next. Never in a careful request's place, and never to a child that may not have been sent the
    whole request (:attr:`spoiled`: it is closed, and the batch runs in a fresh one).
    """

    def __init__(
        self,
        source: MetricSource,
        pool: WorkerPool,
        timeout: float,
        llm: LlmHandler | None,
        cancel: threading.Event,
        emit: Callable[[int, CaseResult], None],
        worker: Worker | None = None,
        halt: threading.Event | None = None,
        emit_many: Callable[[list[int], list[CaseResult]], None] | None = None,
    ) -> None:
        self.source, self.pool, self.timeout, self.llm = source, pool, timeout, llm
        self.cancel, self.emit = cancel, emit
        self.emit_many = emit_many or self._emit_each
        self.worker = worker
        self.halt = halt
        # A handler that answers ahead, for a metric that may call llm(): each request of cases carries the
        # answers of the calls its cases made last time (skynet_core.llm.ahead).
        self.ahead = llm if isinstance(llm, AnswersAhead) and source.names_llm() else None
        self.next_batch: Callable[[], tuple[int, list[Case]] | None] | None = None
        self.queued: _Queued | None = None
        self.unsent: tuple[int, list[Case]] | None = None
        self.spoiled = False

    def pending(self) -> tuple[int, list[Case]] | None:
        """The batch taken while the one before ran (sent already, or to send), to run next; None when none."""
        if self.queued is not None:
            return self.queued.start, self.queued.cases
        unsent, self.unsent = self.unsent, None
        return unsent

    def drop_pending(self) -> None:
        """Forget the batch taken ahead (the run stops: its cases are not scored, as those never taken)."""
        if self.queued is not None:
            self.close()  # the child is scoring them
        self.unsent = None

    def _send_next(self, worker: Worker) -> None:
        """``Worker.run_chunks``'s ``last``: send the next batch, if the run has one ready, to ``worker``."""
        if self.next_batch is None or self.queued is not None or self.unsent is not None:
            return
        batch = self.next_batch()
        if batch is None:
            return
        start, cases = batch
        try:
            payloads, ahead = self._request(cases, list(range(len(cases))))
            worker.send_cases(payloads, self.timeout, self.cancel, False, ahead)
        except orjson.JSONEncodeError:  # nothing was written: it runs as any batch does (run_batch's refusals)
            self.unsent = batch
            return
        except (CallTimeout, ChildDied, Cancelled):  # part of it may have been written: this child takes no more
            self.unsent, self.spoiled = batch, True
            return
        self.queued = _Queued(start, cases, payloads, ahead, time.monotonic())

    def _emit_each(self, indexes: list[int], results: list[CaseResult]) -> None:
        for index, result in zip(indexes, results, strict=True):
            self.emit(index, result)

    def _fresh(self) -> Worker:
        if self.worker is None:
            self.worker = self.pool.take(self.cancel)
            try:
                load_into(self.worker, self.source, self.timeout, self.cancel)
            except BaseException:
                self.close()
                raise
        return self.worker

    def close(self) -> None:
        if self.queued is not None:  # its request is lost with the child: it runs as any batch does
            self.unsent, self.queued = (self.queued.start, self.queued.cases), None
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    def run_batch(self, start: int, cases: list[Case]) -> None:
        todo = list(range(len(cases)))
        careful = False  # after a child died with no case running: see below
        queued = self.queued if self.queued is not None and self.queued.start == start else None
        self.queued = None if queued is not None else self.queued
        while todo:
            worker = self._fresh()
            sent, answered = todo, 0
            try:
                if queued is not None:  # the first try: its request went while the batch before ended
                    payloads, ahead, sent_at, queued = queued.payloads, queued.ahead, queued.sent, None
                else:
                    (payloads, ahead), sent_at = self._request(cases, sent), None
                last = None if careful else functools.partial(self._send_next, worker)
                chunks = worker.run_chunks(payloads, self.timeout, self.llm, self.cancel, careful, ahead, sent_at, last)
                for replies in chunks:
                    # The child's message, a few ms' worth of results, goes on in one step.
                    indexes = sent[answered : answered + len(replies)]
                    results = [
                        reply_to_result(cases[index], reply, self.source)
                        for index, reply in zip(indexes, replies, strict=True)
                    ]
                    self.emit_many([start + index for index in indexes], results)
                    answered += len(replies)
                todo = []
                if self.spoiled:
                    self.spoiled = False
                    self.close()
            except orjson.JSONEncodeError:
                # Nothing was sent: a case the channel cannot carry fails alone, the others go again.
                todo = [i for i in sent if not self._refused_unsendable(start + i, cases[i])]
            except (CallTimeout, ChildDied) as exc:
                running = exc.index if exc.index is not None and answered <= exc.index < len(sent) else None
                if running is None and isinstance(exc, ChildDied) and not (careful and not answered):
                    # No case was running (the child died between cases or before it read them, as when a
                    # case's metric code broke the channel and the child only found out at its next check):
                    # none of these is known to be at fault. They go again in a fresh child that checks its
                    # channel after every case, so that the one that breaks it fails alone; if that child too
                    # dies before answering any, the first of them is blamed (the metric breaks every child).
                    todo, careful = sent[answered:], True
                    self.close()
                    continue
                # The case that was running fails; those it finished but had not sent yet run again.
                failed = running if running is not None else answered
                elapsed = worker.running_ms()
                case = cases[sent[failed]]
                if isinstance(exc, CallTimeout):
                    result = failed_result(
                        case,
                        CaseStatus.TIMEOUT,
                        timeout_message(self.timeout, exc.line, file=exc.file),
                        exc.line,
                        elapsed,
                        file=exc.file,
                    )
                else:
                    file, line = _place_from(str(exc))
                    result = failed_result(case, CaseStatus.ERROR, str(exc), line, elapsed, file=file)
                if exc.llm_calls and failed == answered:  # the calls the running case made before it failed
                    result.judge, result._llm_calls = judge_usage(exc.llm_calls)
                halt = self.halt if isinstance(exc, CallTimeout) else None
                if halt is not None:
                    halt.set()  # before the result goes on: a slow result starts helpers, which must not run
                self.emit(start + sent[failed], result)
                todo, careful = sent[answered:failed] + sent[failed + 1 :], False
                self.close()
                if halt is not None:
                    return

    def _request(
        self, cases: list[Case], sent: list[int]
    ) -> tuple[list[dict[str, Any]] | EncodedCases, CallsAhead | None]:
        """The cases at ``sent`` as the child is sent them, and the answers sent ahead with them."""
        if self.ahead is None:
            return _payloads(cases, sent), None
        encoded = _encoded(cases, sent)
        return encoded, self.ahead.ahead(encoded.payloads or ())

    def _refused_unsendable(self, index: int, case: Case) -> bool:
        """Emit an invalid result for ``case`` when it cannot be sent to the sandbox as JSON; say whether it was."""
        try:
            orjson.dumps(case.call_payload())
        except orjson.JSONEncodeError as exc:
            fix = _("Flatten its input, output or expected value, or store the deep part as a JSON string")
            message = (
                _("case {case} cannot be sent to the metric: it is nested more than 250 levels deep. {fix}")
                if "Recursion" in str(exc)
                else _("case {case} cannot be sent to the metric: it cannot be written as JSON ({error}). {fix}")
            )
            self.emit(
                index,
                failed_result(case, CaseStatus.INVALID, message.format(case=case.id, error=exc, fix=fix)),
            )
            return True
        return False


def _payloads(cases: list[Case], sent: list[int]) -> list[dict[str, Any]] | EncodedCases:
    """What the child is sent for the cases at ``sent``: a JSON Lines file's lines go as they are
    (``payload_json``, see ``datasets.lines.LineCase``), other cases as their payloads."""
    if sent and hasattr(cases[sent[0]], "payload_json"):
        encoded: list[Any] = [cases[i].payload_json() for i in sent]  # type: ignore[attr-defined]
        return EncodedCases(b"[" + b",".join(encoded) + b"]", len(sent))
    return [cases[i].call_payload() for i in sent]


def _encoded(cases: list[Case], sent: list[int]) -> EncodedCases:
    """:func:`_payloads` encoded case by case, each case's JSON kept (to send answers ahead with them)."""
    encoded: list[Any] = [
        case.payload_json() if hasattr(case, "payload_json") else orjson.dumps(case.call_payload())
        for case in (cases[i] for i in sent)
    ]
    return EncodedCases(b"[" + b",".join(encoded) + b"]", len(sent), encoded)


def _place_from(message: str) -> tuple[str, int | None]:
    """The (file, line) a ChildDied message ends with ("... at helpers.py line 12")."""
    head, marker, tail = message.rpartition(" line ")
    digits = tail.split()[0].rstrip(".,;:)") if marker and tail.split() else ""
    if not digits.isdigit() or " at " not in head:
        return MAIN_FILE, None
    file = head.rsplit(" at ", 1)[1]
    return (file, int(digits)) if clean_file(file) == file else (MAIN_FILE, None)


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


def score_cases(
    source: str | MetricSource,
    cases: Sequence[Case],
    *,
    timeout: float = 60.0,
    concurrency: int = 1,
    llm: LlmHandler | None = None,
    cancel: threading.Event | None = None,
    on_result: ResultCallback | None = None,
    pool: WorkerPool | None = None,
    worker: Worker | None = None,
    stop_on_timeout: bool = False,
    in_order: ResultCallback | None = None,
    keep: bool = True,
) -> ScoreRun:
    """Score every case with the metric ``source`` (metric.py's text, or a metric folder) in isolated children.

    Up to ``concurrency`` children run at once; the others start once cases
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
    run = _Run(MetricSource.of(source), cases, timeout, concurrency, llm, cancel, pool, stop_on_timeout)
    run.on_result, run.in_order, run.keep = on_result, in_order, keep
    return run.run(worker)


class _Run:
    """One :func:`score_cases` call: its cases, the results in order, and the children that score them.

    One shard (the caller's thread) starts; helpers join once cases prove slow (:meth:`slow`). Every field a
    shard's thread changes is changed under ``lock``, except ``busy`` and ``first``, which only the starting
    shard touches before the helpers exist.
    """

    def __init__(
        self,
        source: MetricSource,
        cases: Sequence[Case],
        timeout: float,
        concurrency: int,
        llm: LlmHandler | None,
        cancel: threading.Event | None,
        pool: WorkerPool | None,
        stop_on_timeout: bool,
    ) -> None:
        self.source, self.cases, self.timeout, self.llm = source, cases, timeout, llm
        self.pool = pool or default_pool()
        self.cancel = cancel or threading.Event()
        self.halt = threading.Event() if stop_on_timeout else None
        self.on_result: ResultCallback | None = None
        self.in_order: ResultCallback | None = None
        self.keep = True
        self.results: list[CaseResult] = []
        self.tally = RunTally()
        self.lock = threading.Condition(threading.Lock())  # never taken twice by one thread, so no RLock
        self.load_error: list[LoadFailure] = []
        self.settler = Settler()  # kept results leave the garbage collector's scans (skynet_core.heap)
        self.ordered = _InOrder(len(cases), self.deliver, self.lock)
        self.workers = max(1, min(int(concurrency), len(cases) or 1))
        self.line_batch = getattr(cases, "line_batch", None)
        self.next_start = 0
        self.cancelled = False
        self.helpers: list[threading.Thread] = []
        self.busy = [0, 0.0]  # results seen and the time their calls took, until the helpers start
        self.first: list[float] = []  # the durations of the first TYPICAL_OF of them

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
            if self.slow():
                self.start_helpers()

    def slow(self) -> bool:
        """Whether more children would finish sooner (see SLOW_CASE_MS, BUSY_MS and HELPERS_PAY_MS). What is
        left is judged by the typical case (the median of the first ones), not by their mean: on a busy
        machine one case held up for 0.2 s would otherwise start every helper for a run of quick ones."""
        seen, spent = self.busy
        if spent < max(BUSY_MS, SLOW_CASE_MS * seen):
            return False
        return statistics.median(self.first) * (len(self.cases) - seen) >= HELPERS_PAY_MS

    def may_share(self) -> bool:
        """Whether other children take, or may yet take, part of what is left (so that slices shrink as the run
        goes on). Not once the typical case shows that what is left never pays for helpers (:meth:`slow`): the
        median of the first cases no longer changes and fewer cases are left each time, so they never will."""
        if self.helpers or self.workers <= 1 or len(self.first) < TYPICAL_OF:
            return self.workers > 1
        return statistics.median(self.first) * (len(self.cases) - self.busy[0]) >= HELPERS_PAY_MS

    def take_batch(self, shard: _Shard, wait: bool = True) -> tuple[int, list[Case]] | None:
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

    def take_ahead(self, shard: _Shard) -> tuple[int, list[Case]] | None:
        """The batch a shard sends as its child ends one (``_Shard.next_batch``): never one to wait for, nor
        while the shard's sandbox should go to another run."""
        worker = shard.worker
        if worker is None or self.pool.crowded(worker) or self.pool.limit.waiting():
            return None
        return self.take_batch(shard, wait=False)

    def drive(self, shard: _Shard) -> None:
        shard.next_batch = functools.partial(self.take_ahead, shard)
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

    def shard(self, worker: Worker | None = None) -> _Shard:
        return _Shard(
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
