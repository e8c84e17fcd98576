"""What an uplift experiment is given: the arms, the numbers that size it, and the two models.

The values here are checked when they are made (``ValueError`` with a message for people), so the
loop, the plan and the command line never meet an impossible experiment.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from enum import StrEnum

from ...i18n import N_, _
from ...llm import ModelConfig, ModelSettings

DEFAULT_ROUNDS = 3
DEFAULT_SEEDS = 3
DEFAULT_MINIBATCH = 3
MAX_ROUNDS = 50
MAX_SEEDS = 50
MAX_MINIBATCH = 64
MAX_INSTRUCTION_BYTES = 256_000
"""The longest instruction an experiment starts from, in UTF-8 bytes (an instruction file is refused past it)."""


class Arm(StrEnum):
    """What the reflection model reads about each case of a minibatch; everything else is the same in every arm.

    - ``feedback``: the metric's feedback as it is;
    - ``score_only``: no feedback, no named scores and no extra side information, only a sentence with the
      score: what GEPA reads from a metric that returns a bare number (DSPy GEPA's own sentence);
    - ``shuffled``: the feedback (and extra side information) the metric gave another case of the same
      minibatch, by a seeded derangement; the case keeps its own score and named scores.
    """

    FEEDBACK = "feedback"
    SCORE_ONLY = "score_only"
    SHUFFLED = "shuffled"

    @property
    def label(self) -> str:
        """The arm's name for people, in the current language."""
        return _(ARM_LABELS[self])


ARM_LABELS = {
    Arm.FEEDBACK: N_("with feedback"),
    Arm.SCORE_ONLY: N_("score only"),
    Arm.SHUFFLED: N_("shuffled feedback"),
}
ALL_ARMS = (Arm.FEEDBACK, Arm.SCORE_ONLY, Arm.SHUFFLED)


@dataclass(frozen=True)
class UpliftConfig:
    """One experiment's size: the instruction it starts from, ``rounds`` reflection rounds per arm and seed,
    ``seeds`` independent repeats, ``minibatch`` training cases per round, and an optional budget.

    Invariants (checked): ``instruction`` has text; ``1 <= rounds <= 50``, ``1 <= seeds <= 50``,
    ``1 <= minibatch <= 64`` and at least 2 with the shuffled arm (a derangement needs two cases);
    ``arms`` are distinct, in the order they run, and hold ``feedback`` and ``score_only`` (the feedback value
    compares them); ``max_cost_usd`` is ``None`` (no budget) or a finite number of 0 or more; ``seed`` fixes
    every random choice (the split, the minibatches, the derangements), so the same config and cases give
    the same experiment.
    """

    instruction: str
    rounds: int = DEFAULT_ROUNDS
    seeds: int = DEFAULT_SEEDS
    minibatch: int = DEFAULT_MINIBATCH
    max_cost_usd: float | None = None
    arms: tuple[Arm, ...] = ALL_ARMS
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.instruction.strip():
            raise ValueError(_("Give the instruction to start from: the experiment improves it in every arm."))
        for name, value, top in (
            ("rounds", self.rounds, MAX_ROUNDS),
            ("seeds", self.seeds, MAX_SEEDS),
            ("minibatch", self.minibatch, MAX_MINIBATCH),
        ):
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= top:
                raise ValueError(
                    _("{name} must be a whole number from 1 to {top}, not {value!r}.").format(
                        name=name, top=top, value=value
                    )
                )
        if len(set(self.arms)) != len(self.arms) or not {Arm.FEEDBACK, Arm.SCORE_ONLY} <= set(self.arms):
            raise ValueError(_("The arms must be distinct and include feedback and score_only."))
        if Arm.SHUFFLED in self.arms and self.minibatch < 2:
            raise ValueError(
                _("The shuffled arm gives each case another case's feedback, so the minibatch needs at least 2 cases.")
            )
        cost = self.max_cost_usd
        if cost is not None and (isinstance(cost, bool) or not math.isfinite(cost) or cost < 0):
            raise ValueError(
                _("The budget must be a number of US dollars, 0 or more, not {value!r}.").format(value=cost)
            )


@dataclass(frozen=True)
class Models:
    """The task model (runs the instruction on a case's input: the instruction as the system message) and the
    reflection model (writes the next instruction), with ``settings`` for how calls are made (temperature,
    timeout, retries). The same temperature applies to both; at 0 the experiment reuses answers to identical
    requests (see :mod:`.evaluate`)."""

    task: ModelConfig
    reflection: ModelConfig
    settings: ModelSettings = field(default_factory=ModelSettings)

    @property
    def deterministic(self) -> bool:
        """Whether identical requests get the same answer (temperature 0), so one answer may serve both."""
        return self.settings.temperature == 0
