"""Scoring cases in isolated workers: batching, concurrency, and recovery after a bad case.

A case that raises, hangs, crashes its child or breaks the channel fails
alone; the cases after it run in a fresh child with the metric loaded again.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..cases import Case
from ..overflow import bound_side_information
from ..results import CaseResult, CaseStatus, Isolation, JudgeUsage
from .pool import WorkerPool, default_pool
from .worker import CallTimeout, Cancelled, ChildDied, LlmHandler, Worker

MAX_BATCH_CASES = 1024
GUIDED_SHARES = 2  # a slice takes at most 1/(workers × this) of the cases left
MAX_DURATION_MS = 3_600_000.0  # an honest call ends within the 600 s timeout; beyond an hour is forged

ResultCallback = Callable[[CaseResult], None]


@dataclass
class LoadFailure(Exception):
    """metric.py did not load: ``message`` for people, ``line`` in metric.py where known."""

    message: str
    line: int | None = None
    detail: str = ""

    def __str__(self) -> str:
        return self.message


@dataclass
class ScoreRun:
    """The outcome of scoring many cases: results in the order of the cases given
    (only those that ran when ``cancelled``), and the isolation they ran with."""

    results: list[CaseResult]
    isolation: Isolation
    cancelled: bool = False
    duration_ms: float = 0.0
    load_error: LoadFailure | None = None
    by_status: dict[str, int] = field(default_factory=dict)


def timeout_message(timeout: float, line: int | None, what: str = "score") -> str:
    where = f", stuck at metric.py line {line}" if line else ""
    return (f"{what} did not finish within {timeout:g} s{where}; it was stopped. "
            "Look for an endless loop or a slow call, or raise the timeout (at most 600 s)")


def load_into(worker: Worker, source: str, timeout: float, cancel: threading.Event | None) -> dict[str, Any]:
    """Load metric.py in ``worker``; raise LoadFailure when it does not import cleanly."""
    try:
        reply = worker.load(source, timeout, cancel)
    except CallTimeout as exc:
        raise LoadFailure(timeout_message(timeout, exc.line, "loading metric.py"), exc.line) from None
    except ChildDied as exc:
        raise LoadFailure(f"loading metric.py failed: {exc}") from None
    if not reply.get("ok"):
        return_line = reply.get("line") if isinstance(reply.get("line"), int) else None
        raise LoadFailure(str(reply.get("error", "metric.py failed to load")), return_line,
                          str(reply.get("detail", "")))
    return reply


def reply_to_result(case: Case, reply: dict[str, Any]) -> CaseResult:
    """Turn the child's (untrusted) reply into a CaseResult, refusing anything off-shape."""
    result = CaseResult(id=case.id, split=case.split, candidate=case.candidate)
    duration_ms = _finite(reply.get("duration_ms"))
    if duration_ms is not None and not 0.0 <= duration_ms <= MAX_DURATION_MS:
        duration_ms = None
    result.duration_ms = duration_ms or 0.0
    stdout = reply.get("stdout")
    result.stdout = stdout if isinstance(stdout, str) else ""
    if "judge" in reply:
        result.judge = _judge_usage(reply["judge"])
    status = reply.get("status")
    if status == "ok":
        score = _finite(reply.get("score"))
        scores = reply.get("scores")
        feedback = reply.get("feedback")
        extra = reply.get("extra")
        if (score is None or duration_ms is None or type(feedback) is not str or type(scores) is not dict
                or type(extra) is not dict
                or (scores and not all(type(k) is str and _finite(v) is not None for k, v in scores.items()))):
            result.status = CaseStatus.ERROR
            result.error = "the runner received a malformed result for this case; was the channel tampered with?"
            return result
        result.score = score
        result.scores = {key: float(value) for key, value in scores.items()} if scores else {}
        result.feedback = feedback
        result.extra = extra
        return bound_side_information(result)
    result.status = CaseStatus.INVALID if status == "invalid" else CaseStatus.ERROR
    error = reply.get("error")
    result.error = error if isinstance(error, str) else "score failed"
    detail = reply.get("detail")
    if isinstance(detail, str) and detail and detail not in result.error:
        result.error += "\n" + detail
    line = reply.get("line")
    result.line = line if isinstance(line, int) and not isinstance(line, bool) else None
    if result.line and "metric.py line" not in result.error.splitlines()[0]:
        first, *rest = result.error.split("\n", 1)
        result.error = "\n".join([f"{first} (metric.py line {result.line})", *rest])
    return result


def _finite(value: Any) -> float | None:
    kind = type(value)
    if kind is not float and kind is not int:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _judge_usage(calls: Any) -> JudgeUsage:
    usage = JudgeUsage()
    for call in calls if isinstance(calls, list) else []:
        usage.add(float(call.get("latency_ms") or 0.0), int(call.get("prompt_tokens") or 0),
                  int(call.get("completion_tokens") or 0), call.get("cost_usd"))
    return usage


def failed_result(case: Case, status: CaseStatus, error: str, line: int | None = None,
                  duration_ms: float = 0.0, stdout: str = "") -> CaseResult:
    return CaseResult(id=case.id, split=case.split, candidate=case.candidate, status=status, error=error,
                      line=line, duration_ms=duration_ms, stdout=stdout)


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


class _Shard:
    """Runs batches in one worker at a time, replacing the worker after a failure."""

    def __init__(self, source: str, pool: WorkerPool, timeout: float, llm: LlmHandler | None,
                 cancel: threading.Event, emit: Callable[[int, CaseResult], None],
                 worker: Worker | None = None, halt: threading.Event | None = None) -> None:
        self.source, self.pool, self.timeout, self.llm = source, pool, timeout, llm
        self.cancel, self.emit = cancel, emit
        self.worker = worker
        self.halt = halt

    def _fresh(self) -> Worker:
        if self.worker is None:
            self.worker = self.pool.take()
            try:
                load_into(self.worker, self.source, self.timeout, self.cancel)
            except BaseException:
                self.close()
                raise
        return self.worker

    def close(self) -> None:
        if self.worker is not None:
            self.worker.close()
            self.worker = None

    def run_batch(self, start: int, cases: list[Case]) -> None:
        todo = list(range(len(cases)))
        while todo:
            worker = self._fresh()
            sent, answered = todo, 0
            try:
                for reply in worker.run([cases[i].call_payload() for i in sent], self.timeout, self.llm,
                                        self.cancel):
                    index = sent[answered]
                    self.emit(start + index, reply_to_result(cases[index], reply))
                    answered += 1
                todo = []
            except orjson.JSONEncodeError:
                # Nothing was sent: a case the channel cannot carry fails alone, the others go again.
                todo = [i for i in sent if not self._refused_unsendable(start + i, cases[i])]
            except (CallTimeout, ChildDied) as exc:
                # The case that was running fails; those it finished but had not sent yet run again.
                failed = exc.index if exc.index is not None and answered <= exc.index < len(sent) else answered
                elapsed = worker.running_ms()
                case = cases[sent[failed]]
                if isinstance(exc, CallTimeout):
                    result = failed_result(case, CaseStatus.TIMEOUT, timeout_message(self.timeout, exc.line),
                                           exc.line, elapsed)
                else:
                    result = failed_result(case, CaseStatus.ERROR, str(exc), _line_from(str(exc)), elapsed)
                self.emit(start + sent[failed], result)
                todo = sent[answered:failed] + sent[failed + 1:]
                self.close()
                if isinstance(exc, CallTimeout) and self.halt is not None:
                    self.halt.set()
                    return


    def _refused_unsendable(self, index: int, case: Case) -> bool:
        """Emit an invalid result for ``case`` when it cannot be sent to the sandbox as JSON; say whether it was."""
        try:
            orjson.dumps(case.call_payload())
        except orjson.JSONEncodeError as exc:
            why = ("it is nested more than 250 levels deep" if "Recursion" in str(exc)
                   else f"it cannot be written as JSON ({exc})")
            self.emit(index, failed_result(case, CaseStatus.INVALID,
                                           f"case {case.id} cannot be sent to the metric: {why}. Flatten its input, "
                                           "output or expected value, or store the deep part as a JSON string"))
            return True
        return False


def _line_from(message: str) -> int | None:
    marker = "metric.py line "
    if marker not in message:
        return None
    digits = message.split(marker, 1)[1].split()[0].rstrip(".,;:)")
    return int(digits) if digits.isdigit() else None


def score_cases(source: str, cases: list[Case], *, timeout: float = 60.0, concurrency: int = 1,
                llm: LlmHandler | None = None, cancel: threading.Event | None = None,
                on_result: ResultCallback | None = None, pool: WorkerPool | None = None,
                worker: Worker | None = None, stop_on_timeout: bool = False) -> ScoreRun:
    """Score every case with metric.py ``source`` in isolated children.

    ``on_result`` is called for each result as it arrives (from worker
    threads when ``concurrency`` > 1; keep it quick and thread-safe).
    ``cancel`` stops the run; the results so far are returned. A metric that
    does not load fails every case with the load error (``load_error`` set).
    ``worker``: an already-loaded worker to start with (the contract check's).
    ``stop_on_timeout``: after the first timeout, run no more cases (the
    contract check wants a fast verdict, not every case's timeout).
    """
    pool = pool or default_pool()
    cancel = cancel or threading.Event()
    began = time.monotonic()
    slots: list[CaseResult | None] = [None] * len(cases)
    lock = threading.Lock()
    load_error: list[LoadFailure] = []

    def emit(index: int, result: CaseResult) -> None:
        with lock:
            slots[index] = result
        if on_result is not None:
            on_result(result)

    workers = max(1, min(int(concurrency), len(cases) or 1))
    next_start = [0]
    cancelled = [False]

    halt = threading.Event() if stop_on_timeout else None

    def take_batch() -> tuple[int, list[Case]] | None:
        with lock:
            start = next_start[0]
            if start >= len(cases) or load_error or (halt is not None and halt.is_set()):
                return None
            end = start + batch_size(len(cases) - start, workers)
            next_start[0] = end
            return start, cases[start:end]

    def drive(shard: _Shard) -> None:
        try:
            while (batch := take_batch()) is not None:
                shard.run_batch(*batch)
        except Cancelled:
            cancelled[0] = True
        except LoadFailure as exc:
            with lock:
                load_error.append(exc)
        finally:
            shard.close()

    shards = [_Shard(source, pool, timeout, llm, cancel, emit, worker if i == 0 else None, halt)
              for i in range(workers)]
    threads = [threading.Thread(target=drive, args=(shard,), daemon=True) for shard in shards[1:]]
    for thread in threads:
        thread.start()
    drive(shards[0])
    for thread in threads:
        thread.join()

    if load_error:
        failure = load_error[0]
        for index, case in enumerate(cases):
            if slots[index] is None:
                emit(index, failed_result(case, CaseStatus.ERROR, f"metric.py did not load: {failure.message}",
                                          failure.line))
    results = [result for result in slots if result is not None]
    counts: dict[str, int] = {}
    for result in results:
        counts[result.status.value] = counts.get(result.status.value, 0) + 1
    return ScoreRun(results=results, isolation=pool.isolation, cancelled=cancelled[0] or cancel.is_set(),
                    duration_ms=(time.monotonic() - began) * 1000.0, load_error=load_error[0] if load_error else None,
                    by_status=counts)
