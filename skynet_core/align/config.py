"""The size of an alignment run, checked when it is made (``ValueError`` with a message for people). Light: the
command line's parser and the page's form read these without loading the run's modules."""

from __future__ import annotations

from dataclasses import dataclass

from ..i18n import _

DEFAULT_ROUNDS = 8
MAX_ROUNDS = 100
MINIBATCH = 3  # GEPA's own default for optimize_anything with a dataset


@dataclass(frozen=True)
class AlignConfig:
    """The size of a run: ``rounds`` of GEPA's loop (1 to :data:`MAX_ROUNDS`), ``minibatch`` train cases a round,
    ``seed`` (the split and GEPA's choices), ``max_cost_usd`` (``None``: no budget; else 0 or more)."""

    rounds: int = DEFAULT_ROUNDS
    minibatch: int = MINIBATCH
    seed: int = 0
    max_cost_usd: float | None = None

    def __post_init__(self) -> None:
        if isinstance(self.rounds, bool) or not 1 <= self.rounds <= MAX_ROUNDS:
            raise ValueError(
                _("rounds must be a whole number from 1 to {top}, not {value!r}.").format(
                    top=MAX_ROUNDS, value=self.rounds
                )
            )
        if self.max_cost_usd is not None and not 0 <= self.max_cost_usd <= 1_000_000:
            raise ValueError(
                _("The budget must be a number of US dollars, 0 or more, not {value!r}.").format(
                    value=self.max_cost_usd
                )
            )
