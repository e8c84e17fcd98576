"""What an alignment found: the prompts before and after, the agreement on dev and test before and after, the gain on
test, the rounds, and what it cost; its JSON is the command line's ``--json``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from ..human.estimate import Estimate
from ..i18n import N_, _
from ..metric.source import MetricSource
from .measures import Figures
from .prompts import Prompt

if TYPE_CHECKING:
    from .game import GameCheck
from .split import AlignSplit


class Outcome(StrEnum):
    """How a run ended: ``complete`` (its rounds, then test scored with the final prompts); ``refused`` (the judge
    disagrees with people too rarely to learn from, or could not score the labelled cases: nothing optimized);
    ``cancelled``; ``budget`` (``--max-cost`` reached); ``failed`` (a model call failed)."""

    COMPLETE = "complete"
    REFUSED = "refused"
    CANCELLED = "cancelled"
    BUDGET = "budget"
    FAILED = "failed"

    @property
    def stopped(self) -> bool:
        return self in (Outcome.CANCELLED, Outcome.BUDGET, Outcome.FAILED)


_MESSAGES = {
    Outcome.CANCELLED: N_(
        "The alignment was cancelled before it finished; nothing was measured on the test cases after."
    ),
    Outcome.BUDGET: N_(
        "The alignment stopped at its budget before it finished; nothing was measured on the test cases after."
    ),
    Outcome.FAILED: N_("The alignment stopped: a model call failed ({error})."),
}


@dataclass(frozen=True)
class Calls:
    """Model calls that reached a model: the judge's ``llm()`` calls (an answer from the answer cache, or one
    alignment already had for the same prompts and case, is not a call) and the reflection model's."""

    judge: int = 0
    reflection: int = 0

    def to_json(self) -> dict[str, int]:
        return {"judge": self.judge, "reflection": self.reflection}


@dataclass(frozen=True)
class Measured:
    """A judge's figures on the dev and the test cases."""

    dev: Figures
    test: Figures

    def to_json(self) -> dict[str, Any]:
        return {"dev": self.dev.to_json(), "test": self.test.to_json()}


@dataclass(frozen=True)
class RoundRecord:
    """One round of GEPA's loop.

    ``minibatch``: the train cases the proposal was made from; ``proposed``: the texts it changed (empty when
    nothing was proposed); ``accepted``: it did better than its parent on that minibatch and joined GEPA's pool,
    after it was scored on dev (``dev``: its objective there, ``dev_kappa`` its κ); ``best``: the best objective
    on dev after the round; ``note``: why the round proposed nothing or its proposal was not kept ("" when kept).
    """

    round: int
    minibatch: tuple[str, ...]
    proposed: Mapping[str, str]
    accepted: bool
    dev: float | None
    dev_kappa: float | None
    best: float
    note: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "round": self.round,
            "dev": {"objective": self.dev, "kappa": self.dev_kappa, "best": self.best},
            "accepted": self.accepted,
            "minibatch": list(self.minibatch),
            "note": self.note,
        }


@dataclass(frozen=True)
class AlignResult:
    """The alignment of one metric's prompts on one candidate's labelled cases.

    Invariants: ``prompts`` are the starting prompts and ``final`` maps each of their names to its text at the end
    (the starting text when nothing better was found); ``aligned`` is ``original`` with metric.py's prompts set to
    ``final`` and every other byte as it was; ``before`` is set once the first scoring finished, ``after`` and
    ``gain`` only for a ``complete`` run (``gain``: κ after minus κ before on test, paired); ``fixed`` and
    ``broken`` are test ids whose disagreement the final prompts mended or made; ``stress`` is the stress test's
    ``game`` family on the test cases with the starting and the final prompts (``None``: the run did not end
    complete with changed prompts).
    """

    original: MetricSource
    aligned: MetricSource
    prompts: tuple[Prompt, ...]
    final: Mapping[str, str]
    split: AlignSplit
    threshold: float
    before: Measured | None
    after: Measured | None
    gain: Estimate | None
    fixed: tuple[str, ...]
    broken: tuple[str, ...]
    rounds: tuple[RoundRecord, ...]
    calls: Calls
    cost_usd: float | None
    outcome: Outcome
    detail: str = ""
    notes: int = 0
    disagreements: int = 0
    out: str | None = None
    stress: GameCheck | None = field(default=None, compare=False)

    @property
    def changed(self) -> bool:
        return any(self.final[prompt.name] != prompt.text for prompt in self.prompts)

    def diff(self) -> str:
        """A unified diff of each prompt that changed, from the start to the end."""
        from ..runs.history import unified_diff  # the studio's one diff (a last line without a newline marked)

        return "".join(
            unified_diff(
                prompt.text,
                self.final[prompt.name],
                _("{name} before").format(name=prompt.name),
                _("{name} after").format(name=prompt.name),
            )
            for prompt in self.prompts
        )

    def message(self) -> str:
        """How the run ended, for people ("" for a complete run: its figures say it)."""
        if self.outcome is Outcome.REFUSED:
            return self.detail
        if self.outcome.stopped:
            return _(_MESSAGES[self.outcome]).format(error=self.detail)
        return ""

    def to_json(self) -> dict[str, Any]:
        """The command line's ``--json`` object (the issue's shape; ``stress`` only when the stress test ran)."""
        data: dict[str, Any] = {
            "prompts": [
                {"name": prompt.name, "before": prompt.text, "after": self.final[prompt.name]}
                for prompt in self.prompts
            ],
            "split": self.split.to_json(),
            "before": self.before.to_json() if self.before is not None else None,
            "after": self.after.to_json() if self.after is not None else None,
            "gain": {"kappa": self.gain.to_json()} if self.gain is not None else None,
            "fixed": list(self.fixed),
            "broken": list(self.broken),
            "rounds": [record.to_json() for record in self.rounds],
            "calls": self.calls.to_json(),
            "cost_usd": self.cost_usd,
            "out": self.out,
        }
        if self.stress is not None:
            data["stress"] = self.stress.to_json()
        return data
