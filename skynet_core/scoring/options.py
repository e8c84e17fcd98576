"""The values that cross the scoring seam: one :class:`RunOptions` in, one :class:`ScoreRun` out.

They sit below the runner, the cluster and the contract check, which all take the options whole; this module
imports none of them at run time.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..results import CaseResult, Isolation, RunTally

if TYPE_CHECKING:
    from ..workspace.jobs import Job
    from .runner.pool import WorkerPool
    from .runner.shard import LoadFailure
    from .runner.values import LlmHandler

ResultCallback = Callable[[CaseResult], None]


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
    concurrency: int = 1
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
