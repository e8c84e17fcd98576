"""Scoring on a Ray cluster: the same isolated runner on every node, the same results.

:func:`score_cases_ray` has the contract of :func:`score_cases`: one result per
case, in the order of the cases given, with the same statuses and errors. The
cases are cut into batches; each batch is one Ray task that runs it through
``score_cases`` on whatever node it lands on (bubblewrap where the node has it).

What crosses the cluster, and how:

- the metric folder goes out once as a Ray object (a plain dict of text);
- a batch's results come back as JSON bytes built by our code from the child's
  JSON lines, never objects made by metric code; the driver rebuilds the
  ``CaseResult``s from that JSON;
- the metric's ``llm()`` calls go through a relay actor to the driver, which makes
  them with its own ``LlmHandler``: the key never leaves the driver process, and the
  call cap and the cost budget are enforced in that one place, as locally.

A batch whose node dies is run again elsewhere (Ray's task retries); its results
are taken once, from the attempt that finished. ``cancel`` (or Ctrl+C in the
driver) cancels every task still pending or running.

Ray is optional: it is imported only when this module's functions are called.
"""

from __future__ import annotations

import math
import socket
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson

from .. import i18n  # i18n._: this module keeps `_` for values it ignores
from ..cases import Case
from ..i18n import SOURCE_LANGUAGE, language, use_language
from ..metric.source import MetricSource
from ..results import CaseResult, CaseStatus, Isolation, RunTally
from ..results.overflow import nothing_kept_on_disk
from .options import ResultCallback, RunOptions, ScoreRun
from .runner.pool import default_pool
from .runner.replies import failed_result
from .runner.run import batch_size, score_cases
from .runner.sandbox import detect_isolation
from .runner.shard import LoadFailure
from .runner.values import LlmHandler, LlmRequest

MAX_BATCHES_PER_CPU = 16  # the smallest batches: each one loads the metric in a fresh child on its node
TASK_RETRIES = 3  # a batch whose node dies runs again on another node, up to this many times
POLL_S = 0.2  # how often the driver looks for finished batches and for a cancel
CANCEL_GRACE_S = 5.0  # after a polite cancel, how long tasks get before their workers are killed
CONNECT_PROBE_S = 5.0  # how long the head node's port may take to accept a connection
RELAY_THREADS = 16  # model calls in flight at once in the driver
INSTALL_HINT = "pip install -r requirements-ray.txt (or the package's [ray] extra)"
_PACKAGE_DIR = Path(__file__).resolve().parent.parent


class ClusterError(RuntimeError):
    """Ray is missing or the cluster cannot be reached; the message says what to do."""


@dataclass(frozen=True)
class BatchRun:
    """One batch as it ran: the cases ``start`` to ``start + count``, the node and its isolation."""

    start: int
    count: int
    node: str
    isolation: Isolation


@dataclass
class ClusterRun(ScoreRun):
    """A :class:`ScoreRun` from a cluster. ``isolation`` is the weakest of its batches' (the
    run is only as isolated as its least isolated node); ``batches`` says where each ran."""

    batches: list[BatchRun] = field(default_factory=list)


def score_cases_ray(
    source: str | MetricSource,
    cases: list[Case],
    options: RunOptions,
    *,
    address: str,
    batch_cases: int | None = None,
    retries: int = TASK_RETRIES,
) -> ClusterRun:
    """Score every case on the Ray cluster at ``address``; the result contract of ``score_cases``. What
    :class:`~skynet_core.scoring.RayScorer` runs.

    Of ``options``, the cluster takes ``timeout_s`` and ``llm`` to every batch; ``on_result`` is called from
    this thread as each batch's results arrive (batches finish in any order); ``in_order`` is called for each
    result in the order of ``cases`` (for writing results as they come); ``cancel`` stops the run: every task
    is cancelled and the results so far are returned with ``cancelled`` set. The cluster schedules its own
    batches, so ``concurrency``, ``pool``, ``keep`` and ``stop_on_timeout`` do not apply. ``batch_cases`` overrides the
    batch size (default: the local runner's guided sizes, large batches first, then smaller
    ones, so that no node is left with a long tail; never below 1/``MAX_BATCHES_PER_CPU``
    of a CPU's share).
    Raises :class:`ClusterError` when Ray is not installed or the cluster is unreachable.
    """
    ray = _connect(address)
    timeout, llm = options.timeout_s, options.llm
    cancel = options.cancel or threading.Event()
    began = time.monotonic()
    files = dict(MetricSource.of(source).files)
    spans = _cut(len(cases), int(ray.cluster_resources().get("CPU", 1)), batch_cases)
    collected = _Collected([None] * len(cases), options.on_result, options.in_order)
    relay = _Relay(ray, llm) if llm is not None else None
    task = _remote_batch(ray).options(max_retries=retries, retry_exceptions=False, scheduling_strategy="SPREAD")
    files_ref = ray.put(files)
    pending = {
        task.remote(files_ref, cases[start:end], timeout, relay.actor if relay else None, language()): (start, end)
        for start, end in spans
    }
    try:
        while pending and not cancel.is_set():
            done, _ = ray.wait(list(pending), num_returns=len(pending), timeout=POLL_S)
            for ref in done:
                start, end = pending.pop(ref)
                collected.add(start, *_take(ray, ref, start, cases[start:end]))
    finally:
        _cancel_all(ray, list(pending))
        if relay is not None:
            relay.close()
    return collected.run(unfinished=bool(pending), cancel=cancel, began=began)


@dataclass
class _Collected:
    """A cluster run's results as its batches arrive (in any order), kept in case order: ``on_result`` gets
    each at once, ``in_order`` each once every case before it has arrived."""

    slots: list[CaseResult | None]
    on_result: ResultCallback | None
    in_order: ResultCallback | None
    batches: list[BatchRun] = field(default_factory=list)
    load_errors: list[LoadFailure] = field(default_factory=list)
    handed: int = 0  # results before this index have gone to ``in_order``

    def add(
        self, start: int, results: list[CaseResult], batch: BatchRun | None, load_error: LoadFailure | None
    ) -> None:
        """One finished batch, its first case at ``start``."""
        if batch is not None:
            self.batches.append(batch)
        if load_error is not None:
            self.load_errors.append(load_error)
        slots = self.slots
        for offset, result in enumerate(results):
            slots[start + offset] = result
            if self.on_result is not None:
                self.on_result(result)
        while self.in_order is not None and self.handed < len(slots) and (ready := slots[self.handed]) is not None:
            self.in_order(ready)
            self.handed += 1

    def run(self, *, unfinished: bool, cancel: threading.Event, began: float) -> ClusterRun:
        """The run from what arrived (a cancelled run: ``in_order`` also gets what finished past the first gap)."""
        results = [result for result in self.slots if result is not None]
        if self.in_order is not None:
            for late in self.slots[self.handed :]:
                if late is not None:  # a cancelled run: what finished past the first gap
                    self.in_order(late)
        tally = RunTally()
        for result in results:  # in case order, as a local run feeds its tally
            tally.add(result)
        isolations = {batch.isolation for batch in self.batches} or {detect_isolation()[0]}
        weakest = Isolation.REDUCED if Isolation.REDUCED in isolations else Isolation.FULL
        return ClusterRun(
            results=results,
            isolation=weakest,
            cancelled=unfinished or cancel.is_set(),
            duration_ms=(time.monotonic() - began) * 1000.0,
            load_error=self.load_errors[0] if self.load_errors else None,
            by_status=dict(tally.by_status),
            tally=tally,
            batches=sorted(self.batches, key=lambda batch: batch.start),
        )


def _cut(count: int, cpus: int, size: int | None) -> list[tuple[int, int]]:
    """The batches as (start, end) spans: ``size`` cases each, or guided sizes as the local runner's."""
    floor = math.ceil(count / (max(1, cpus) * MAX_BATCHES_PER_CPU))
    spans, start = [], 0
    while start < count:
        end = start + (size or max(floor, batch_size(count - start, cpus)))
        spans.append((start, min(end, count)))
        start = end
    return spans


def _take(
    ray: Any, ref: Any, start: int, cases: list[Case]
) -> tuple[list[CaseResult], BatchRun | None, LoadFailure | None]:
    """One finished batch's results, rebuilt from its JSON; a batch that could not run fails its cases."""
    try:
        data = orjson.loads(ray.get(ref))
        results = [CaseResult.from_json(item) for item in data["results"]]
        if [result.id for result in results] != [case.id for case in cases]:
            raise ValueError(
                i18n._("the batch sent back {results} results for {cases} cases").format(
                    results=len(results), cases=len(cases)
                )
            )
    except Exception as exc:  # noqa: BLE001  (a lost batch fails its cases; the rest of the run goes on)
        reason = str(exc).strip().splitlines()[-1] if str(exc).strip() else type(exc).__name__
        error = i18n._(
            "this case's batch could not run on the Ray cluster ({error}: {reason}); "
            "check the cluster's nodes with `ray status` and score again"
        ).format(error=type(exc).__name__, reason=reason)
        return [failed_result(case, CaseStatus.ERROR, error) for case in cases], None, None
    batch = BatchRun(start=start, count=len(results), node=str(data["node"]), isolation=Isolation(data["isolation"]))
    failure = data.get("load_error")
    load_error = (
        LoadFailure(failure["message"], failure["line"], failure["detail"], failure["file"]) if failure else None
    )
    return results, batch, load_error


def _cancel_all(ray: Any, refs: list[Any]) -> None:
    """Cancel every task: politely first (the task's runner kills its child), then by killing its worker."""
    if not refs:
        return
    for ref in refs:
        ray.cancel(ref, force=False)
    deadline = time.monotonic() + CANCEL_GRACE_S
    while refs and time.monotonic() < deadline:
        _, refs = ray.wait(refs, num_returns=len(refs), timeout=POLL_S)
    for ref in refs:
        try:
            ray.cancel(ref, force=True)
        except Exception:  # noqa: BLE001, S110  (a task that finished meanwhile cannot be force-cancelled)
            pass


_connected: list[str] = []
_connect_lock = threading.Lock()


def _import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ClusterError(
            i18n._("Scoring on a Ray cluster needs the ray package, which is not installed: {hint}").format(
                hint=INSTALL_HINT
            )
        ) from None
    return ray


def _connect(address: str) -> Any:
    """Ray, connected to ``address`` (once per process; a different address reconnects)."""
    ray = _import_ray()
    with _connect_lock:
        if ray.is_initialized() and _connected == [address]:
            return ray
        _probe(address)
        if ray.is_initialized():
            ray.shutdown()
        host = address.rsplit(":", 1)[0]
        # A cluster on this machine's loopback: the driver is reached there too, not on the network.
        loopback = "127.0.0.1" if host == "localhost" else host if host.startswith("127.") else None
        try:
            # Our package travels with the tasks, so the nodes need only Python and the same packages.
            ray.init(
                address=address,
                runtime_env={"py_modules": [str(_PACKAGE_DIR)]},
                log_to_driver=False,
                logging_level="WARNING",
                configure_logging=False,
                **({"_node_ip_address": loopback} if loopback else {}),
            )
        except Exception as exc:  # noqa: BLE001  (Ray raises several kinds for an unreachable cluster)
            raise ClusterError(
                i18n._(
                    "cannot connect to the Ray cluster at {address}: {error}. Start one with "
                    "`ray start --head` (see the README) or give the address of a running head node"
                ).format(address=address, error=exc)
            ) from None
        _connected[:] = [address]
        return ray


def _probe(address: str) -> None:
    """Fail at once when nothing listens at ``address`` (Ray itself retries for minutes)."""
    if address.startswith("ray://"):
        raise ClusterError(
            i18n._(
                "{address} is a Ray Client address, which needs ray[client]; give the head node's host:port "
                "instead (its GCS port, 6379 unless `ray start --head --port` chose another)"
            ).format(address=address)
        )
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return  # "auto" and other forms that Ray resolves itself
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_PROBE_S):
            pass
    except OSError as exc:
        raise ClusterError(
            i18n._(
                "no Ray cluster answers at {address} ({reason}). Start one with `ray start --head` "
                "(see the README) or give the host:port of a running head node"
            ).format(address=address, reason=exc.strerror or exc)
        ) from None


class _Relay:
    """Answers the nodes' model calls in the driver: a relay actor queues them, this thread
    takes them and calls the driver's own ``LlmHandler`` (which alone holds the key)."""

    def __init__(self, ray: Any, llm: LlmHandler) -> None:
        from concurrent.futures import ThreadPoolExecutor  # here: the command line imports this module on every run

        self.ray, self.llm = ray, llm
        self.actor = ray.remote(num_cpus=0, max_concurrency=1000)(_LlmQueue).remote()
        self._stop = threading.Event()
        self._calls = ThreadPoolExecutor(RELAY_THREADS, thread_name_prefix="skynet-ray-llm")
        self._thread = threading.Thread(target=self._serve, daemon=True, name="skynet-ray-relay")
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                requests = self.ray.get(self.actor.take.remote(POLL_S))
            except Exception:  # noqa: BLE001  (the actor is gone: the run is over)
                return
            for call_id, request in requests:
                self._calls.submit(self._answer, call_id, request)

    def _answer(self, call_id: int, request: LlmRequest) -> None:
        try:
            reply = self.llm(request)
        except Exception as exc:  # noqa: BLE001  (as the local runner does: a broken handler fails the call)
            reply = {"error": f"the model call failed in the runner: {type(exc).__name__}: {exc}"}
        reply.pop("recorded", None)  # the driver's record of the call: answers are not sent ahead to a node
        self.actor.answer.remote(call_id, reply)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2 * POLL_S + 1.0)
        self._calls.shutdown(wait=False, cancel_futures=True)
        self.ray.kill(self.actor)


class _LlmQueue:
    """The relay actor: node-side calls wait here until the driver answers them."""

    def __init__(self) -> None:
        import asyncio  # here, not at the top: asyncio takes longer to import than the command line's `score` runs

        self._asked: asyncio.Queue[tuple[int, LlmRequest]] = asyncio.Queue()
        self._answers: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._next = 0

    async def ask(self, request: LlmRequest) -> dict[str, Any]:
        import asyncio

        call_id, self._next = self._next, self._next + 1
        answer = asyncio.get_running_loop().create_future()
        self._answers[call_id] = answer
        await self._asked.put((call_id, request))
        try:
            reply: dict[str, Any] = await answer
            return reply
        finally:
            self._answers.pop(call_id, None)

    async def take(self, wait_s: float) -> list[tuple[int, LlmRequest]]:
        import asyncio

        try:
            asked = [await asyncio.wait_for(self._asked.get(), wait_s)]
        except TimeoutError:
            return []
        while not self._asked.empty():
            asked.append(self._asked.get_nowait())
        return asked

    async def answer(self, call_id: int, reply: dict[str, Any]) -> None:
        answer = self._answers.get(call_id)
        if answer is not None and not answer.done():
            answer.set_result(reply)


_remote: list[Any] = []


def _remote_batch(ray: Any) -> Any:
    if not _remote:
        _remote.append(ray.remote(num_cpus=1)(_score_batch))
    return _remote[0]


def score_batch_json(files: dict[str, str], cases: list[Case], timeout: float, llm: LlmHandler | None) -> bytes:
    """Score one batch with this machine's isolated runner; the results as JSON bytes.

    What a Ray task runs on its node; also callable without Ray, which tests use.
    """
    pool = default_pool()
    with nothing_kept_on_disk():  # a file on this node would be out of the driver's reach
        run = score_cases(MetricSource(files), cases, RunOptions(timeout, llm=llm, pool=pool))
    failure = run.load_error
    return orjson.dumps(
        {
            "isolation": run.isolation.value,
            "node": _node_id(),
            "results": [result.to_json() for result in run.results],
            "load_error": {
                "message": failure.message,
                "line": failure.line,
                "detail": failure.detail,
                "file": failure.file,
            }
            if failure
            else None,
        }
    )


def _score_batch(
    files: dict[str, str], cases: list[Case], timeout: float, relay: Any, lang: str = SOURCE_LANGUAGE
) -> bytes:
    """A Ray task: one batch, its messages in the driver's language ``lang``."""
    import ray

    def ask_driver(request: LlmRequest) -> dict[str, Any]:
        # The whole request crosses, so the driver's handler sees what the local runner's would. Bounded,
        # so that a vanished driver cannot leave this thread waiting for ever.
        reply: dict[str, Any] = ray.get(relay.ask.remote(request), timeout=timeout + 60.0)
        return reply

    with use_language(lang):
        return score_batch_json(files, cases, timeout, ask_driver if relay is not None else None)


def _node_id() -> str:
    try:
        import ray

        return ray.get_runtime_context().get_node_id() if ray.is_initialized() else "local"
    except ImportError:
        return "local"
