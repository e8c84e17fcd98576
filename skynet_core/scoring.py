"""One way to score cases: a :class:`Scorer`, here or on a Ray cluster, given one :class:`RunOptions` value.

Every scoring job of the studio (the contract check, "Score all", comparisons, judge consistency, probes,
the trade-offs' candidates, a typed case) and the CLI's ``score`` go through a ``Scorer``::

    scorer = scorer_for(ray_address)                  # LocalScorer() when the address is empty
    run = scorer(metric, cases, RunOptions(timeout_s=30, concurrency=8, llm=handler))
    report = check(metric, cases, options, scorer=scorer, sample=cases)   # the stages, then the same scorer

The options travel whole, never as keyword arguments spread over calls.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from .cases import Case
from .metric_source import MetricSource
from .results import CheckReport, ErrorKind, JobError
from .runner.pool import WorkerPool
from .runner.run import ResultCallback, ScoreRun, score_cases
from .runner.values import LlmHandler
from .runner.worker import Worker

if TYPE_CHECKING:
    from .jobs import Job


@dataclass(frozen=True)
class RunOptions:
    """How metric code runs, for one run.

    - ``timeout_s``: each call of ``score`` (and loading metric.py) is stopped after this many seconds (1 to 600).
    - ``concurrency``: cases in flight at once, at least 1 (a cluster schedules its own).
    - ``llm``: answers the metric's ``llm()`` calls (``None``: such a call fails its case).
    - ``pool``: the warm workers to start from (``None``: the process's).
    - ``cancel``: set it to stop the run; the results so far are returned, marked cancelled.
    - ``on_result``: called with each result as it arrives, from any thread (keep it quick).
    - ``in_order``: called with each result in the order of the cases, one call at a time.
    - ``keep``: keep the results in the run (``False``: only their tally, for streaming).
    - ``stop_on_timeout``: after the first timeout, run no more cases (the live check wants a verdict fast).
    """

    timeout_s: float = 60.0  # contract.DEFAULT_TIMEOUT_S
    concurrency: int = 8
    llm: LlmHandler | None = None
    pool: WorkerPool | None = None
    cancel: threading.Event | None = None
    on_result: ResultCallback | None = None
    in_order: ResultCallback | None = None
    keep: bool = True
    stop_on_timeout: bool = False

    def watched_by(self, job: Job[Any]) -> RunOptions:
        """These options for ``job``: its cancel event stops the run, and its progress counts each result."""
        return replace(self, cancel=job.cancel, on_result=job.add_result)


@runtime_checkable
class Scorer(Protocol):
    """Scores every case with a metric folder, wherever the cases run.

    Invariants a caller relies on (as GEPA's ``EvaluationBatch`` states its own):

    - the run's ``results`` are in the order of ``cases``, exactly one per case (fewer only when the run
      was cancelled: those that ran, still in case order);
    - it never raises for one case: whatever metric code did (raised, hung, crashed, returned a bad
      value) is that case's status and error; a metric that does not load fails every case with the
      load error (``load_error`` set);
    - it raises :class:`~skynet_core.results.JobError` (kind ``cluster``) only when the place cannot score
      at all, with a message that says what to do;
    - it stops soon after ``options.cancel`` is set.
    """

    def __call__(self, metric: MetricSource, cases: Sequence[Case], options: RunOptions) -> ScoreRun: ...


@dataclass(frozen=True)
class LocalScorer:
    """Scores on this machine, in the isolated runner's children."""

    def __call__(self, metric: MetricSource, cases: Sequence[Case], options: RunOptions) -> ScoreRun:
        return score_here(metric, cases, options)


def score_here(
    metric: MetricSource, cases: Sequence[Case], options: RunOptions, worker: Worker | None = None
) -> ScoreRun:
    """:func:`~skynet_core.runner.run.score_cases` with ``options``, starting in ``worker`` (already loaded,
    closed by the run) when given."""
    return score_cases(
        metric,
        cases,
        timeout=options.timeout_s,
        concurrency=options.concurrency,
        llm=options.llm,
        cancel=options.cancel,
        on_result=options.on_result,
        pool=options.pool,
        worker=worker,
        stop_on_timeout=options.stop_on_timeout,
        in_order=options.in_order,
        keep=options.keep,
    )


@dataclass(frozen=True)
class RayScorer:
    """Scores on the Ray cluster whose head is at ``address`` (``host:port``), each batch in the same isolated
    runner on its node; model calls still go through this process's ``options.llm``. The cluster schedules
    its own batches, so ``concurrency``, ``pool``, ``keep`` and ``stop_on_timeout`` do not apply."""

    address: str

    def __call__(self, metric: MetricSource, cases: Sequence[Case], options: RunOptions) -> ScoreRun:
        from .runner.cluster import ClusterError, score_cases_ray  # Ray and the cluster module only when used

        try:
            return score_cases_ray(
                metric,
                list(cases),
                address=self.address,
                timeout=options.timeout_s,
                llm=options.llm,
                cancel=options.cancel,
                on_result=options.on_result,
                in_order=options.in_order,
            )
        except ClusterError as exc:
            raise JobError(ErrorKind.CLUSTER, str(exc)) from None


def scorer_for(ray_address: str | None) -> Scorer:
    """The Ray cluster's scorer when an address is given, else this machine's."""
    address = (ray_address or "").strip()
    return RayScorer(address) if address else LocalScorer()


def check(
    metric: MetricSource,
    cases: Sequence[Case],
    options: RunOptions,
    *,
    scorer: Scorer | None = None,
    sample: Sequence[Case] | None = None,
) -> CheckReport:
    """The contract check of ``metric`` with ``options``: its stages here, then ``sample`` (default: the
    planner's sample of ``cases``) scored by ``scorer`` (default: this machine, in the worker that loaded
    the stages). "Score all" is the check with every case as the sample."""
    from .contract import check_metric  # the check imports this module for the Scorer type

    return check_metric(
        metric,
        cases,
        timeout=options.timeout_s,
        llm=options.llm,
        cancel=options.cancel,
        pool=options.pool,
        sample=sample,
        concurrency=options.concurrency,
        on_result=options.on_result,
        stop_on_timeout=options.stop_on_timeout,
        in_order=options.in_order,
        keep=options.keep,
        scorer=scorer,
    )
