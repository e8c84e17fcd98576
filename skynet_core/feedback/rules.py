"""The feedback rules: thresholds, flags, and the review of a scored run."""

from __future__ import annotations

import difflib
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from functools import cached_property
from typing import ClassVar

from skynet_core.cases import Case
from skynet_core.i18n import N_, _, ngettext
from skynet_core.results import CaseResult

from .text import (
    _EPS,
    _GENERIC_FILLER,
    _MIN_ECHO_WORDS,
    GENERIC_PHRASES,
    Pair,
    _content,
    _fmt,
    _leaves,
    _mentions_name,
    _output_stems,
    _polarity,
    _say_what,
    _show,
    _value_stems,
    _words,
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


def _judge_short(run: _Run, min_words: float) -> list[Flag]:
    """Empty feedback on any case; fewer than ``min_words`` words on a case below the top score.

    A top-scored case may say just "Correct.": the engines learn most from what went wrong.
    """
    flags = []
    for item in run.items:
        count = len(item.words)
        if not item.feedback.strip():
            detail = _("The feedback is empty.")
            suggestion = (
                _("Say in a few words what this output got right, so the engine keeps it.")
                if run.is_top(item.score)
                else _say_what(item.case)
            )
        elif count < min_words and not run.is_top(item.score):
            detail = ngettext(
                "The feedback has {count} word: {text}.", "The feedback has {count} words: {text}.", count
            ).format(count=count, text=_show(item.feedback.strip()))
            suggestion = _say_what(item.case)
        else:
            continue
        flags.append(Flag(item.case.id, "short", detail, suggestion))
    return flags


_GENERIC_SEQUENCES = sorted((tuple(_words(phrase)) for phrase in GENERIC_PHRASES), key=len, reverse=True)


def _generic_parts(words: Sequence[str]) -> tuple[list[str], int]:
    """The stock phrases found in ``words`` and how many other, non-filler words there are."""
    phrases: list[str] = []
    extra = 0
    i = 0
    while i < len(words):
        match = next((seq for seq in _GENERIC_SEQUENCES if tuple(words[i : i + len(seq)]) == seq), None)
        if match:
            phrases.append(" ".join(match))
            i += len(match)
            continue
        if words[i] not in _GENERIC_FILLER:
            extra += 1
        i += 1
    return phrases, extra


def _judge_generic(run: _Run, extra_words: float) -> list[Flag]:
    """Feedback made of stock phrases ("Wrong.", "Bad format.", "Try again") with at most
    ``extra_words`` other words besides filler; case- and punctuation-insensitive."""
    flags = []
    for item in run.items:
        phrases, extra = _generic_parts(item.words)
        if not phrases or extra > extra_words:
            continue
        flags.append(
            Flag(
                item.case.id,
                "generic",
                _("The feedback {text} is a stock phrase that names no specifics.").format(
                    text=_show(item.feedback.strip())
                ),
                _("Replace it with the specifics. {advice}").format(advice=_say_what(item.case)),
            )
        )
    return flags


def _judge_same_text(run: _Run, gap: float) -> list[Flag]:
    """The same feedback text (ignoring case and punctuation) on cases whose scores differ by more than ``gap``."""
    groups: dict[tuple[str, ...], list[_Item]] = defaultdict(list)
    for item in run.items:
        if item.words:
            groups[item.words].append(item)
    flags = []
    for group in groups.values():
        scores = [item.score for item in group]
        if len(group) < 2 or max(scores) - min(scores) <= gap + _EPS:
            continue
        for item in group:
            others = [other for other in group if abs(other.score - item.score) > gap + _EPS]
            if not others:
                continue
            sample = ", ".join(f"{other.case.id} ({_fmt(other.score)})" for other in others[:3])
            if len(others) > 3:
                sample = _("{cases} and {count} more").format(cases=sample, count=len(others) - 3)
            advice = _("Name what this output got right.") if run.is_top(item.score) else _say_what(item.case)
            flags.append(
                Flag(
                    item.case.id,
                    "same_text",
                    _("The same feedback is on {count} cases scored {low} to {high}; this one scored {score}.").format(
                        count=len(group), low=_fmt(min(scores)), high=_fmt(max(scores)), score=_fmt(item.score)
                    ),
                    _("Say what sets this case apart from {cases}. {advice}").format(cases=sample, advice=advice),
                )
            )
    return flags


def _judge_no_specifics(run: _Run, fraction: float) -> list[Flag]:
    """A low score (below ``fraction`` of the range) whose feedback shares no word with the
    expected values or the output (see ``_output_stems`` for what counts as the output's)."""
    flags = []
    for item in run.items:
        if not item.words or not run.is_low(item.score, fraction):
            continue
        if item.stems & (item.expected_stems | item.output_stems):
            continue
        flags.append(
            Flag(
                item.case.id,
                "no_specifics",
                _(
                    "The case scored {score}, but the feedback names nothing from the expected value or the output."
                ).format(score=_fmt(item.score)),
                _say_what(item.case),
            )
        )
    return flags


def _judge_contradiction(run: _Run, margin: float) -> list[Flag]:
    """A top score with only negative verdicts ("wrong", "incorrect", "missing", "fail"),
    or a lowest score with only positive ones ("correct", "perfect", "exactly right").

    Feedback with both kinds ("Correct label, but the date is missing.") is mixed, not a contradiction.
    """
    flags = []
    for item in run.items:
        positive, negative = _polarity(item.feedback)
        if run.is_top(item.score, margin) and negative and not positive:
            words = ", ".join(repr(word) for word in dict.fromkeys(negative))
            flags.append(
                Flag(
                    item.case.id,
                    "contradiction",
                    _("The case got the top score ({score}), but the feedback says {words}.").format(
                        score=_fmt(item.score), words=words
                    ),
                    _("If the output has that fault, lower the score; if not, say what this output got right."),
                )
            )
        elif run.is_lowest(item.score, margin) and positive and not negative:
            words = ", ".join(repr(word) for word in dict.fromkeys(positive))
            flags.append(
                Flag(
                    item.case.id,
                    "contradiction",
                    _("The case got the lowest score ({score}), but the feedback says {words}.").format(
                        score=_fmt(item.score), words=words
                    ),
                    _("If the output is right, fix the score; if not, say what was wrong. {advice}").format(
                        advice=_say_what(item.case)
                    ),
                )
            )
    return flags


def _judge_named_score(run: _Run, fraction: float) -> list[Flag]:
    """Named scores below ``fraction`` of their range whose name (a part of it, or a synonym
    from ``NAMED_SCORE_SYNONYMS``) the non-empty feedback never mentions; one flag per case."""
    flags = []
    for item in run.items:
        if not item.words:
            continue
        unexplained = []
        for name, value in item.result.scores.items():
            low, high = run.named_ranges[name]
            if value < low + fraction * (high - low) - _EPS and not _mentions_name(name, item.stems):
                unexplained.append((name, value))
        if not unexplained:
            continue
        listed = ", ".join(f"{name!r} = {_fmt(value)}" for name, value in unexplained)
        names = ", ".join(name for name, _value in unexplained)
        flags.append(
            Flag(
                item.case.id,
                "named_score",
                ngettext(
                    "The named score {scores} is low, but the feedback never mentions it.",
                    "The named scores {scores} are low, but the feedback never mentions them.",
                    len(unexplained),
                ).format(scores=listed),
                _("Add a sentence on {names}: what in the output lowered it.").format(names=names),
            )
        )
    return flags


def _judge_too_long(run: _Run, max_chars: float) -> list[Flag]:
    """Feedback longer than ``max_chars`` characters (surrounding blanks not counted)."""
    flags = []
    for item in run.items:
        length = len(item.feedback.strip())
        if length <= max_chars:
            continue
        flags.append(
            Flag(
                item.case.id,
                "too_long",
                _("The feedback is {length} characters long; the limit is {limit}.").format(
                    length=f"{length:,}", limit=f"{int(max_chars):,}"
                ),
                _(
                    "Cut it to the sentences that say what was wrong and what the right output looks like; "
                    "the engine reads every case's feedback."
                ),
            )
        )
    return flags


def _judge_echoes_input(run: _Run, overlap: float) -> list[Flag]:
    """Feedback of at least three content words of which at least ``overlap`` come from the
    input's values and not from the expected values or the output."""
    flags = []
    for item in run.items:
        if len(item.stems) < _MIN_ECHO_WORDS:
            continue
        echoed = (item.stems & item.input_stems) - (item.expected_stems | item.output_stems)
        if len(echoed) < overlap * len(item.stems) - _EPS:
            continue
        flags.append(
            Flag(
                item.case.id,
                "echoes_input",
                _(
                    "{echoed} of the feedback's {count} words come from the input and it says nothing about the output."
                ).format(echoed=len(echoed), count=len(item.stems)),
                _("Say how the output differs from what was wanted, not what the input was. {advice}").format(
                    advice=_say_what(item.case)
                ),
            )
        )
    return flags


MIN_QUOTED_WORDS = 12
"""The fewest words of an expected value that feedback must quote to give the answer away: class labels and
other short values are never flagged ("Expected 'billing', got 'other'." is good feedback)."""
_QUOTE_RUN = 3  # words in a row: shorter runs in common are shared words, not a quote


def _quoted(answer: Sequence[str], feedback: Sequence[str]) -> int:
    """How many of ``answer``'s words ``feedback`` repeats in order, in runs of at least three words."""
    blocks = difflib.SequenceMatcher(None, answer, feedback, autojunk=False).get_matching_blocks()
    return sum(block.size for block in blocks if block.size >= _QUOTE_RUN)


def _judge_gives_answer(run: _Run, share: float) -> list[Flag]:
    """Feedback that quotes at least ``share`` of a long expected value, and at least ``MIN_QUOTED_WORDS`` of its
    words: the reflection would learn to copy training answers into the instruction (an overfitting path)."""
    flags = []
    for item in run.items:
        for leaf in _leaves(item.case.expected):
            answer = _words(leaf)
            quoted = _quoted(answer, item.words)
            if quoted < MIN_QUOTED_WORDS or quoted < share * len(answer) - _EPS:
                continue
            flags.append(
                Flag(
                    item.case.id,
                    "gives_answer",
                    _("The feedback quotes {quoted} of the expected answer's {count} words.").format(
                        quoted=quoted, count=len(answer)
                    ),
                    _(
                        "Say what the output missed or got wrong, in your own words, without pasting the expected "
                        "answer: the engine would copy training answers into the instruction."
                    ),
                )
            )
            break
    return flags


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
