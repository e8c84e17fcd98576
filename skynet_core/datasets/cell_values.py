"""What a case file's values mean: JSON text parsed strictly, measurements, names and human scores checked,
and where in the file a value is, for messages."""

from __future__ import annotations

import functools
import json
import math
import numbers
import re
from typing import TYPE_CHECKING, Any

import orjson

from skynet_core.cases import Observation
from skynet_core.i18n import _, language

from .model import (
    _MEASUREMENTS,
    DatasetError,
)

if TYPE_CHECKING:
    pass

_NUMBER_TEXT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _describe(value: Any) -> str:
    """How a value's type reads in a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, numbers.Number):
        return _("the number {value}").format(value=value)
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return _("the text {text!r}").format(text=shown)
    if isinstance(value, (list, tuple)):
        return _("a list")
    if isinstance(value, dict):
        return _("an object")
    return _("a {type}").format(type=type(value).__name__)


def _reject_constant(name: str) -> None:
    raise ValueError(_("{name} is not allowed in JSON; write null or a number").format(name=name))


def _parse_json(text: str) -> Any:
    """Parse with orjson for speed; on failure, the standard parser gives the message people read
    (and accepts what orjson refuses but JSON allows, such as integers beyond 64 bits). A lone
    surrogate escape (``"\\ud800"``), which the standard parser lets through as text no file or
    terminal can hold, raises :class:`LoneSurrogate`."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except RecursionError:
            raise TooDeep() from None
        if _holds_surrogate(value):
            raise LoneSurrogate() from None
        return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _holds_surrogate(value: Any) -> bool:
    """Whether a parsed JSON value has a lone surrogate in any string or key (iteratively: it may be deep)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class LoneSurrogate(ValueError):
    """A JSON string escapes half of a UTF-16 surrogate pair (``"\\ud800"``): not a character."""

    def __str__(self) -> str:
        return _("it holds a lone surrogate escape such as \\ud800, half of a UTF-16 pair and not a character")


class TooDeep(ValueError):
    """JSON nested deeper than the parsers go (orjson stops at 1,024 levels, the standard parser near 1,000)."""

    def __str__(self) -> str:
        return _("it is nested more than 1,000 levels deep")


def _measurement(value: Any, what: str, where: str, *, text_ok: bool) -> float | None:
    """A latency or cost: ``None`` when not measured, else a finite number of 0 or more.

    ``text_ok`` lets table cells hold numbers written as text; JSON has real numbers.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    number: float | None = None
    # Plain int and float only: cells have been through _plain, and the numbers.Real ABC check is slow per cell.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif text_ok and isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if _NUMBER_TEXT.fullmatch(text):
            number = float(text)
    meaning, example = _MEASUREMENTS[what.rpartition(".")[2]]
    if number is None:
        raise DatasetError(
            _(
                "{where}: {what} is {value}, not a number. Write {meaning} as a number (e.g. {example}), "
                "or leave it empty (null) when it was not measured."
            ).format(where=where, what=what, value=_describe(value), meaning=_(meaning), example=example)
        )
    if not math.isfinite(number) or number < 0:
        raise DatasetError(
            _(
                "{where}: {what} is {number}. Write {meaning} as a finite number of 0 or more, or leave it empty "
                "(null) when it was not measured."
            ).format(where=where, what=what, number=number, meaning=_(meaning))
        )
    return number


def _observation(value: Any, where: str, *, text_ok: bool) -> Observation:
    if value is None:
        return Observation()
    if not isinstance(value, dict):
        raise DatasetError(
            _(
                '{where}: observation is {value}, not an object. Write it as {{"latency_ms": 850, '
                '"cost_usd": 0.002}}, using null for a value that was not measured.'
            ).format(where=where, value=_describe(value))
        )
    return Observation(
        latency_ms=_measurement(value.get("latency_ms"), "observation.latency_ms", where, text_ok=text_ok),
        cost_usd=_measurement(value.get("cost_usd"), "observation.cost_usd", where, text_ok=text_ok),
    )


def _name_value(value: Any, what: str, where: str) -> str | None:
    """An id, split or candidate: text or a whole number, ``None`` when empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    # Parquet stores a whole-number column with gaps as floats.
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value.strip() or None
    raise DatasetError(
        _("{where}: {what} is {value}. Write the {what} as text or a whole number.").format(
            where=where, what=what, value=_describe(value)
        )
    )


def _human_value(value: Any, where: str) -> float | None:
    """A human score cell: a number on the metric's scale, pass (1) or fail (0); ``None`` when empty."""
    if value is None:  # nearly every case: no import, no parse
        return None
    from skynet_core.human.human_score import parse_human_value

    try:
        return parse_human_value(value)
    except ValueError as exc:
        raise DatasetError(f"{where}: {exc}") from None


def place(file: str, unit: str, number: int) -> str:
    """Where a line or row of ``file`` is, for messages ("cases.jsonl, line 3"; ``unit`` is line or row).

    Every loaded case gets one, so the sentence is translated once per file and language, not per case.
    """
    head, tail = _place_parts(file, unit, language())
    return f"{head}{number}{tail}"


@functools.lru_cache(maxsize=64)
def _place_parts(file: str, unit: str, _language: str) -> tuple[str, str]:
    text = _("{file}, line {line}") if unit == "line" else _("{file}, row {row}")
    head, _sep, tail = text.format(file=file, line="\x00", row="\x00").partition("\x00")
    return head, tail
