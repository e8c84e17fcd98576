"""One shard of a run: a worker at a time, the batches it is given, and recovery after a bad case.

A case that raises, hangs, crashes its child or breaks the channel fails
alone; the cases after it run in a fresh child with the metric loaded again.
"""

from __future__ import annotations

import functools
import threading
import time
from collections.abc import Callable, Collection
from dataclasses import dataclass
from typing import Any

import orjson

from ...cases import Case
from ...i18n import _
from ...metric.packages import missing_module_hint
from ...metric.source import MAIN_FILE, MetricSource
from ...results import CaseResult, CaseStatus
from .pool import WorkerPool
from .replies import clean_file, failed_result, file_of, judge_usage, reply_to_result, timeout_message
from .values import AnswersAhead, CallsAhead, CallTimeout, Cancelled, ChildDied, EncodedCases, LlmHandler
from .worker import Worker


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


@dataclass(frozen=True)
class Queued:
    """A request of cases sent to a shard's worker while it finished the one before (``Worker.run_chunks``'s
    ``last``): the cases from ``start``, as sent, and when (``time.monotonic()``)."""

    start: int
    cases: list[Case]
    payloads: list[dict[str, Any]] | EncodedCases
    ahead: CallsAhead | None
    sent: float


class Shard:
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
        # The run's: how many of a batch to send, given the positions of its cases on record (the rest go back).
        self.cut: Callable[[int, int, Collection[int]], int] | None = None
        self.queued: Queued | None = None
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
        cases, request = self._cut_batch(start, cases)
        try:
            if request is None:
                raise orjson.JSONEncodeError("a case cannot be written as JSON")
            payloads, ahead = request
            worker.send_cases(payloads, self.timeout, self.cancel, False, ahead)
        except orjson.JSONEncodeError:  # nothing was written: it runs as any batch does (run_batch's refusals)
            self.unsent = start, cases
            return
        except (CallTimeout, ChildDied, Cancelled):  # part of it may have been written: this child takes no more
            self.unsent, self.spoiled = (start, cases), True
            return
        self.queued = Queued(start, cases, payloads, ahead, time.monotonic())

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
        careful = False  # after a child died with no case running: see below
        queued = self.queued if self.queued is not None and self.queued.start == start else None
        self.queued = None if queued is not None else self.queued
        request = None
        if queued is None:
            cases, request = self._cut_batch(start, cases)
        todo = list(range(len(cases)))
        while todo:
            worker = self._fresh()
            sent, answered = todo, 0
            try:
                if queued is not None:  # the first try: its request went while the batch before ended
                    payloads, ahead, sent_at, queued = queued.payloads, queued.ahead, queued.sent, None
                elif request is not None:  # the first try's, made with the cut
                    (payloads, ahead), sent_at, request = request, None, None
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

    def _cut_batch(
        self, start: int, cases: list[Case]
    ) -> tuple[list[Case], tuple[list[dict[str, Any]] | EncodedCases, CallsAhead | None] | None]:
        """The cases of a batch just taken that the child is sent (the run's :attr:`cut`, by the cases whose calls
        are on record), and their request; the request is None when a case cannot be written as JSON."""
        try:
            request = self._request(cases, list(range(len(cases))))
        except orjson.JSONEncodeError:
            return cases, None
        ahead = request[1]
        if self.cut is None or ahead is None:
            return cases, request
        keep = self.cut(start, len(cases), ahead.on_record)
        if keep == len(cases):
            return cases, request
        cases = cases[:keep]
        return cases, self._request(cases, list(range(keep)))

    def _request(
        self, cases: list[Case], sent: list[int]
    ) -> tuple[list[dict[str, Any]] | EncodedCases, CallsAhead | None]:
        """The cases at ``sent`` as the child is sent them, and the answers sent ahead with them."""
        if self.ahead is None:
            return _payloads(cases, sent), None
        encoded = _encoded(cases, sent)
        return encoded, self.ahead.ahead(encoded.payloads or (), self.source)

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
