"""The reward on the studio's side and the trade-offs between its parts.

- ``parts``: the sandbox's reward rules re-exported, the reward of many cases at once from stored accuracy and
  observations (:func:`reward_parts`), and ``REWARD_SPEC`` written into metric.py (:func:`replace_reward_spec`);
- ``weights``: the weights' controls and their normalised values;
- ``tradeoffs``: which candidate wins where in the space of weights, how stable the ranking is;
- ``candidates``: the candidates' scored runs as the trade-offs page reads them;
- ``charts``: the page's Plotly figures (plain functions, tested without a browser).

Only ``parts`` is re-exported here: the others import numpy and plotly, and are imported from their modules.
"""

from .parts import (
    PARTS,
    MetricSourceError,
    NormalizedSpec,
    RewardSpecError,
    error_from_part_score,
    part_score,
    replace_reward_spec,
    reward_pair,
    reward_parts,
    spec_to_source,
    validate_reward_spec,
    weight_vector,
)

__all__ = [
    "PARTS",
    "MetricSourceError",
    "NormalizedSpec",
    "RewardSpecError",
    "error_from_part_score",
    "part_score",
    "replace_reward_spec",
    "reward_pair",
    "reward_parts",
    "spec_to_source",
    "validate_reward_spec",
    "weight_vector",
]
