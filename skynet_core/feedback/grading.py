"""An optional model grade of each feedback (a judge model reads the case and the feedback)."""

from __future__ import annotations

import json
import math
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from skynet_core.cases import Case
from skynet_core.i18n import _
from skynet_core.results import CaseResult

from .text import Pair, _fmt, _show

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
        raise ValueError(_("the grade {grade!r} is not a number").format(grade=raw)) from None
    if not 1.0 <= value <= 5.0:
        raise ValueError(_("the grade {grade:g} is outside 1 to 5").format(grade=value))
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
            after, before = line[match.end() :], line[: match.start()]
            rest = [_reason(other) for other in lines[index + 1 :]]
            reason = _reason(after) or next((item for item in rest if item), "") or _reason(before)
            return grade, reason
    digits = {match.group(1) for match in _LONE_DIGIT.finditer(text)}
    if len(digits) == 1:
        return int(digits.pop()), _reason(lines[0] if lines else "")
    raise ValueError(_("the reply has no grade from 1 to 5: {reply}").format(reply=_show(text.strip(), 80)))


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
            grade = Grade(case.id, None, error=_("The model's reply could not be read: {problem}.").format(problem=exc))
        grades.append(grade)
        if on_grade is not None:
            on_grade(grade)
    return grades
