"""Feedback under stress: what the metric's feedback says about the perturbed outputs.

Two findings, each counted over the perturbed cases it applies to, with examples:

- ``static``: a ``degrade`` perturbation changed the score but not the feedback. The engines read the feedback to
  write the next version; feedback that stays the same when the output got worse cannot tell them what went wrong.
- ``gives_answer``: the feedback of a perturbed output quotes the case's expected value, which the perturbed output
  does not hold. An engine that reads it learns to copy training answers into what it writes instead of learning
  the task. It is read as the "Gives the answer away" rule of Feedback review reads it: a long expected value (12
  words or more) of which the feedback quotes most; a label or another short value named in feedback ("Expected
  'billing', got 'other'.") is what useful feedback says, and is never counted.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..feedback.judges import MIN_QUOTED_WORDS, _quoted
from ..feedback.rules import Thresholds
from ..feedback.text import _leaves, _words
from ..i18n import N_, _
from .perturbations import Family
from .verdict import EXAMPLES, Example
from .violations import Pair, example, shown

QUOTED_SHARE = Thresholds().answer_quote
"""The share of a long expected value the feedback must quote to give it away (Feedback review's default)."""


@dataclass(frozen=True)
class Finding:
    """One finding: ``count`` of the ``checked`` perturbed cases it applies to, per perturbation, with examples."""

    kind: str
    checked: int = 0
    count: int = 0
    by_perturbation: Mapping[str, int] = field(default_factory=dict)
    examples: tuple[Example, ...] = ()

    @property
    def share(self) -> float | None:
        return self.count / self.checked if self.checked else None

    @property
    def title(self) -> str:
        return _(_TITLES[self.kind])

    @property
    def advice(self) -> str:
        return _(_ADVICE[self.kind])

    def to_json(self) -> dict[str, Any]:
        return {
            "checked": self.checked,
            "count": self.count,
            "by_perturbation": dict(self.by_perturbation),
            "examples": [item.to_json() for item in self.examples],
        }

    @classmethod
    def from_json(cls, kind: str, data: Any) -> Finding:
        data = data if isinstance(data, Mapping) else {}
        return cls(
            kind,
            int(data.get("checked", 0)),
            int(data.get("count", 0)),
            {str(key): int(value) for key, value in (data.get("by_perturbation") or {}).items()},
            tuple(Example.from_json(item) for item in data.get("examples", ())),
        )


STATIC, GIVES_ANSWER = "static", "gives_answer"
_TITLES = {
    STATIC: N_("Feedback that does not change when the output gets worse"),
    GIVES_ANSWER: N_("Feedback that gives the expected answer away"),
}
_ADVICE = {
    STATIC: N_("Say what is wrong with this output, so the engine learns what to fix."),
    GIVES_ANSWER: N_(
        "Say what is missing or wrong in your own words: an engine that reads the answer copies it instead of "
        "learning the task."
    ),
}


@dataclass(frozen=True)
class FeedbackReport:
    """Both findings of one run."""

    static: Finding = field(default_factory=lambda: Finding(STATIC))
    gives_answer: Finding = field(default_factory=lambda: Finding(GIVES_ANSWER))

    @property
    def findings(self) -> tuple[Finding, Finding]:
        return self.static, self.gives_answer

    def to_json(self) -> dict[str, Any]:
        return {STATIC: self.static.to_json(), GIVES_ANSWER: self.gives_answer.to_json()}

    @classmethod
    def from_json(cls, data: Any) -> FeedbackReport:
        data = data if isinstance(data, Mapping) else {}
        return cls(Finding.from_json(STATIC, data.get(STATIC)), Finding.from_json(GIVES_ANSWER, data.get(GIVES_ANSWER)))


def check_feedback(scored: Iterable[tuple[str, Family, Sequence[Pair]]]) -> FeedbackReport:
    """Both findings over every perturbation's pairs (``(id, family, pairs)``)."""
    static: _Tally = _Tally(STATIC)
    gives: _Tally = _Tally(GIVES_ANSWER)
    answers: dict[str, list[list[str]]] = {}  # per case: the words of its long expected values (most have none)
    for perturbation, family, pairs in scored:
        for pair in pairs:
            if not pair.scored:
                continue
            if family is Family.DEGRADE and pair.after.score != pair.before.score:
                static.add(perturbation, pair, pair.after.feedback == pair.before.feedback)
            if pair.case.expected:
                case_id = pair.case.id
                if case_id not in answers:
                    answers[case_id] = long_answers(pair.case.expected)
                found = answers[case_id]
                gives.add(perturbation, pair, bool(found) and _gives_away(pair.after.feedback, found, pair.output))
    return FeedbackReport(static.finding(), gives.finding())


def long_answers(expected: Mapping[str, Any]) -> list[list[str]]:
    """The words of each value of ``expected`` long enough to be given away (a label never is)."""
    return [words for leaf in _leaves(expected) if len(words := _words(leaf)) >= MIN_QUOTED_WORDS]


def gives_away(feedback: str, expected: Mapping[str, Any], output: Any) -> bool:
    """Whether ``feedback`` quotes a value of ``expected`` that ``output`` does not hold (see the module)."""
    return _gives_away(feedback, long_answers(expected), output)


def _gives_away(feedback: str, answers: list[list[str]], output: Any) -> bool:
    said = _words(feedback)
    if not said or not answers:
        return False
    held = _words(shown(output))
    for words in answers:
        needed = max(MIN_QUOTED_WORDS, QUOTED_SHARE * len(words))
        if _quoted(words, said) >= needed and _quoted(words, held) < needed:
            return True
    return False


class _Tally:
    def __init__(self, kind: str) -> None:
        self.kind, self.checked, self.count = kind, 0, 0
        self.by_perturbation: dict[str, int] = {}
        self.found: list[tuple[float, Pair]] = []

    def add(self, perturbation: str, pair: Pair, hit: bool) -> None:
        self.checked += 1
        if hit:
            self.count += 1
            self.by_perturbation[perturbation] = self.by_perturbation.get(perturbation, 0) + 1
            if len(self.found) < EXAMPLES * 8:  # a few candidates for the examples, whatever the run's size
                self.found.append((abs(pair.change), pair))

    def finding(self) -> Finding:
        picked = sorted(self.found, key=lambda item: -item[0])[:EXAMPLES]
        return Finding(
            self.kind, self.checked, self.count, self.by_perturbation, tuple(example(pair, True) for _, pair in picked)
        )
