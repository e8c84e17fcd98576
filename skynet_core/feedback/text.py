"""Reading feedback and outputs as words: tokens, stems, polarity, and comparing an output with the expected value."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from skynet_core.cases import Case
from skynet_core.i18n import _
from skynet_core.results import CaseResult

Pair = tuple[Case, CaseResult]

# Float scores that differ only by rounding noise are the same score.
_EPS = 1e-9


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


def _is_structured(value: Any) -> bool:
    return isinstance(value, (Mapping, list, tuple))


def _differences(expected: Mapping[str, Any] | None, output: Any) -> list[tuple[str, Any, Any]]:
    """The expected fields the output does not show, as (field, expected value, what the output has).

    A dict output (or a JSON string of one) is compared field by field; when the field is
    absent, or the output is not a dict, the whole output is searched for a plain value
    (text, number). A structured expected value (a list or dict, such as a rubric
    ``expected["fields"] = ["order id", "refund"]``) describes the output rather than
    being text it should contain: it is compared only with the output's field of the
    same name, never searched for in the whole output.
    """
    if not expected:
        return []
    parsed = _parse_output(output)
    found: list[tuple[str, Any, Any]] = []
    for key, want in expected.items():
        has_field = isinstance(parsed, Mapping) and key in parsed
        if _is_structured(want) and not has_field:
            continue
        got = parsed[key] if has_field else parsed
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
        return _("The output is not valid JSON: {problem} (line {line}, column {column}).").format(
            problem=exc.msg[:1].lower() + exc.msg[1:], line=exc.lineno, column=exc.colno
        )
    except (ValueError, RecursionError):
        return _("The output is not valid JSON.")
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
        return _("Say what is wrong with the output's form, e.g. {problem}").format(problem=problem)
    differences = _differences(case.expected, case.output)
    if differences:
        named = len(case.expected or {}) > 1
        key, want, got = differences[0]
        if named:
            return _("Say what was expected and what the output had: Expected {field} {want}, got {got}.").format(
                field=key, want=_show(want), got=_show(got)
            )
        return _("Say what was expected and what the output had: Expected {want}, got {got}.").format(
            want=_show(want), got=_show(got)
        )
    plain = [(key, want) for key, want in (case.expected or {}).items() if not _is_structured(want)]
    if plain:
        key, want = plain[0]
        return _("Name the check this output failed and where; it does show the expected {field} {want}.").format(
            field=key, want=_show(want)
        )
    if case.expected:
        return _("Name the check this output failed and what in the output failed it.")
    return _("Quote the part of the output that is wrong and say what it should be; the output was {output}.").format(
        output=_show(case.output)
    )
