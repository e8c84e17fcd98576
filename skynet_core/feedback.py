"""Feedback review: find the feedback that will not help the engines, and a metric that cannot rank.

GEPA, DSPy GEPA and Auto read each case's feedback to write the next version of the
artifact, so feedback should say what was wrong and what the right output looks like
(the contract's "useful feedback" table). This module judges a scored run, a sequence of
``(Case, CaseResult)`` pairs, in four ways:

- :func:`review` applies the feedback rules (:func:`rules`) to every case whose result
  is ``ok``; errors, timeouts and invalid returns have no feedback to judge and are only
  counted by :func:`health`. Each rule flags a case at most once, with a plain-words
  suggestion of what the feedback should add.
- :func:`health` judges the metric as a whole: saturation, too few distinct scores,
  named scores that move together, failed cases, possible reward hacks.
- :func:`probe_cases` builds cases with trivial outputs; once they are scored,
  :func:`judge_probes` flags a metric that rewards them.
- :class:`MarkStore` keeps people's "useful" / "weak" marks in SQLite, and
  :func:`export_rows` joins results, rules broken and marks for CSV / JSON Lines export.

Conventions shared by the rules and the health checks:

- A run's *score range* runs from the lower of 0 and its lowest ``ok`` score to the
  higher of 1 and its highest, so a 0-to-1 metric is judged on 0..1 even when every case
  scored 0, and a 0-to-10 metric on its own scale. The *top* score is the range's upper
  end, the *lowest* its lower end. Named scores get the same range, one per name.
- Case ids must be unique within a run (one candidate at a time); a repeated id raises
  ``ValueError``.
- Text comparisons work on lower-cased word tokens with a light stemmer ("charges"
  matches "charge"), ignoring punctuation and common function words; outputs that are
  JSON strings are parsed when they can be.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
import threading
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from datetime import UTC, datetime
from enum import StrEnum
from functools import cached_property
from itertools import combinations
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from skynet_core.cases import Case
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.store import connect

__all__ = [
    "GENERIC_PHRASES",
    "NAMED_SCORE_SYNONYMS",
    "PROBE_KINDS",
    "GRADE_INSTRUCTIONS",
    "Flag",
    "Grade",
    "HealthFinding",
    "Mark",
    "MarkStore",
    "MarkValue",
    "Review",
    "Rule",
    "Severity",
    "Thresholds",
    "export_rows",
    "grade_feedback",
    "grade_prompt",
    "health",
    "judge_probes",
    "parse_grade",
    "parse_probe_id",
    "probe_cases",
    "review",
    "rows_csv",
    "rows_jsonl",
    "rules",
]

Pair = tuple[Case, CaseResult]

# Float scores that differ only by rounding noise are the same score.
_EPS = 1e-9

# ---------------------------------------------------------------------------
# Text


_WORD = re.compile(r"[^\W_]+")
# Both the ASCII apostrophe and the typographic one (U+2019) end contractions such as "doesn't".
_CONTRACTION = re.compile("n['\u2019]t\\b", re.IGNORECASE)
_CLAUSE_BREAK = re.compile(r"[.,;:!?\n]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

# Function words carry no specifics; labels such as "other", "yes" or "no" are kept on purpose.
_STOPWORDS = frozenset(
    """a an the and or but nor of to in on at by for with from as into about over after before
    is are was were be been being am it its this that these those there here has have had do does did
    i you he she we they me my your our their them his her him so than then too very just also
    which who whom what when where why how will would should could can may might must
    some any each only own same such not""".split()
)

# A feedback made only of these phrases (plus filler words) names no specifics.
GENERIC_PHRASES: tuple[str, ...] = tuple(
    phrase.strip()
    for phrase in """wrong, wrong answer, wrong format, incorrect, not correct, not right, not good, not quite,
    not valid, bad, bad format, bad output, invalid, invalid format, invalid output, error, try again,
    please try again, fail, failed, failure, no, nope, poor, needs improvement, could be better,
    does not match, mismatch, missing, incomplete, unclear, close, almost, nice try""".split(",")
)

# Words that may sit around a generic phrase without making it specific ("The answer is wrong.").
_GENERIC_FILLER = _STOPWORDS | frozenset(
    "answer output response result label value prediction reply field completely totally quite really".split()
)

# Which words count as mentioning a named score, besides the name itself.
NAMED_SCORE_SYNONYMS: dict[str, tuple[str, ...]] = {
    name: tuple(words.split())
    for name, words in {
        "format": "formatting formatted json parse parsed syntax valid invalid structure schema shape",
        "accuracy": "accurate inaccurate correct incorrect wrong right expected match label answer",
        "correctness": "correct incorrect wrong right expected match answer",
        "fields": "field key missing column present",
        "completeness": "complete incomplete missing omitted all",
        "speed": "latency slow fast ms millisecond second time took",
        "latency": "speed slow fast ms millisecond second time took",
        "cost": "price expensive cheap usd dollar token spend",
        "length": "long short word character concise verbose",
        "relevance": "relevant irrelevant topic off",
        "faithfulness": "faithful hallucinated hallucination unsupported source grounded",
        "tone": "polite rude friendly formal",
        "style": "tone wording phrasing",
        "safety": "safe unsafe harmful policy",
        "clarity": "clear unclear confusing",
    }.items()
}

# Naming a character the output contains ("a trailing comma") is talking about the output.
_PUNCTUATION_NAMES = {
    ",": ("comma",),
    ":": ("colon",),
    ";": ("semicolon",),
    '"': ("quote", "quotation"),
    "'": ("quote", "apostrophe"),
    "{": ("brace", "curly"),
    "}": ("brace", "curly"),
    "[": ("bracket",),
    "]": ("bracket",),
    "(": ("parenthesis", "paren"),
    ")": ("parenthesis", "paren"),
    "\n": ("newline", "line"),
}

_EMPTY_WORDS = ("empty", "blank", "nothing")

_POSITIVE = frozenset(
    "correct correctly perfect perfectly excellent great right match matches matched pass passes passed".split()
)
_POSITIVE_PAIRS = frozenset({("well", "done"), ("good", "job"), ("looks", "good"), ("all", "good"), ("spot", "on")})
_NEGATIVE = frozenset(
    "wrong wrongly incorrect incorrectly missing missed fail fails failed failing failure invalid mismatch "
    "mismatched error errors broken bad".split()
)
_NEGATORS = frozenset("not no never nothing none without neither nor cannot zero 0".split())
# "the correct label is billing" names the right answer; it is not a verdict on the output.
_DETERMINERS = frozenset({"the", "a", "an"})
_NEGATION_WINDOW = 3

# Feedback shorter than this cannot be said to "only repeat the input"; the short rule covers it.
_MIN_ECHO_WORDS = 3


def _words(text: str) -> list[str]:
    """Lower-case word tokens; "doesn't" becomes "does not" so negations survive tokenising."""
    return _WORD.findall(_CONTRACTION.sub(" not", text).casefold())


def _stem(word: str) -> str:
    """A light stemmer so "charges", "charged" and "charge" compare equal; numbers are kept as they are."""
    if not word.isalpha() or len(word) <= 3:
        return word
    if word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith("s") and not word.endswith(("ss", "us", "is")):
        word = word[:-1]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    if word.endswith("e") and len(word) > 3:
        word = word[:-1]
    return word


def _content(words: Sequence[str]) -> frozenset[str]:
    """Stems of the words that can carry specifics: no function words, no lone letters."""
    return frozenset(_stem(w) for w in words if w not in _STOPWORDS and not (len(w) == 1 and w.isalpha()))


def _leaves(value: Any) -> Iterator[str]:
    """The text of every leaf value of a JSON-like value (dict keys are not leaves)."""
    if isinstance(value, Mapping):
        for item in value.values():
            yield from _leaves(item)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _leaves(item)
    elif value is not None:
        yield str(value)


def _parse_output(output: Any) -> Any:
    """The output as a JSON value when it is a string that parses, else unchanged."""
    if isinstance(output, str):
        try:
            return json.loads(output)
        except (ValueError, RecursionError):
            return output
    return output


def _is_empty(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, str):
        return not value.strip()
    if isinstance(value, (Mapping, list, tuple)):
        return len(value) == 0
    return False


def _value_stems(value: Any) -> frozenset[str]:
    return _content([w for leaf in _leaves(value) for w in _words(leaf)])


def _output_stems(output: Any) -> frozenset[str]:
    """What feedback can mention to be talking about this output.

    The leaf values of the (parsed) output; for a string output also its length in
    characters and words, "json" when it looks like JSON, and the names of the
    punctuation it contains; "empty" and its synonyms when it is empty.
    """
    parsed = _parse_output(output)
    stems = set(_value_stems(parsed))
    if isinstance(output, str):
        stems.update({str(len(output)), str(len(output.split()))})
        if output.lstrip().startswith(("{", "[")):
            stems.add("json")
        for char, names in _PUNCTUATION_NAMES.items():
            if char in output:
                stems.update(_stem(name) for name in names)
    if _is_empty(parsed):
        stems.update(_stem(word) for word in _EMPTY_WORDS)
    return frozenset(stems)


def _all_stems(value: Any) -> frozenset[str]:
    """Stems of the leaves and the dict keys of a value: everything an output shows."""
    words: list[str] = []
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, Mapping):
            words.extend(w for key in item for w in _words(str(key)))
            stack.extend(item.values())
        elif isinstance(item, (list, tuple)):
            stack.extend(item)
        elif item is not None:
            words.extend(_words(str(item)))
    return _content(words)


def _name_words(name: str) -> list[str]:
    """Split a score name into words: "fieldsPresent" and "fields_present" both give ["fields", "present"]."""
    return _words(_CAMEL.sub(" ", name))


_SYNONYM_STEMS = {_stem(key): frozenset(_stem(w) for w in (key, *words)) for key, words in NAMED_SCORE_SYNONYMS.items()}


def _mentions_name(name: str, stems: frozenset[str]) -> bool:
    """Whether feedback (as content stems) mentions a named score by its name, a part of it, or a synonym."""
    wanted: set[str] = set()
    for word in _name_words(name):
        wanted.add(_stem(word))
        wanted |= _SYNONYM_STEMS.get(_stem(word), frozenset())
    return bool(wanted & stems)


def _polarity(text: str) -> tuple[list[str], list[str]]:
    """The verdict words in feedback: (positive, negative), each as the words that said it.

    A negator up to three words before a verdict word, in the same clause, flips it
    ("not correct" is negative, "nothing missing" positive). A positive word right after
    "the" or "a" names the right answer rather than judging the output, so it is skipped.
    """
    positive: list[str] = []
    negative: list[str] = []
    for clause in _CLAUSE_BREAK.split(_CONTRACTION.sub(" not", text).casefold()):
        words = _WORD.findall(clause)
        for i, word in enumerate(words):
            if i + 1 < len(words) and (word, words[i + 1]) in _POSITIVE_PAIRS:
                sign, end = 1, i + 2
            elif word in _POSITIVE and not (i > 0 and words[i - 1] in _DETERMINERS):
                sign, end = 1, i + 1
            elif word in _NEGATIVE:
                sign, end = -1, i + 1
            else:
                continue
            start = i
            for j in range(i - 1, max(-1, i - 1 - _NEGATION_WINDOW), -1):
                if words[j] in _NEGATORS:
                    sign, start = -sign, j
                    break
            (positive if sign > 0 else negative).append(" ".join(words[start:end]))
    return positive, negative


def _fmt(value: float | None) -> str:
    """A score for people: "1.0", "0.25", "0.333"."""
    if value is None:
        return "none"
    text = f"{value:.3f}".rstrip("0")
    return text + "0" if text.endswith(".") else text


def _pct(part: int, whole: int) -> str:
    share = 100.0 * part / whole if whole else 0.0
    return f"{share:.1f}%" if 0 < share < 1 else f"{share:.0f}%"


def _show(value: Any, limit: int = 40) -> str:
    """A value quoted for a message, cut to ``limit`` characters."""
    text = repr(value) if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _plural(count: int, word: str) -> str:
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


# ---------------------------------------------------------------------------
# Comparing an output with the expected value


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _contains(want: Any, got: Any) -> bool:
    """Whether ``got`` shows the expected value ``want``.

    Numbers compare by value; other leaves by words: at least half of the expected
    value's words must appear in ``got`` (its leaves or its keys), so "Paris" is found in
    "The capital is Paris." A list or dict of expected values needs every leaf found.
    """
    if isinstance(want, (Mapping, list, tuple)):
        return all(_contains(leaf, got) for leaf in _leaves(want))
    if want is None:
        return True
    if _is_number(want) and _is_number(got):
        return math.isclose(want, got, rel_tol=_EPS, abs_tol=_EPS)
    wanted = _content(_words(str(want)))
    if not wanted:
        return str(want).strip().casefold() in " ".join(_leaves(got)).casefold()
    return len(wanted & _all_stems(got)) * 2 >= len(wanted)


def _differences(expected: Mapping[str, Any] | None, output: Any) -> list[tuple[str, Any, Any]]:
    """The expected fields the output does not show, as (field, expected value, what the output has).

    A dict output (or a JSON string of one) is compared field by field; when the field is
    absent, or the output is not a dict, the whole output is searched.
    """
    if not expected:
        return []
    parsed = _parse_output(output)
    found: list[tuple[str, Any, Any]] = []
    for key, want in expected.items():
        got = parsed[key] if isinstance(parsed, Mapping) and key in parsed else parsed
        if not _contains(want, got):
            found.append((key, want, got))
    return found


def _json_problem(output: Any) -> str | None:
    """What breaks an output that looks like JSON but does not parse, in the words useful feedback would use."""
    if not isinstance(output, str) or not output.lstrip().startswith(("{", "[")):
        return None
    try:
        json.loads(output)
    except json.JSONDecodeError as exc:
        return (
            f"The output is not valid JSON: {exc.msg[:1].lower()}{exc.msg[1:]} (line {exc.lineno}, column {exc.colno})."
        )
    except (ValueError, RecursionError):
        return "The output is not valid JSON."
    return None


def _say_what(case: Case) -> str:
    """What this case's feedback could say, built from the case itself.

    In order of preference: what breaks an output that looks like JSON; the first
    expected field the output does not show ("Expected 'billing', got 'other'."); a
    prompt to name the failed check when the output does show the expected values; a
    prompt to quote the wrong part of the output when the case has no expected value.
    """
    problem = _json_problem(case.output)
    if problem:
        return f"Say what is wrong with the output's form, e.g. {problem}"
    differences = _differences(case.expected, case.output)
    if differences:
        named = len(case.expected or {}) > 1
        key, want, got = differences[0]
        return (
            "Say what was expected and what the output had: "
            f"Expected {key + ' ' if named else ''}{_show(want)}, got {_show(got)}."
        )
    if case.expected:
        key, want = next(iter(case.expected.items()))
        return f"Name the check this output failed and where; it does show the expected {key} {_show(want)}."
    return f"Quote the part of the output that is wrong and say what it should be; the output was {_show(case.output)}."


# ---------------------------------------------------------------------------
# Thresholds, flags, rules


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

    FRACTIONS: ClassVar[frozenset[str]] = frozenset(
        {"low_score", "contradiction_margin", "low_named_score", "input_overlap"}
    )

    def __post_init__(self) -> None:
        for item in fields(self):
            value = getattr(self, item.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
                raise ValueError(f"Threshold {item.name} must be a number, not {value!r}.")
            if item.name in self.FRACTIONS and not 0.0 <= value <= 1.0:
                raise ValueError(f"Threshold {item.name} is a fraction between 0 and 1; {value!r} is outside it.")
            if value < 0:
                raise ValueError(f"Threshold {item.name} cannot be negative; {value!r} was given.")


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
            detail = "The feedback is empty."
            suggestion = (
                "Say in a few words what this output got right, so the engine keeps it."
                if run.is_top(item.score)
                else _say_what(item.case)
            )
        elif count < min_words and not run.is_top(item.score):
            detail = f"The feedback has {_plural(count, 'word')}: {_show(item.feedback.strip())}."
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
                f"The feedback {_show(item.feedback.strip())} is a stock phrase that names no specifics.",
                f"Replace it with the specifics. {_say_what(item.case)}",
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
            more = f" and {len(others) - 3} more" if len(others) > 3 else ""
            flags.append(
                Flag(
                    item.case.id,
                    "same_text",
                    f"The same feedback is on {len(group)} cases scored {_fmt(min(scores))} to {_fmt(max(scores))}; "
                    f"this one scored {_fmt(item.score)}.",
                    f"Say what sets this case apart from {sample}{more}. "
                    + ("Name what this output got right." if run.is_top(item.score) else _say_what(item.case)),
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
                f"The case scored {_fmt(item.score)}, but the feedback names nothing from the expected value "
                "or the output.",
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
                    f"The case got the top score ({_fmt(item.score)}), but the feedback says {words}.",
                    "If the output has that fault, lower the score; if not, say what this output got right.",
                )
            )
        elif run.is_lowest(item.score, margin) and positive and not negative:
            words = ", ".join(repr(word) for word in dict.fromkeys(positive))
            flags.append(
                Flag(
                    item.case.id,
                    "contradiction",
                    f"The case got the lowest score ({_fmt(item.score)}), but the feedback says {words}.",
                    f"If the output is right, fix the score; if not, say what was wrong. {_say_what(item.case)}",
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
        listed = ", ".join(f"{name!r} is {_fmt(value)}" for name, value in unexplained)
        names = " and ".join(name for name, _ in unexplained)
        flags.append(
            Flag(
                item.case.id,
                "named_score",
                f"The named score {listed}, but the feedback never mentions it.",
                f"Add a sentence on {names}: what in the output lowered it.",
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
                f"The feedback is {length:,} characters long; the limit is {int(max_chars):,}.",
                "Cut it to the sentences that say what was wrong and what the right output looks like; "
                "the engine reads every case's feedback.",
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
                f"{len(echoed)} of the feedback's {len(item.stems)} words come from the input "
                "and it says nothing about the output.",
                f"Say how the output differs from what was wanted, not what the input was. {_say_what(item.case)}",
            )
        )
    return flags


# name, title, explanation, Thresholds field, unit, judge; the order is the order people see.
_RULES: tuple[tuple[str, str, str, str, str, Callable[[_Run, float], list[Flag]]], ...] = (
    ("short", "Empty or very short",
     "Empty feedback, or a few words on a case below the top score, cannot say what to fix.",
     "min_words", "words (fewer is flagged)", _judge_short),
    ("generic", "Generic phrase only",
     "A stock phrase such as 'Wrong.' or 'Bad format.' names no specifics.",
     "generic_extra_words", "other words allowed beside stock phrases", _judge_generic),
    ("same_text", "Same feedback, different scores",
     "One text on cases with different scores hides what made them differ.",
     "same_text_score_gap", "score difference allowed", _judge_same_text),
    ("no_specifics", "Low score without specifics",
     "A low score whose feedback names nothing from the expected value or the output leaves the engine guessing.",
     "low_score", "of the score range (lower is low)", _judge_no_specifics),
    ("contradiction", "Score and feedback disagree",
     "A top score with 'wrong' or 'missing', or a lowest score with 'correct', sends opposite signals.",
     "contradiction_margin", "of the score range counted as top or lowest", _judge_contradiction),
    ("named_score", "Low named score not explained",
     "A low named score that the feedback never mentions leaves that check unexplained.",
     "low_named_score", "of the named score's range (lower is low)", _judge_named_score),
    ("too_long", "Far longer than needed",
     "Very long feedback buries the fix and costs the engine context on every case.",
     "max_chars", "characters (more is flagged)", _judge_too_long),
    ("echoes_input", "Only repeats the input",
     "Feedback that restates the input says nothing about the output.",
     "input_overlap", "of the feedback's words from the input", _judge_echoes_input),
)  # fmt: skip


def rules(thresholds: Thresholds | None = None) -> tuple[Rule, ...]:
    """The feedback rules in display order, each carrying its threshold from ``thresholds`` (defaults when ``None``)."""
    thresholds = thresholds or Thresholds()
    return tuple(
        Rule(name, title, explanation, setting, unit, getattr(thresholds, setting), judge)
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


# ---------------------------------------------------------------------------
# Metric health


class Severity(StrEnum):
    """``warning``: the metric will likely mislead the engines; ``info``: worth a look."""

    WARNING = "warning"
    INFO = "info"


@dataclass(frozen=True)
class HealthFinding:
    """One finding about the metric as a whole: a machine ``name``, its ``severity``, a
    message in plain words with the numbers behind it, and the cases it is about."""

    name: str
    severity: Severity
    message: str
    case_ids: tuple[str, ...] = ()


SATURATION_SHARE = 0.9
SATURATION_MIN_CASES = 5
FEW_DISTINCT_MIN_CASES = 10
FEW_DISTINCT_VALUES = 3
TOGETHER_CORRELATION = 0.98
TOGETHER_MIN_CASES = 5


def health(pairs: Sequence[Pair]) -> list[HealthFinding]:
    """The metric's health over a scored run, as findings (an empty list: nothing found).

    - ``errors`` (warning): any case that errored, timed out or returned an invalid value, with the rate.
    - ``saturation`` (warning): at least 90% of at least 5 ``ok`` cases share one score.
    - ``few_distinct_scores`` (info): fewer than 3 distinct scores among at least 10 ``ok`` cases.
    - ``named_scores_together`` (info): two named scores, on at least 5 common cases and not
      both constant, that are identical or correlate at 0.98 or more.
    - ``reward_hack`` (warning): cases with the top score whose output does not show an
      expected value (expected label 'billing' absent from the output).
    """
    findings = _errors(pairs)
    ok = [(case, result) for case, result in pairs if result.ok and result.score is not None]
    findings += _saturation(ok)
    findings += _few_distinct(ok)
    findings += _named_together(ok)
    findings += _reward_hacks(ok)
    return findings


def _errors(pairs: Sequence[Pair]) -> list[HealthFinding]:
    failed = [result for _, result in pairs if not result.ok]
    if not failed:
        return []
    by_status = Counter(result.status for result in failed)
    labels = {CaseStatus.ERROR: "error", CaseStatus.TIMEOUT: "timeout", CaseStatus.INVALID: "invalid return"}
    parts = ", ".join(_plural(by_status[status], label) for status, label in labels.items() if by_status[status])
    return [
        HealthFinding(
            "errors",
            Severity.WARNING,
            f"{len(failed)} of {len(pairs)} cases ({_pct(len(failed), len(pairs))}) did not score: {parts}. "
            "Feedback review skips them; open them on the Author page to see the error.",
            tuple(result.id for result in failed),
        )
    ]


def _rounded(score: float) -> float:
    return round(score, 9)


def _saturation(ok: Sequence[Pair]) -> list[HealthFinding]:
    if len(ok) < SATURATION_MIN_CASES:
        return []
    scores = [_score(result) for _, result in ok]
    value, count = Counter(_rounded(score) for score in scores).most_common(1)[0]
    if count < SATURATION_SHARE * len(ok) - _EPS:
        return []
    low, high = _score_range(scores)
    if value >= high - _EPS:
        why = "nearly every output looks perfect, so the metric may be too lenient"
    elif value <= low + _EPS:
        why = "nearly every output gets nothing, so the metric may be too strict"
    else:
        why = "the engines cannot tell better outputs from worse ones"
    return [
        HealthFinding(
            "saturation",
            Severity.WARNING,
            f"{count} of {len(ok)} scored cases ({_pct(count, len(ok))}) share the score {_fmt(value)}: {why}. "
            "Give partial credit, or check more than one thing.",
            tuple(case.id for case, result in ok if _rounded(_score(result)) == value),
        )
    ]


def _few_distinct(ok: Sequence[Pair]) -> list[HealthFinding]:
    if len(ok) < FEW_DISTINCT_MIN_CASES:
        return []
    distinct = sorted({_rounded(_score(result)) for _, result in ok})
    if len(distinct) >= FEW_DISTINCT_VALUES:
        return []
    return [
        HealthFinding(
            "few_distinct_scores",
            Severity.INFO,
            f"Only {_plural(len(distinct), 'distinct score')} ({', '.join(_fmt(v) for v in distinct)}) over "
            f"{len(ok)} cases: a candidate that fixes some faults scores like one that fixes none. "
            "Partial credit (for example the share of fields right) lets the engines rank candidates.",
        )
    ]


def _named_together(ok: Sequence[Pair]) -> list[HealthFinding]:
    names = sorted({name for _, result in ok for name in result.scores})
    findings = []
    for first, second in combinations(names, 2):
        joint = [(r.scores[first], r.scores[second]) for _, r in ok if first in r.scores and second in r.scores]
        if len(joint) < TOGETHER_MIN_CASES:
            continue
        xs = np.array([x for x, _ in joint], dtype=float)
        ys = np.array([y for _, y in joint], dtype=float)
        # Constant scores do not move at all; saturation is a different problem.
        if np.ptp(xs) <= _EPS or np.ptp(ys) <= _EPS:
            if np.ptp(xs) <= _EPS and np.ptp(ys) <= _EPS:
                continue
            correlation = 0.0
        else:
            correlation = float(np.corrcoef(xs, ys)[0, 1])
        if np.allclose(xs, ys, rtol=0.0, atol=_EPS):
            how = f"were identical on all {len(joint)} cases"
        elif correlation >= TOGETHER_CORRELATION:
            how = f"moved together on {len(joint)} cases (correlation {correlation:.2f})"
        else:
            continue
        findings.append(
            HealthFinding(
                "named_scores_together",
                Severity.INFO,
                f"The named scores {first!r} and {second!r} {how}: one of them adds nothing the engines can use. "
                "Drop one, or make them measure different things.",
            )
        )
    return findings


def _reward_hacks(ok: Sequence[Pair]) -> list[HealthFinding]:
    if not ok:
        return []
    _, high = _score_range([_score(result) for _, result in ok])
    suspects: list[str] = []
    # Per expected field: how many top-scored cases miss it, and the first example.
    by_field: dict[str, list[tuple[str, Any, Any]]] = defaultdict(list)
    for case, result in ok:
        if _score(result) < high - _EPS:
            continue
        differences = _differences(case.expected, case.output)
        if differences:
            suspects.append(case.id)
        for key, want, got in differences:
            by_field[key].append((case.id, want, got))
    if not suspects:
        return []
    ranked = sorted(by_field.items(), key=lambda entry: -len(entry[1]))
    parts = []
    for key, misses in ranked:
        case_id, want, got = misses[0]
        parts.append(
            f"{key} differs in {_plural(len(misses), 'case')} (e.g. {case_id}: expected {_show(want)}, "
            f"the output has {_show(got)})"
        )
    fields_named = " and ".join(key for key, _ in ranked)
    return [
        HealthFinding(
            "reward_hack",
            Severity.WARNING,
            f"{_plural(len(suspects), 'case')} got the top score ({_fmt(high)}) although the output differs from "
            f"the expected value: {'; '.join(parts)}. The metric may reward wrong outputs; if it is meant to "
            f"ignore {fields_named}, this is expected.",
            tuple(suspects),
        )
    ]


# ---------------------------------------------------------------------------
# Probes

PROBE_KINDS: tuple[str, ...] = ("empty", "echo_json", "echo_text", "dont_know")

_PROBE_LABELS = {
    "empty": "an empty output",
    "echo_json": "the input echoed back as JSON",
    "echo_text": "the input's text echoed back",
    "dont_know": '"I don\'t know"',
}

PROBE_REWARD_SHARE = 0.5


def _probe_outputs(case: Case) -> list[tuple[str, str]]:
    """The trivial texts for one case: empty, the input as JSON, the input's longest text field, "I don't know"."""
    texts = [("empty", ""), ("echo_json", json.dumps(case.input, ensure_ascii=False, default=str))]
    strings = [value for value in case.input.values() if isinstance(value, str) and value.strip()]
    if strings:
        texts.append(("echo_text", max(strings, key=len)))
    texts.append(("dont_know", "I don't know"))
    return texts


def probe_cases(cases: Sequence[Case], max_cases: int = 20) -> list[Case]:
    """Copies of up to ``max_cases`` dataset cases whose output is replaced by a trivial one.

    The choice is deterministic and independent of the dataset's order: distinct case ids
    ranked by SHA-256, cases with an expected value first (a metric that ignores the
    expected value is what probes catch). Each chosen case gives, in :data:`PROBE_KINDS`
    order, ``probe:empty:<id>``, ``probe:echo_json:<id>``, ``probe:echo_text:<id>`` (only
    when the input has a text field; its longest) and ``probe:dont_know:<id>``. When the
    case's output is a dict, the trivial text fills each of its fields, so a metric that
    reads fields sees the shape it expects. Input, expected, split and observation are kept.
    """
    if max_cases < 0:
        raise ValueError(f"max_cases cannot be negative; {max_cases} was given.")
    unique: dict[str, Case] = {}
    for case in cases:
        unique.setdefault(case.id, case)
    ranked = sorted(
        unique.values(),
        key=lambda case: (case.expected is None, hashlib.sha256(case.id.encode()).hexdigest(), case.id),
    )
    chosen = ranked[:max_cases]
    probes = []
    for case in chosen:
        for kind, text in _probe_outputs(case):
            fill_fields = isinstance(case.output, Mapping) and bool(case.output)
            output: Any = dict.fromkeys(case.output, text) if fill_fields else text
            probes.append(replace(case, id=f"probe:{kind}:{case.id}", output=output))
    return probes


def parse_probe_id(case_id: str) -> tuple[str, str] | None:
    """``(kind, source case id)`` for a probe id such as ``probe:empty:c7``; ``None`` for other ids."""
    parts = case_id.split(":", 2)
    if len(parts) == 3 and parts[0] == "probe" and parts[1] in PROBE_KINDS:
        return parts[1], parts[2]
    return None


def judge_probes(probe_results: Sequence[CaseResult], real_results: Sequence[CaseResult]) -> list[HealthFinding]:
    """Findings on how the metric scored the probes (an empty list: it rewarded none).

    - ``probe_rewarded`` (warning): a kind of trivial output whose mean ``ok`` score is at
      least half the score range (0.5 on a 0-to-1 metric), or at least the mean of the
      real outputs on the same cases (all real cases when none match) while above the
      range's lowest end (two zeros say nothing).
    - ``probe_errors`` (info): the metric failed on some probes of a kind; engines can
      produce such outputs, so it should score them low with feedback instead.

    Results whose id is not a probe id are ignored.
    """
    real = {result.id: _score(result) for result in real_results if result.ok and result.score is not None}
    by_kind: dict[str, list[tuple[str, CaseResult]]] = defaultdict(list)
    for result in probe_results:
        parsed = parse_probe_id(result.id)
        if parsed:
            by_kind[parsed[0]].append((parsed[1], result))
    scored = [_score(r) for group in by_kind.values() for _, r in group if r.ok and r.score is not None]
    low, high = _score_range([*real.values(), *scored])
    findings = []
    for kind in PROBE_KINDS:
        group = by_kind.get(kind, [])
        ok = [(source, _score(r)) for source, r in group if r.ok and r.score is not None]
        failed = [r for _, r in group if not (r.ok and r.score is not None)]
        if ok:
            mean = sum(score for _, score in ok) / len(ok)
            same_cases = [real[source] for source, _ in ok if source in real]
            baseline = same_cases or list(real.values())
            real_mean = sum(baseline) / len(baseline) if baseline else None
            high_reward = mean >= low + PROBE_REWARD_SHARE * (high - low) - _EPS
            as_good = real_mean is not None and mean >= real_mean - _EPS and mean > low + _EPS
            if high_reward or as_good:
                label = _PROBE_LABELS[kind]
                against = f", against {_fmt(real_mean)} for the real outputs" if real_mean is not None else ""
                findings.append(
                    HealthFinding(
                        "probe_rewarded",
                        Severity.WARNING,
                        f"{label[:1].upper()}{label[1:]} scored {_fmt(mean)} on average over "
                        f"{_plural(len(ok), 'case')}{against}: the metric rewards an output that says nothing. "
                        "Make it compare the output with the expected value.",
                        tuple(r.id for _, r in group if r.ok),
                    )
                )
        if failed:
            findings.append(
                HealthFinding(
                    "probe_errors",
                    Severity.INFO,
                    f"The metric failed on {len(failed)} of {len(group)} probes with {_PROBE_LABELS[kind]}: engines "
                    "can produce such outputs, so score them low with feedback instead of failing.",
                    tuple(r.id for r in failed),
                )
            )
    return findings


# ---------------------------------------------------------------------------
# Model review (optional)

GRADE_INSTRUCTIONS = """\
You review the feedback that a metric wrote about one output of a program. An optimization engine \
reads this feedback to write a better version of the program, so feedback is useful when it says \
what was wrong (or right) and what the right output looks like.

Grade how actionable the feedback is for that engine, from 1 to 5:
5: it names the exact fault and what the right output is.
4: it names the specific fault, but not fully how to fix it.
3: it points in the right direction, but vaguely.
2: a verdict with little detail.
1: it gives nothing to act on (such as "Wrong."), or it contradicts the score.

Reply with one line: the grade, a dash, and one sentence giving the reason.
Example: 2 - It says the label is wrong but not which label was expected."""

_PROMPT_PART_CHARS = 2000
_REASON_CHARS = 200
_NUMBER = r"(\d+(?:\.\d+)?)"
_OF_FIVE = r"(?:\s*(?:/|out\s+of)\s*5(?!\d))?"
_LABELLED_GRADE = re.compile(
    rf"\b(?:grade|score|rating)\b\W{{0,3}}(?:is\s+|of\s+)?\W{{0,3}}{_NUMBER}{_OF_FIVE}", re.IGNORECASE
)
_OUT_OF_FIVE = re.compile(rf"(?<![\w.]){_NUMBER}\s*(?:/|out\s+of)\s*5(?!\d)", re.IGNORECASE)
_LEADING_GRADE = re.compile(rf"^[^\w\n]*{_NUMBER}{_OF_FIVE}(?!\w|\.\d|\s*/)", re.IGNORECASE)
_LONE_DIGIT = re.compile(r"(?<![\w./])([1-5])(?!\w|\.\d|\s*/)")
_JSON_OBJECT = re.compile(r"\{.*?\}", re.DOTALL)
_REASON_LEAD = re.compile(r"^[\s*_`\-\u2013\u2014:;.,)\]]+|^(?:reason|because)\b\W*", re.IGNORECASE)
_REASON_TAIL = re.compile(
    r"[\s*_`,;:(\-\u2013\u2014]*(?:\b(?:so|thus|hence|therefore|i give it))?[\s,;:(\-\u2013\u2014]*$", re.IGNORECASE
)


@dataclass(frozen=True)
class Grade:
    """A model's grade of one case's feedback: ``grade`` from 1 (nothing to act on) to 5
    (names the fault and the fix) with a one-line ``reason``. When there is no grade
    (``grade`` is ``None``), ``error`` says why."""

    case_id: str
    grade: int | None
    reason: str = ""
    error: str = ""


def _cut(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _as_text(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, indent=1, default=str)


def grade_prompt(case: Case, result: CaseResult) -> tuple[str, str]:
    """``(instructions, input)`` asking a model to grade the feedback of one scored case.

    The instructions (:data:`GRADE_INSTRUCTIONS`) go in the system message; the input
    shows the case's input, output and expected value, the score and named scores, and
    the feedback, each part cut to 2,000 characters.
    """
    parts = [
        ("Input", _as_text(case.input)),
        ("Output", _as_text(case.output)),
        ("Expected", "none given" if case.expected is None else _as_text(case.expected)),
        ("Score given by the metric (higher is better)", _fmt(result.score)),
    ]
    if result.scores:
        parts.append(("Named scores", ", ".join(f"{name}: {_fmt(value)}" for name, value in result.scores.items())))
    parts.append(("Feedback to grade", result.feedback if result.feedback.strip() else "(empty)"))
    return GRADE_INSTRUCTIONS, "\n\n".join(f"{title}:\n{_cut(text, _PROMPT_PART_CHARS)}" for title, text in parts)


def _grade_value(raw: Any) -> int:
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"the grade {raw!r} is not a number") from None
    if not 1.0 <= value <= 5.0:
        raise ValueError(f"the grade {value:g} is outside 1 to 5")
    return int(math.floor(value + 0.5))


def _reason(text: str) -> str:
    """The reason's words: no leading dash, colon or "Reason:", no trailing "so" before a grade."""
    text = _REASON_TAIL.sub("", _REASON_LEAD.sub("", _REASON_LEAD.sub("", text.strip()))).strip().strip("*_`")
    if text.startswith("(") and text.endswith(")"):
        text = text[1:-1]
    return _cut(text.strip(), _REASON_CHARS)


def _json_grade(text: str) -> tuple[int, str] | None:
    for match in _JSON_OBJECT.finditer(text):
        try:
            data = json.loads(match.group())
        except ValueError:
            continue
        if not isinstance(data, dict):
            continue
        lowered = {str(key).casefold(): value for key, value in data.items()}
        raw = next((lowered[key] for key in ("grade", "score", "rating") if key in lowered), None)
        if raw is None:
            continue
        reason = next((lowered[key] for key in ("reason", "reasons", "explanation", "why") if key in lowered), "")
        return _grade_value(raw), _reason(str(reason))
    return None


def parse_grade(text: str) -> tuple[int, str]:
    """The grade (1 to 5) and a one-line reason from a model's reply; ``ValueError`` when it has no grade.

    Accepted: "4 - Names the label.", "**Grade: 4/5** Names the label.", "Score: 4. …",
    "… so 3 out of 5.", a JSON object with ``grade`` (or ``score``, ``rating``) and
    ``reason``, or a reply whose only number from 1 to 5 is the grade. A decimal grade is
    rounded half up; one outside 1 to 5 is refused. The reason is the rest of the grade's
    line (else the next line, else the text before the grade), cut to 200 characters.
    """
    found = _json_grade(text)
    if found is not None:
        return found
    lines = [line for line in text.strip().splitlines() if line.strip()]
    for pattern in (_LABELLED_GRADE, _OUT_OF_FIVE, _LEADING_GRADE):
        for index, line in enumerate(lines):
            match = pattern.search(line)
            if match is None:
                continue
            grade = _grade_value(match.group(1))
            after, before = line[match.end():], line[: match.start()]
            rest = [_reason(other) for other in lines[index + 1:]]
            reason = _reason(after) or next((item for item in rest if item), "") or _reason(before)
            return grade, reason
    digits = {match.group(1) for match in _LONE_DIGIT.finditer(text)}
    if len(digits) == 1:
        return int(digits.pop()), _reason(lines[0] if lines else "")
    raise ValueError(f"the reply has no grade from 1 to 5: {_show(text.strip(), 80)}")


def grade_feedback(
    pairs: Sequence[Pair],
    ask: Callable[[str, str], str],
    *,
    cancel: threading.Event | None = None,
    on_grade: Callable[[Grade], None] | None = None,
) -> list[Grade]:
    """Ask a model to grade each case's feedback, in order; ``ask(instructions, input)`` returns the reply text.

    A reply without a grade gives that case a :class:`Grade` with an ``error`` and the
    review goes on. A failed call (``ask`` raised) is recorded on its case and stops the
    review, since a wrong key or model name would fail every case the same way.
    ``cancel`` stops it between cases; ``on_grade`` sees each grade as it comes.
    """
    grades: list[Grade] = []
    for case, result in pairs:
        if cancel is not None and cancel.is_set():
            break
        try:
            reply = ask(*grade_prompt(case, result))
        except Exception as exc:  # noqa: BLE001  (the model call's failure is shown to the user, not raised)
            grade = Grade(case.id, None, error=str(exc) or type(exc).__name__)
            grades.append(grade)
            if on_grade is not None:
                on_grade(grade)
            break
        try:
            value, reason = parse_grade(reply)
            grade = Grade(case.id, value, reason)
        except ValueError as exc:
            grade = Grade(case.id, None, error=f"The model's reply could not be read: {exc}.")
        grades.append(grade)
        if on_grade is not None:
            on_grade(grade)
    return grades


# ---------------------------------------------------------------------------
# Marks


class MarkValue(StrEnum):
    """A person's verdict on one case's feedback."""

    USEFUL = "useful"
    WEAK = "weak"


@dataclass(frozen=True)
class Mark:
    """A mark on one case's feedback; ``marked_at`` is an ISO 8601 UTC timestamp."""

    case_id: str
    value: MarkValue
    note: str
    marked_at: str


class MarkStore:
    """People's marks on feedback, in a SQLite file at ``path``.

    One mark per (dataset name, metric hash, case id): marking again replaces it, so a
    changed metric (a new hash) starts unmarked and the old marks stay with the old
    version. Every call opens its own short-lived connection, so several Streamlit
    sessions (threads) can share one store; WAL mode lets readers run beside a writer and
    a busy timeout makes a rare clash wait instead of fail. ``path`` must be a file
    (``:memory:`` would not persist between calls); its folder is created if needed.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with connect(self.path) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                """CREATE TABLE IF NOT EXISTS feedback_marks (
                    dataset TEXT NOT NULL,
                    metric_hash TEXT NOT NULL,
                    case_id TEXT NOT NULL,
                    mark TEXT NOT NULL CHECK (mark IN ('useful', 'weak')),
                    note TEXT NOT NULL DEFAULT '',
                    marked_at TEXT NOT NULL,
                    PRIMARY KEY (dataset, metric_hash, case_id)
                )"""
            )

    def set_mark(self, dataset: str, metric_hash: str, case_id: str, value: MarkValue | str, note: str = "") -> Mark:
        """Mark a case's feedback ``useful`` or ``weak`` (replacing any earlier mark) and return the mark."""
        try:
            verdict = MarkValue(value)
        except ValueError:
            raise ValueError(f"A mark is 'useful' or 'weak', not {value!r}.") from None
        mark = Mark(case_id, verdict, note, datetime.now(UTC).isoformat(timespec="seconds"))
        with connect(self.path) as conn:
            conn.execute(
                """INSERT INTO feedback_marks (dataset, metric_hash, case_id, mark, note, marked_at)
                   VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (dataset, metric_hash, case_id)
                   DO UPDATE SET mark = excluded.mark, note = excluded.note, marked_at = excluded.marked_at""",
                (dataset, metric_hash, case_id, verdict.value, note, mark.marked_at),
            )
        return mark

    def clear_mark(self, dataset: str, metric_hash: str, case_id: str) -> None:
        """Remove a case's mark; nothing happens when it has none."""
        with connect(self.path) as conn:
            conn.execute(
                "DELETE FROM feedback_marks WHERE dataset = ? AND metric_hash = ? AND case_id = ?",
                (dataset, metric_hash, case_id),
            )

    def marks_for(self, dataset: str, metric_hash: str) -> dict[str, Mark]:
        """Every mark for one dataset and metric version, by case id."""
        with connect(self.path) as conn:
            rows = conn.execute(
                "SELECT case_id, mark, note, marked_at FROM feedback_marks WHERE dataset = ? AND metric_hash = ?",
                (dataset, metric_hash),
            ).fetchall()
        return {case_id: Mark(case_id, MarkValue(value), note, marked_at) for case_id, value, note, marked_at in rows}


def export_rows(
    pairs: Sequence[Pair], review: Review, marks: Mapping[str, Mark], grades: Mapping[str, Grade] | None = None
) -> list[dict[str, Any]]:
    """One flat row per case, in run order, for CSV or JSON Lines export.

    Keys: ``id``, ``split``, ``status``, ``score`` (``None`` unless ``ok``), ``feedback``,
    ``rules_broken`` (rule names joined by ", "; empty when none or not judged), ``mark``
    (``useful``, ``weak`` or empty) and ``mark_note``; with ``grades`` (a model review,
    by case id) also ``model_grade`` (1 to 5, or ``None``) and ``model_reason`` (the
    reason, or why there is no grade). Every value is a plain string or number (or
    ``None``), so both formats write it as is.
    """
    broken = review.rules_broken
    rows = []
    for case, result in pairs:
        mark = marks.get(case.id)
        row: dict[str, Any] = {
            "id": case.id,
            "split": case.split,
            "status": result.status.value,
            "score": result.score if result.ok else None,
            "feedback": result.feedback,
            "rules_broken": ", ".join(broken.get(case.id, [])),
            "mark": mark.value.value if mark else "",
            "mark_note": mark.note if mark else "",
        }
        if grades is not None:
            grade = grades.get(case.id)
            row["model_grade"] = grade.grade if grade else None
            row["model_reason"] = (grade.reason or grade.error) if grade else ""
        rows.append(row)
    return rows


def rows_csv(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """Rows as UTF-8 CSV with a header from the first row's keys; ``None`` is an empty cell."""
    if not rows:
        return b""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: "" if value is None else value for key, value in row.items()} for row in rows)
    return buffer.getvalue().encode("utf-8")


def rows_jsonl(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """Rows as UTF-8 JSON Lines, one object a line."""
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows).encode("utf-8")
