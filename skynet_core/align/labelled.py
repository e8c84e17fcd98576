"""The people's side of an alignment: the labelled cases of the candidate in use, on which scale, and how well the
raters agree with each other.

This module is the one place alignment reads the human scores (``skynet_core.human``): the store is changing so
that labels belong to (case id, candidate), and a change there is adapted here alone.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..cases import Case
from ..human import FAIL_VALUE, PASS_VALUE, HumanLabels, HumanScore
from ..i18n import _

MIN_LABELLED = 20
"""Labelled cases an alignment needs: fewer leave too few for a train, a dev and a test part."""
MIN_DISAGREEMENTS = 5
"""Cases where the judge and the people fall on different sides of the threshold, at the start: fewer give the
reflection model almost nothing to learn from."""
CEILING_RATERS = 3  # the raters (most labels first) whose pairs are compared


@dataclass(frozen=True)
class Scale:
    """How a judge's score is compared with a human score.

    ``pass_fail``: every human score counted is a pass (1) or a fail (0); otherwise the scale is numeric, from
    ``low`` to ``high`` (the human scores' range, ``low < high``). ``threshold``: a score at or above it passes
    (Cohen's κ and the accuracy are taken there, and a pass/fail agreement is a match there).
    """

    pass_fail: bool
    threshold: float
    low: float = FAIL_VALUE
    high: float = PASS_VALUE

    @property
    def span(self) -> float:
        return self.high - self.low

    def passes(self, score: float) -> bool:
        return score >= self.threshold

    def agreement(self, judge: float, human: float) -> float:
        """1 for full agreement, 0 for none: a match at the threshold (pass/fail), else ``1 - |judge - human| / span``
        (clipped to 0 and 1)."""
        if self.pass_fail:
            return 1.0 if self.passes(judge) == self.passes(human) else 0.0
        return min(1.0, max(0.0, 1.0 - abs(judge - human) / self.span))

    def bias(self, judge: float, human: float) -> float:
        """The signed gap, positive when the judge is more lenient: the passes' difference (pass/fail), else
        ``judge - human``."""
        if self.pass_fail:
            return float(self.passes(judge)) - float(self.passes(human))
        return judge - human

    def disagrees(self, judge: float, human: float) -> bool:
        """Whether the judge and the person differ enough to learn from: on different sides of the threshold, or
        (numeric) more than a quarter of the scale apart."""
        sides = self.passes(judge) != self.passes(human)
        return sides or (not self.pass_fail and abs(judge - human) > self.span / 4)

    def direction(self, judge: float, human: float) -> str:
        """ "too lenient" (the judge scored higher than the person) or "too strict": words for the reflection model,
        which reads English."""
        return "too lenient" if self.bias(judge, human) > 0 or judge > human else "too strict"

    def shown(self, score: float) -> str:
        """A score as the reflection model reads it: "pass (1)" / "fail (0)" on a pass/fail scale, else the number."""
        if self.pass_fail:
            return f"{'pass' if self.passes(score) else 'fail'} ({score:g})"
        return f"{score:g}"


@dataclass(frozen=True)
class HumanCase:
    """One labelled case: the case (input, output, expected), the human score (the mean of the raters counted) and
    their notes (several joined by lines; empty when none wrote one)."""

    case: Case
    human: float
    note: str = ""

    @property
    def id(self) -> str:
        return self.case.id


@dataclass(frozen=True)
class Labelled:
    """The labelled cases of one candidate, in the data's order, on one :class:`Scale`.

    Invariants: every case has a finite human score and a distinct id; ``raters`` are those whose scores count
    (one when ``rater`` is given), most labels first.
    """

    cases: tuple[HumanCase, ...]
    scale: Scale
    raters: tuple[str, ...] = ()
    rater: str | None = None

    def __len__(self) -> int:
        return len(self.cases)

    def by_id(self) -> dict[str, HumanCase]:
        return {item.id: item for item in self.cases}

    def humans(self) -> dict[str, float]:
        return {item.id: item.human for item in self.cases}

    @property
    def with_notes(self) -> int:
        """How many labelled cases carry a note."""
        return sum(1 for item in self.cases if item.note.strip())


def labelled_cases(
    cases: Sequence[Case],
    scores: Iterable[HumanScore],
    candidate: str,
    *,
    rater: str | None = None,
    threshold: float = 0.5,
) -> Labelled:
    """The cases of ``candidate`` (``cases``: its cases, every split) that have a human score among ``scores``: one
    rater's, or the mean of every rater's, with their notes. Pass/fail when every score counted is 0 or 1."""
    labels = HumanLabels("", tuple(scores))
    values = labels.values(candidate, rater)
    notes = labels.notes(candidate, rater)
    found = tuple(
        HumanCase(case, values[case.id], notes.get(case.id, ""))
        for case in dict((case.id, case) for case in cases).values()
        if case.id in values and math.isfinite(values[case.id])
    )
    counted = [
        score.value
        for score in labels.scores
        if score.candidate == candidate and rater in (None, score.rater) and score.case_id in values
    ]
    pass_fail = all(value in (FAIL_VALUE, PASS_VALUE) for value in counted)
    humans = [item.human for item in found]
    low, high = (min(humans), max(humans)) if humans else (FAIL_VALUE, PASS_VALUE)
    if pass_fail or high <= low:
        low, high = min(low, FAIL_VALUE), max(high, PASS_VALUE)
    raters = tuple(name for name in labels.raters() if rater in (None, name))
    return Labelled(found, Scale(pass_fail, threshold, low, high), raters, rater)


@dataclass(frozen=True)
class RaterPair:
    """Two raters' scores of the same cases (by case id, on the metric's scale): the ceiling a judge can reach."""

    first: str
    second: str
    scores: Mapping[str, tuple[float, float]]


def rater_pairs(scores: Iterable[HumanScore], candidate: str, ids: Iterable[str]) -> tuple[RaterPair, ...]:
    """The pairs among the raters with the most labels of ``candidate``'s cases ``ids`` who scored at least two
    cases in common."""
    labels = HumanLabels("", tuple(scores))
    wanted = set(ids)
    raters = labels.raters()[:CEILING_RATERS]
    values = {name: labels.values(candidate, name) for name in raters}
    pairs = []
    for index, first in enumerate(raters):
        for second in raters[index + 1 :]:
            both = {
                case_id: (values[first][case_id], values[second][case_id])
                for case_id in values[first]
                if case_id in values[second] and case_id in wanted
            }
            if len(both) >= 2:
                pairs.append(RaterPair(first, second, both))
    return tuple(pairs)


def refusal(labelled: Labelled) -> str | None:
    """Why an alignment cannot start on these labels (``None``: it can), for people."""
    if len(labelled) < MIN_LABELLED:
        return _(
            "Aligning the judge needs at least {least} labelled cases of the candidate in use, and {count} are "
            "labelled: label {more} more on the Human scores page (or give more in the labels file)."
        ).format(least=MIN_LABELLED, count=len(labelled), more=MIN_LABELLED - len(labelled))
    return None
