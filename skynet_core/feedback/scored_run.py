"""A scored run as the feedback rules read it: its ``ok`` cases with their words and stems, the score range,
and the flag a rule raises on one case."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from skynet_core.cases import Case
from skynet_core.results import CaseResult

from .text import (
    _EPS,
    Pair,
    _content,
    _output_stems,
    _value_stems,
    _words,
)


@dataclass(frozen=True)
class Flag:
    """One rule's verdict on one case: what it found (``detail``) and, in plain words,
    what the feedback should add (``suggestion``). ``rule`` is the rule's ``name``."""

    case_id: str
    rule: str
    detail: str
    suggestion: str


@dataclass(frozen=True)
class _Item:
    """An ``ok`` case prepared for the rules: its feedback and the stems everything is compared by."""

    case: Case
    result: CaseResult
    score: float
    feedback: str
    words: tuple[str, ...]
    stems: frozenset[str]
    expected_stems: frozenset[str]
    output_stems: frozenset[str]
    input_stems: frozenset[str]


def _score(result: CaseResult) -> float:
    """The score of an ``ok`` result (finite by the results' invariant)."""
    return float(result.score or 0.0)


def _score_range(values: Sequence[float]) -> tuple[float, float]:
    """From the lower of 0 and the lowest value to the higher of 1 and the highest."""
    return min([0.0, *values]), max([1.0, *values])


@dataclass(frozen=True)
class _Run:
    items: tuple[_Item, ...]
    low: float
    high: float
    named_ranges: Mapping[str, tuple[float, float]]

    @classmethod
    def build(cls, pairs: Sequence[Pair]) -> _Run:
        _check_ids(pairs)
        items = tuple(
            _Item(
                case=case,
                result=result,
                score=_score(result),
                feedback=result.feedback,
                words=tuple(_words(result.feedback)),
                stems=_content(_words(result.feedback)),
                expected_stems=_value_stems(case.expected),
                output_stems=_output_stems(case.output),
                input_stems=_value_stems(case.input),
            )
            for case, result in pairs
            if result.ok and result.score is not None
        )
        low, high = _score_range([item.score for item in items])
        named: dict[str, list[float]] = defaultdict(list)
        for item in items:
            for name, value in item.result.scores.items():
                named[name].append(value)
        return cls(items, low, high, {name: _score_range(values) for name, values in named.items()})

    def is_top(self, score: float, margin: float = 0.0) -> bool:
        return score >= self.high - margin * (self.high - self.low) - _EPS

    def is_lowest(self, score: float, margin: float = 0.0) -> bool:
        return score <= self.low + margin * (self.high - self.low) + _EPS

    def is_low(self, score: float, fraction: float) -> bool:
        return score < self.low + fraction * (self.high - self.low) - _EPS


def _check_ids(pairs: Sequence[Pair]) -> None:
    seen: set[str] = set()
    for case, result in pairs:
        if case.id != result.id:
            raise ValueError(f"Case {case.id!r} is paired with the result of case {result.id!r}; pair them by id.")
        if case.id in seen:
            raise ValueError(
                f"Case id {case.id!r} appears more than once in the run; review one candidate's results at a time."
            )
        seen.add(case.id)
