"""One way to score cases: a :class:`Scorer`, here or on a Ray cluster, given one :class:`RunOptions` value.

Every scoring of the studio goes through a ``Scorer``: the contract check, "Score all", comparisons, judge
consistency, probes, the trade-offs' candidates, a typed case, the engines' metric (GEPA, DSPy), the uplift
experiment, and the CLI's ``check`` and ``score``::

    scorer = scorer_for(ray_address)                  # LocalScorer() when the address is empty
    run = scorer(metric, cases, RunOptions(timeout_s=30, concurrency=8, llm=handler))
    report = check_metric(metric, cases, options, scorer=scorer, sample=cases)   # the stages, then the scorer

The options travel whole, never as keyword arguments spread over calls, and no module but a scorer calls the
runner: a Ray address, a model handler or a cancel event given once reaches every case.
"""

from .options import ResultCallback, RunOptions, ScoreRun
from .scorer import LocalScorer, RayScorer, Scorer, scorer_for

__all__ = ["LocalScorer", "RayScorer", "ResultCallback", "RunOptions", "ScoreRun", "Scorer", "scorer_for"]
