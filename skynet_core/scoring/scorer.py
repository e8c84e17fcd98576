"""The :class:`Scorer` protocol and its two places: this machine (:class:`LocalScorer`) and a Ray cluster
(:class:`RayScorer`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

from ..cases import Case
from ..metric.source import MetricSource
from ..results import ErrorKind, JobError
from .options import RunOptions, ScoreRun

if TYPE_CHECKING:
    from .runner.worker import Worker


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
    """Scores on this machine, in the isolated runner's children. ``worker``: a child that already loaded the
    metric, to start in (the contract check's, after its stages); the run closes it, so such a scorer is used
    once."""

    worker: Worker | None = None

    def __call__(self, metric: MetricSource, cases: Sequence[Case], options: RunOptions) -> ScoreRun:
        # Here, not with the module: the runner imports this package's options.
        from .runner.run import score_cases

        return score_cases(metric, cases, options, worker=self.worker)


@dataclass(frozen=True)
class RayScorer:
    """Scores on the Ray cluster whose head is at ``address`` (``host:port``), each batch in the same isolated
    runner on its node; model calls still go through this process's ``options.llm``. The cluster schedules
    its own batches, so ``concurrency``, ``pool``, ``keep`` and ``stop_on_timeout`` do not apply."""

    address: str

    def __call__(self, metric: MetricSource, cases: Sequence[Case], options: RunOptions) -> ScoreRun:
        from .cluster import ClusterError, score_cases_ray  # Ray and the cluster module only when used

        try:
            return score_cases_ray(metric, list(cases), options, address=self.address)
        except ClusterError as exc:
            raise JobError(ErrorKind.CLUSTER, str(exc)) from None


def scorer_for(ray_address: str | None) -> Scorer:
    """The Ray cluster's scorer when an address is given, else this machine's."""
    address = (ray_address or "").strip()
    return RayScorer(address) if address else LocalScorer()
