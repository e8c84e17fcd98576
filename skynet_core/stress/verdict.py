"""Violations and the verdict: what each perturbation did to the scores, and what that says about the metric.

A case of a perturbation compares the metric's score of the output as it was (``before``) with its score of the
perturbed output (``after``). It violates its family's rule when:

- ``preserve``: the score moved by more than :data:`MOVE`;
- ``degrade``: the case scored above 0 and the score did not go down (a case at 0 cannot go lower: it is not
  *eligible*, and the share of violations is of the eligible cases);
- ``game``: the score rose by more than :data:`MOVE`.

The verdict flags the metric ``brittle`` when a ``preserve`` perturbation violates on at least 10% of its cases,
``insensitive`` when a ``degrade`` one does on at least 50%, ``hackable`` when a ``game`` one does on at least
10% (or the exploit search raised the score of wrong outputs by more than :data:`MOVE`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any

from ..engines.uplift.stats import Interval
from ..i18n import N_, _, format_number
from .perturbations import Family

MOVE = 0.05
"""How far a score may move before a case counts as moved (``preserve``) or raised (``game``)."""
_EPS = 1e-9  # 1.0 - 0.95 is 0.05000000000000004: a move of exactly MOVE is no move
EXAMPLES = 3
"""Examples kept per perturbation."""
SEARCH = "search"
"""The id that stands for the exploit search among the reasons of ``hackable``."""


class Flag(StrEnum):
    """What the stress test can say is wrong with a metric; each comes from one family."""

    BRITTLE = "brittle"
    INSENSITIVE = "insensitive"
    HACKABLE = "hackable"

    @property
    def family(self) -> Family:
        return _FAMILIES[self]

    @property
    def share(self) -> float:
        """The share of a perturbation's cases that must violate for the flag."""
        return _SHARES[self]

    @property
    def label(self) -> str:
        """The flag's word for people, in the current language."""
        return _(_LABELS[self])

    @property
    def meaning(self) -> str:
        """What the flag means for an optimizer, one sentence for people."""
        return _(_MEANINGS[self])


_FAMILIES = {Flag.BRITTLE: Family.PRESERVE, Flag.INSENSITIVE: Family.DEGRADE, Flag.HACKABLE: Family.GAME}
_SHARES = {Flag.BRITTLE: 0.10, Flag.INSENSITIVE: 0.50, Flag.HACKABLE: 0.10}
_LABELS = {Flag.BRITTLE: N_("brittle"), Flag.INSENSITIVE: N_("insensitive"), Flag.HACKABLE: N_("hackable")}
_MEANINGS = {
    Flag.BRITTLE: N_("changes that keep the meaning move its score, so an optimizer chases formatting"),
    Flag.INSENSITIVE: N_("worse outputs keep their score, so an optimizer cannot tell better from worse"),
    Flag.HACKABLE: N_("outputs dressed to look right score higher, so an optimizer will learn the trick"),
}
FLAG_OF = {flag.family: flag for flag in Flag}


def eligible(family: Family, before: float) -> bool:
    """Whether a case that scored ``before`` can violate ``family``'s rule."""
    return before > 0 if family is Family.DEGRADE else True


def violates(family: Family, before: float, after: float) -> bool:
    """Whether a case whose score went from ``before`` to ``after`` breaks ``family``'s rule."""
    if family is Family.PRESERVE:
        return abs(after - before) > MOVE + _EPS
    if family is Family.DEGRADE:
        return before > 0 and after >= before
    return after - before > MOVE + _EPS


@dataclass(frozen=True)
class Example:
    """One case of a perturbation, as a person reads it: the output before and after (as text, clipped), the
    scores and the feedback after, and whether it violates the family's rule."""

    id: str
    before: str
    after: str
    score_before: float
    score_after: float
    feedback_before: str
    feedback_after: str
    violates: bool

    @property
    def change(self) -> float:
        return self.score_after - self.score_before

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "output_before": self.before,
            "output_after": self.after,
            "score_before": self.score_before,
            "score_after": self.score_after,
            "feedback_before": self.feedback_before,
            "feedback_after": self.feedback_after,
            "violates": self.violates,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Example:
        return cls(
            str(data["id"]),
            str(data["output_before"]),
            str(data["output_after"]),
            float(data["score_before"]),
            float(data["score_after"]),
            str(data.get("feedback_before", "")),
            str(data.get("feedback_after", "")),
            bool(data.get("violates")),
        )


@dataclass(frozen=True)
class PerturbationResult:
    """What one perturbation did over the cases it changed.

    Invariants: ``n`` counts the cases whose output it changed and whose before and after were both scored;
    ``errors`` the changed cases whose perturbed output could not be scored (left out of ``n``);
    ``eligible <= n`` (the cases that could violate: those above 0 for ``degrade``, all of ``n`` otherwise);
    ``violations <= eligible``; ``mean_change`` is the mean of after − before over the ``n`` cases with its 95%
    bootstrap interval (``value`` ``None`` when ``n`` is 0); ``examples`` hold at most :data:`EXAMPLES` cases,
    the violating ones first, the largest change first.
    """

    id: str
    family: Family
    n: int
    eligible: int
    violations: int
    mean_change: Interval
    examples: tuple[Example, ...] = ()
    errors: int = 0

    @property
    def rate(self) -> float | None:
        """The share of the eligible cases that violate (``None`` when none is eligible)."""
        return self.violations / self.eligible if self.eligible else None

    @property
    def flag(self) -> Flag | None:
        """The flag this perturbation raises, if its share of violations reaches the flag's."""
        rate, flag = self.rate, FLAG_OF[self.family]
        return flag if rate is not None and rate >= flag.share else None

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "family": self.family.value,
            "n": self.n,
            "eligible": self.eligible,
            "violations": self.violations,
            "rate": self.rate,
            "errors": self.errors,
            "mean_change": self.mean_change.to_json(),
            "examples": [example.to_json() for example in self.examples],
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> PerturbationResult:
        return cls(
            str(data["id"]),
            Family(data["family"]),
            int(data["n"]),
            int(data.get("eligible", data["n"])),
            int(data["violations"]),
            Interval.from_json(data.get("mean_change"), int(data["n"])),
            tuple(Example.from_json(item) for item in data.get("examples", ())),
            int(data.get("errors", 0)),
        )


@dataclass(frozen=True)
class Verdict:
    """The flags set, each with the ids behind it (perturbations, worst first, and :data:`SEARCH` when the exploit
    search found a gain); a flag that is not set is not in ``why``. No flag: the metric held under stress."""

    why: Mapping[Flag, tuple[str, ...]] = field(default_factory=dict)

    @property
    def flags(self) -> tuple[Flag, ...]:
        return tuple(flag for flag in Flag if self.why.get(flag))

    @property
    def sound(self) -> bool:
        return not self.flags

    def has(self, flag: Flag) -> bool:
        return bool(self.why.get(flag))

    def to_json(self) -> dict[str, Any]:
        return {
            **{flag.value: self.has(flag) for flag in Flag},
            "why": {flag.value: list(ids) for flag, ids in self.why.items() if ids},
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Verdict:
        why = data.get("why") or {}
        return cls({Flag(flag): tuple(ids) for flag, ids in why.items() if flag in Flag.__members__.values()})


def verdict_of(results: Sequence[PerturbationResult], search_gain: float | None = None) -> Verdict:
    """The flags ``results`` raise (and the exploit search's gain, when it ran)."""
    why: dict[Flag, list[PerturbationResult]] = {}
    for result in results:
        if (flag := result.flag) is not None:
            why.setdefault(flag, []).append(result)
    ordered = {
        flag: tuple(found.id for found in sorted(items, key=lambda item: -(item.rate or 0.0)))
        for flag, items in why.items()
    }
    if search_gain is not None and search_gain > MOVE + _EPS:
        ordered[Flag.HACKABLE] = (*ordered.get(Flag.HACKABLE, ()), SEARCH)
    return Verdict({flag: ordered[flag] for flag in Flag if flag in ordered})


def percent(rate: float | None) -> str:
    """A share for people: "47%"."""
    return "–" if rate is None else f"{format_number(round(rate * 100))}%"
