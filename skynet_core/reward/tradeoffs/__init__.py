"""Which candidate wins under which weights, and how firmly: the maths of the Reward trade-offs page.

A candidate is one version of the artifact, scored over the same kind of cases. Everything here
starts from stored values (the accuracy each case passed to ``reward`` and its observation), so
nothing re-runs the metric.

The fact the page leans on: a candidate's mean reward is linear in the weights,
``mean(w . p_i) = w . mean(p_i)``. Once each candidate's three mean part scores are known, the
mean reward under any weights costs three multiplications, so the whole simplex map costs
(grid points x candidates) whatever the number of cases. Ties go to the earlier candidate.
"""

from skynet_core.reward.weights import (
    PART_LABELS,
    controls_from_spec,
    renormalize,
    shares_text,
    spec_from_controls,
    weights_from_point,
)

from ._compare import CaseRankChanges, WeightComparison, case_rank_changes, compare_weights, ranks, unmeasured
from ._stability import Stability, kendall_tau, rank_stability
from ._summary import CandidateData, CandidateSummary, mean_rewards, pareto_front, summarize
from ._verdict import Verdict, who_wins
from ._winners import WinnerChange, WinnerMap, iso_reward_line, nearest_change, simplex_grid, winner_map

__all__ = [
    "CandidateData",
    "CandidateSummary",
    "CaseRankChanges",
    "PART_LABELS",
    "Stability",
    "Verdict",
    "WeightComparison",
    "WinnerChange",
    "WinnerMap",
    "case_rank_changes",
    "compare_weights",
    "controls_from_spec",
    "iso_reward_line",
    "kendall_tau",
    "mean_rewards",
    "nearest_change",
    "pareto_front",
    "rank_stability",
    "ranks",
    "renormalize",
    "shares_text",
    "simplex_grid",
    "spec_from_controls",
    "summarize",
    "unmeasured",
    "weights_from_point",
    "who_wins",
    "winner_map",
]
