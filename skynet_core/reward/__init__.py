"""The reward on the studio's side and the trade-offs between its parts.

- ``parts``: the sandbox's reward rules re-exported, the reward of many cases at once from stored accuracy and
  observations (:func:`reward_parts`), and ``REWARD_SPEC`` written into metric.py (:func:`replace_reward_spec`);
- ``weights``: the weights' controls and their normalised values;
- ``tradeoffs``: which candidate wins where in the space of weights, how stable the ranking is;
- ``candidates``: the candidates' scored runs as the trade-offs page reads them;
- ``charts``: the page's Plotly figures (plain functions, tested without a browser).

Only ``parts`` is re-exported here, its names listed once (its ``__all__``): the others import numpy and plotly, and
are imported from their modules.
"""

from . import parts
from .parts import *  # noqa: F403  (parts.__all__ is the list)

__all__ = parts.__all__
