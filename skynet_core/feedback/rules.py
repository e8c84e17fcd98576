"""The feedback rules: thresholds, flags, and the review of a scored run."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import ClassVar

from skynet_core.i18n import N_, _

from .judges import (
    MIN_QUOTED_WORDS as MIN_QUOTED_WORDS,
)
from .judges import (
    _judge_contradiction,
    _judge_echoes_input,
    _judge_generic,
    _judge_gives_answer,
    _judge_named_score,
    _judge_no_specifics,
    _judge_same_text,
    _judge_short,
    _judge_too_long,
)
from .scored_run import Flag as Flag
from .scored_run import _Run
from .scored_run import _score as _score
from .scored_run import _score_range as _score_range
from .text import (
    Pair,
)


@dataclass(frozen=True)
class Thresholds:
    """The numbers the feedback rules compare against. The page lets people change each.

    - ``min_words``: feedback with fewer words is short (judged below the top score;
      empty feedback is flagged on every case).
    - ``generic_extra_words``: how many words besides stock phrases and filler still count
      as generic (0: the feedback is only such phrases).
    - ``same_text_score_gap``: the same feedback on cases whose scores differ by more than
      this is flagged.
    - ``low_score``: a score below this fraction of the run's score range is low.
    - ``contradiction_margin``: scores within this fraction of the range from its top
      (or its lowest end) count as the top (or lowest) score.
    - ``low_named_score``: a named score below this fraction of its range is low.
    - ``max_chars``: feedback longer than this many characters is far longer than needed.
    - ``input_overlap``: feedback with at least this fraction of its words taken from the
      input (and not from the expected value or the output) only repeats the input.
    - ``answer_quote``: feedback that quotes at least this fraction of a long expected value
      (and at least ``MIN_QUOTED_WORDS`` of its words) gives the answer away.

    Fractions (the fields named in ``FRACTIONS``) lie in [0, 1], the others are 0 or
    more; anything else raises ``ValueError``.
    """

    min_words: int = 3
    generic_extra_words: int = 0
    same_text_score_gap: float = 0.0
    low_score: float = 0.5
    contradiction_margin: float = 0.0
    low_named_score: float = 0.5
    max_chars: int = 1500
    input_overlap: float = 0.8
    answer_quote: float = 0.8

    FRACTIONS: ClassVar[frozenset[str]] = frozenset(
        {"low_score", "contradiction_margin", "low_named_score", "input_overlap", "answer_quote"}
    )

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(
                    _("Threshold {name} must be a number, not {value!r}.").format(name=item.name, value=value)
                )
            if item.name in self.FRACTIONS and not 0.0 <= value <= 1.0:
                raise ValueError(
                    _("Threshold {name} is a fraction between 0 and 1; {value!r} is outside it.").format(
                        name=item.name, value=value
                    )
                )
            if value < 0:
                raise ValueError(
                    _("Threshold {name} cannot be negative; {value!r} was given.").format(name=item.name, value=value)
                )


@dataclass(frozen=True)
class Rule:
    """One feedback rule.

    ``name`` is the machine id used in flags and exports, ``title`` and ``explanation``
    (one line) are what people read, ``threshold`` is the number in force (set by the
    :class:`Thresholds` field ``setting``) and ``unit`` says what it counts.
    :meth:`check` returns at most one flag per ``ok`` case.
    """

    name: str
    title: str
    explanation: str
    setting: str
    unit: str
    threshold: float
    _judge: Callable[[_Run, float], list[Flag]] = field(repr=False, compare=False)

    @property
    def threshold_text(self) -> str:
        """The threshold for people, e.g. "3 words (fewer is flagged)" or "0.5 of the score range (lower is low)"."""
        return f"{self.threshold:g} {self.unit}"

    def check(self, pairs: Sequence[Pair]) -> list[Flag]:
        """The flags this rule raises on a scored run; results that are not ``ok`` are skipped."""
        return self._judge(_Run.build(pairs), self.threshold)


# name, title, explanation, Thresholds field, unit, judge; the order is the order people see.
_RULES: tuple[tuple[str, str, str, str, str, Callable[[_Run, float], list[Flag]]], ...] = (
    ("short", N_("Empty or very short"),
     N_("Empty feedback, or a few words on a case below the top score, cannot say what to fix."),
     "min_words", N_("words (fewer is flagged)"), _judge_short),
    ("generic", N_("Generic phrase only"),
     N_("A stock phrase such as 'Wrong.' or 'Bad format.' names no specifics."),
     "generic_extra_words", N_("other words allowed beside stock phrases"), _judge_generic),
    ("same_text", N_("Same feedback, different scores"),
     N_("One text on cases with different scores hides what made them differ."),
     "same_text_score_gap", N_("score difference allowed"), _judge_same_text),
    ("no_specifics", N_("Low score without specifics"),
     N_("A low score whose feedback names nothing from the expected value or the output leaves the engine guessing."),
     "low_score", N_("of the score range (lower is low)"), _judge_no_specifics),
    ("contradiction", N_("Score and feedback disagree"),
     N_("A top score with 'wrong' or 'missing', or a lowest score with 'correct', sends opposite signals."),
     "contradiction_margin", N_("of the score range counted as top or lowest"), _judge_contradiction),
    ("named_score", N_("Low named score not explained"),
     N_("A low named score that the feedback never mentions leaves that check unexplained."),
     "low_named_score", N_("of the named score's range (lower is low)"), _judge_named_score),
    ("too_long", N_("Far longer than needed"),
     N_("Very long feedback buries the fix and costs the engine context on every case."),
     "max_chars", N_("characters (more is flagged)"), _judge_too_long),
    ("echoes_input", N_("Only repeats the input"),
     N_("Feedback that restates the input says nothing about the output."),
     "input_overlap", N_("of the feedback's words from the input"), _judge_echoes_input),
    ("gives_answer", N_("Gives the answer away"),
     N_("Feedback that quotes most of a long expected answer (12 words or more) teaches the engine to copy "
        "training answers into the instruction."),
     "answer_quote", N_("of a long expected answer quoted"), _judge_gives_answer),
)  # fmt: skip


def rules(thresholds: Thresholds | None = None) -> tuple[Rule, ...]:
    """The feedback rules in display order, each carrying its threshold from ``thresholds`` (defaults when ``None``).

    Titles, explanations and units are in the current language (:mod:`skynet_core.i18n`); ``name`` is the
    stable machine id.
    """
    thresholds = thresholds or Thresholds()
    return tuple(
        Rule(name, _(title), _(explanation), setting, _(unit), getattr(thresholds, setting), judge)
        for name, title, explanation, setting, unit, judge in _RULES
    )


@dataclass(frozen=True)
class Review:
    """The rules' verdict on a run.

    ``case_ids`` are the judged (``ok``) cases in run order, ``skipped`` the others.
    ``flags`` are ordered by case, then by rule. ``counts`` has every rule's name, with
    the number of cases it flagged (0 included); ``by_case`` and ``rules_broken`` have
    every judged case, with an empty list when it broke no rule.
    """

    rules: tuple[Rule, ...]
    thresholds: Thresholds
    case_ids: tuple[str, ...]
    skipped: tuple[str, ...]
    flags: tuple[Flag, ...]

    @cached_property
    def counts(self) -> dict[str, int]:
        tally = Counter(flag.rule for flag in self.flags)
        return {rule.name: tally[rule.name] for rule in self.rules}

    @cached_property
    def by_case(self) -> dict[str, list[Flag]]:
        grouped: dict[str, list[Flag]] = {case_id: [] for case_id in self.case_ids}
        for flag in self.flags:
            grouped[flag.case_id].append(flag)
        return grouped

    @cached_property
    def rules_broken(self) -> dict[str, list[str]]:
        return {case_id: [flag.rule for flag in flags] for case_id, flags in self.by_case.items()}

    @property
    def flagged_ids(self) -> list[str]:
        """The judged cases that broke at least one rule, in run order."""
        return [case_id for case_id, flags in self.by_case.items() if flags]


def review(pairs: Sequence[Pair], thresholds: Thresholds | None = None) -> Review:
    """Apply every rule to the ``ok`` cases of a scored run (default thresholds when ``None``)."""
    thresholds = thresholds or Thresholds()
    run = _Run.build(pairs)
    active = rules(thresholds)
    position = {item.case.id: index for index, item in enumerate(run.items)}
    rank = {rule.name: index for index, rule in enumerate(active)}
    found = [flag for rule in active for flag in rule._judge(run, rule.threshold)]
    found.sort(key=lambda flag: (position[flag.case_id], rank[flag.rule]))
    return Review(
        rules=active,
        thresholds=thresholds,
        case_ids=tuple(item.case.id for item in run.items),
        skipped=tuple(case.id for case, result in pairs if not (result.ok and result.score is not None)),
        flags=tuple(found),
    )
