"""A metric.py the engines can call: every call goes through a :class:`~skynet_core.scoring.Scorer` (the isolated
runner here, or a Ray cluster), never this process.

``SandboxedMetric`` is the one seam between an optimization engine (GEPA,
DSPy GEPA, the uplift experiment) and the user's metric folder. It scores through the scorer it is given
with its ``RunOptions`` whole: the studio's uplift experiment gives it the workspace's scorer, so a Ray
address in Settings reaches it. The command line's ``uplift`` and an exported folder (``run_gepa.py``,
``run_dspy.py``) score on this machine: they have no Ray setting, and an export vendors only the local runner.
Invariants a reader can rely on:

- ``score``/``score_many`` never raise for one bad case: a metric that raises,
  hangs or returns an invalid value gives a :class:`Verdict` with score 0.0
  and feedback that says the metric failed and why (engines must not stop on
  one example, as GEPA's adapter seam requires);
- higher is better; ``scores`` holds the metric's named scores (empty when it
  gave none); ``feedback`` is the metric's text, unchanged;
- thread-safe: engines evaluate examples from several threads at once.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import orjson

from ..cases import Case
from ..metric.source import MetricSource
from ..results import CaseResult
from ..scoring import LocalScorer, RunOptions, Scorer

METRIC_FAILED = "The metric could not score this output, so it counts as 0: "


@dataclass(frozen=True)
class Verdict:
    """What the metric said about one output, as an engine reads it."""

    score: float
    feedback: str
    scores: dict[str, float] = field(default_factory=dict)
    extra: dict[str, Any] = field(default_factory=dict)
    ok: bool = True

    @classmethod
    def from_result(cls, result: CaseResult) -> Verdict:
        if result.ok and result.score is not None:
            return cls(result.score, result.feedback, dict(result.scores), dict(result.extra))
        return cls(
            0.0, METRIC_FAILED + (result.error.splitlines()[0] if result.error else result.status.value), ok=False
        )


class SandboxedMetric:
    """``score(input, output, expected)`` of a metric folder, run in isolated children.

    ``options`` are every run's, whole: ``options.llm`` answers the metric's ``llm()`` calls
    (``skynet_core.llm.make_handler``); without one, a metric that calls ``llm()`` fails that case with a
    clear message. ``scorer`` is where the cases run (default: this machine).
    ``calls`` counts the cases scored so far.
    """

    def __init__(
        self, metric: str | MetricSource, options: RunOptions | None = None, scorer: Scorer | None = None
    ) -> None:
        self.source = MetricSource.of(metric)
        self.options = options or RunOptions()
        self.scorer = scorer or LocalScorer()
        self.calls = 0
        self._lock = threading.Lock()

    def score_many(self, items: Sequence[tuple[dict[str, Any], Any, dict[str, Any] | None]]) -> list[Verdict]:
        """One verdict per ``(input, output, expected)``, in order, from one run of the isolated runner."""
        if not items:
            return []
        cases = [
            Case(id=f"engine-{index}", input=_plain(dict(input)), output=_plain(output), expected=_plain(expected))
            for index, (input, output, expected) in enumerate(items)
        ]
        run = self.scorer(self.source, cases, self.options)
        with self._lock:
            self.calls += len(cases)
        by_id = {result.id: result for result in run.results}
        return [
            Verdict.from_result(by_id[case.id])
            if case.id in by_id
            else Verdict(0.0, METRIC_FAILED + "the run was cancelled", ok=False)
            for case in cases
        ]

    def score(self, input: dict[str, Any], output: Any, expected: dict[str, Any] | None = None) -> Verdict:
        return self.score_many([(input, output, expected)])[0]


def _plain(value: Any) -> Any:
    """``value`` as plain JSON values (the runner's channel carries JSON): other objects become their text."""
    return orjson.loads(orjson.dumps(value, default=str, option=orjson.OPT_NON_STR_KEYS))
