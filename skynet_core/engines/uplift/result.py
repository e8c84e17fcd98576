"""What an uplift experiment found: every seed of every arm, and the gains and feedback value made of them.

The result keeps only finished seeds: a seed counts once all its arms have run their rounds and scored
their final instruction on the validation cases, so every arm always has the same seeds, and the
paired feedback value compares like with like. A run that stopped early (budget, Cancel, a failed model
call) says so in ``outcome`` and keeps the seeds that finished before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from functools import cached_property
from typing import Any

from ...i18n import _, format_number, ngettext
from .config import Arm, UpliftConfig
from .stats import Interval, mean_interval


@dataclass(frozen=True)
class Calls:
    """Model calls made, counted as they were made (an answer reused for an identical request is not a call;
    a request litellm retried counts once)."""

    task: int = 0
    reflection: int = 0

    @property
    def total(self) -> int:
        return self.task + self.reflection

    def to_json(self) -> dict[str, int]:
        return {"task": self.task, "reflection": self.reflection}

    def describe(self) -> str:
        """The calls for people, counted in the plural forms of the language: "3 task calls and 1 reflection call"."""
        return calls_phrase(self.task, self.reflection)


def calls_phrase(task: int, reflection: int) -> str:
    """``task`` task calls and ``reflection`` reflection calls, for people (each in its plural form)."""
    return _("{task} and {reflection}").format(
        task=ngettext("{count} task call", "{count} task calls", task).format(count=format_number(task)),
        reflection=ngettext("{count} reflection call", "{count} reflection calls", reflection).format(
            count=format_number(reflection)
        ),
    )


def cases_phrase(count: int) -> str:
    """``count`` cases, for people: "1 case", "14 cases"."""
    return ngettext("{count} case", "{count} cases", count).format(count=format_number(count))


@dataclass(frozen=True)
class Round:
    """One reflection round of one arm and seed.

    ``case_ids`` is the minibatch (the same in every arm); ``before`` the current instruction's mean on it;
    ``proposed`` what GEPA's extractor found in the reflection's answer (``""``: nothing); ``after`` the
    proposal's mean on the same minibatch, ``None`` when there was nothing new to score (an empty proposal,
    or the current text again); ``accepted`` whether the proposal became the current instruction: it is
    kept unless it scores lower than the current one (``after >= before``). ``refused`` says why a proposal
    was refused unscored (too long; ``proposed`` is then ``""``), for people; ``""`` otherwise.
    """

    index: int
    case_ids: tuple[str, ...]
    before: float
    proposed: str
    after: float | None
    accepted: bool
    refused: str = ""

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "case_ids": list(self.case_ids),
            "before": self.before,
            "proposed": self.proposed,
            "after": self.after,
            "accepted": self.accepted,
            "refused": self.refused,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Round:
        after = data.get("after")
        return cls(
            int(data["index"]),
            tuple(str(item) for item in data.get("case_ids", ())),
            float(data["before"]),
            str(data.get("proposed", "")),
            float(after) if after is not None else None,
            bool(data.get("accepted")),
            str(data.get("refused") or ""),
        )


@dataclass(frozen=True)
class SeedRun:
    """One arm's run for one seed: its rounds, the instruction it ended with and that instruction's mean score
    on the validation cases (``end``)."""

    arm: Arm
    seed: int
    rounds: tuple[Round, ...]
    instruction: str
    end: float

    def to_json(self) -> dict[str, Any]:
        return {
            "arm": self.arm.value,
            "seed": self.seed,
            "rounds": [item.to_json() for item in self.rounds],
            "instruction": self.instruction,
            "end": self.end,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> SeedRun:
        return cls(
            Arm(data["arm"]),
            int(data["seed"]),
            tuple(Round.from_json(item) for item in data.get("rounds", ())),
            str(data["instruction"]),
            float(data["end"]),
        )


@dataclass(frozen=True)
class ArmResult:
    """One arm over the finished seeds: ``ends`` and ``instructions`` one per seed in seed order, and ``gain``,
    the mean of ``end - start`` with its 95% interval across seeds."""

    arm: Arm
    ends: tuple[float, ...]
    instructions: tuple[str, ...]
    gain: Interval


class Outcome(StrEnum):
    """How a run ended: every seed finished, the budget was reached, it was cancelled, a model call failed, or
    the metric scored none of the validation cases of the given instruction (``metric_failed``)."""

    COMPLETE = "complete"
    BUDGET = "budget"
    CANCELLED = "cancelled"
    FAILED = "failed"
    METRIC_FAILED = "metric_failed"


@dataclass(frozen=True)
class UpliftResult:
    """The experiment's result.

    ``start`` is the given instruction's mean on the validation cases (``None`` only when the run stopped
    before measuring it); ``runs`` the finished seeds' runs, every arm of a seed or none; ``calls`` and
    ``cost_usd`` what was spent, finished seeds or not (``unpriced`` names models whose calls had no known
    price and so count as free); ``outcome`` how it ended and ``error`` the failure's message when it failed
    (a model call's, or the metric's when it scored none of the validation cases of the given instruction).
    ``models`` names the task and reflection models, ``train_ids`` and ``val_ids`` the cases used, ``steps``
    (done, total) how far the run got (see ``loop.Progress``).
    """

    config: UpliftConfig
    start: float | None
    runs: tuple[SeedRun, ...]
    calls: Calls
    cost_usd: float
    outcome: Outcome
    error: str = ""
    unpriced: tuple[str, ...] = ()
    models: tuple[str, str] = ("", "")
    train_ids: tuple[str, ...] = ()
    val_ids: tuple[str, ...] = ()
    split_from_dataset: bool = False
    created_at: float = field(default=0.0, compare=False)
    steps: tuple[int, int] = (0, 0)

    @property
    def seeds_finished(self) -> int:
        return len({run.seed for run in self.runs})

    @property
    def known_cost_usd(self) -> float | None:
        """What the run cost, or ``None`` when some of its calls had no known price (the cost is unknown, not 0)."""
        return None if self.unpriced else self.cost_usd

    def describe_cost(self) -> str:
        """The cost for people: "$0.1234", or "unknown" and which models had no price (and what the calls with one
        cost)."""
        spent = f"${self.cost_usd:,.4f}"
        if not self.unpriced:
            return spent
        models = ", ".join(self.unpriced)
        if self.cost_usd:
            return _("unknown (no price known for {models}; {spent} for the calls with one)").format(
                models=models, spent=spent
            )
        return _("unknown (no price known for {models}; enter one on the Settings page)").format(models=models)

    @property
    def complete(self) -> bool:
        return self.outcome is Outcome.COMPLETE

    def runs_of(self, arm: Arm) -> list[SeedRun]:
        """``arm``'s runs, in seed order."""
        return sorted((run for run in self.runs if run.arm is arm), key=lambda run: run.seed)

    @cached_property
    def arms(self) -> dict[Arm, ArmResult]:
        """Every arm of the config, in its order, over the finished seeds."""
        found = {}
        for arm in self.config.arms:
            runs = self.runs_of(arm)
            ends = tuple(run.end for run in runs)
            gains = [end - self.start for end in ends] if self.start is not None else []
            found[arm] = ArmResult(arm, ends, tuple(run.instruction for run in runs), mean_interval(gains))
        return found

    @cached_property
    def feedback_value(self) -> Interval:
        """gain(feedback) − gain(score_only), with the 95% interval of the per-seed differences (paired)."""
        with_feedback = {run.seed: run.end for run in self.runs_of(Arm.FEEDBACK)}
        score_only = {run.seed: run.end for run in self.runs_of(Arm.SCORE_ONLY)}
        return mean_interval(
            [with_feedback[seed] - score_only[seed] for seed in sorted(with_feedback.keys() & score_only.keys())]
        )

    def to_json(self) -> dict[str, Any]:
        """The command line's ``--json``: ``start``, ``arms`` (``end`` per seed and ``gain``), ``feedback_value``,
        ``instructions`` (per arm, one per seed), ``calls`` (``task``, ``reflection``) and ``cost_usd`` (``None``
        when some calls had no known price)."""
        return {
            "start": self.start,
            "arms": {
                arm.value: {"end": list(found.ends), "gain": found.gain.to_json()} for arm, found in self.arms.items()
            },
            "feedback_value": self.feedback_value.to_json(),
            "instructions": {arm.value: list(found.instructions) for arm, found in self.arms.items()},
            "calls": self.calls.to_json(),
            "cost_usd": self.known_cost_usd,
        }

    def verdict(self) -> str:
        """What the feedback value says, for people: helps, hurts, or no clear effect at the 95% level."""
        value = self.feedback_value
        if value.value is None:
            return _("No seed finished, so there is no feedback value yet.")
        if value.low is None or value.high is None:
            return _("One seed gives no interval: run at least 2 seeds to tell the feedback's effect from chance.")
        if value.excludes_zero and value.value > 0:
            return _(
                "The feedback helps: with it the instruction gained more than with the score alone, beyond what "
                "chance across seeds explains."
            )
        if value.excludes_zero:
            return _(
                "The feedback hurts: with it the instruction gained less than with the score alone, beyond what "
                "chance across seeds explains."
            )
        return _(
            "No clear effect: the 95% interval includes 0. More seeds narrow it; more rounds give the feedback more "
            "chances to matter."
        )

    def message(self) -> str:
        """How the run ended, in one sentence for people."""
        count = self.seeds_finished
        if self.outcome is Outcome.COMPLETE:
            return ngettext(
                "The experiment finished: {count} seed in every arm.",
                "The experiment finished: {count} seeds in every arm.",
                count,
            ).format(count=count)
        kept = ngettext(
            "the {count} seed that finished is kept", "the {count} seeds that finished are kept", count
        ).format(count=count)
        done, total = self.steps
        if self.outcome is Outcome.BUDGET and total > done:
            kept = ngettext(
                "{left} of the {total} steps was not started; {kept}",
                "{left} of the {total} steps were not started; {kept}",
                total - done,
            ).format(left=total - done, total=total, kept=kept)
        if self.outcome is Outcome.BUDGET:
            free = (
                _(" (calls of {models} have no known price and count as free)").format(models=", ".join(self.unpriced))
                if self.unpriced
                else ""
            )
            return _(
                "The run stopped at its budget of ${budget}, having spent ${spent}{free}: no call starts that the "
                "budget left cannot cover; {kept}."
            ).format(
                budget=f"{self.config.max_cost_usd or 0.0:,.4f}", spent=f"{self.cost_usd:,.4f}", free=free, kept=kept
            )
        if self.outcome is Outcome.CANCELLED:
            return _("The run was cancelled; {kept}.").format(kept=kept)
        if self.outcome is Outcome.METRIC_FAILED:
            return _(
                "The metric scored none of the validation cases, so there is nothing to measure ({error}). Run the "
                "contract check on it and on outputs like the task model's, fix it, and run again."
            ).format(error=self.error)
        return _("The run stopped because a model call failed ({error}); {kept}.").format(error=self.error, kept=kept)
