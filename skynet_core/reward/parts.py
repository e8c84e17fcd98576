"""The reward on the studio's side: the sandbox's rules, many cases at once, and REWARD_SPEC in source.

The rules live once, in ``skynet_core/scoring/sandbox/skynet/_reward.py`` (standard library only, because
metric code imports it inside the sandbox); this module re-exports them and adds what only the
studio needs:

- :func:`reward_parts` recomputes the reward of many cases from stored accuracy values and
  observations, without running the metric again. It equals :func:`reward_pair` case by case,
  bit for bit: same operations, same order.
- :func:`spec_to_source` and :func:`replace_reward_spec` write a ``REWARD_SPEC`` into metric.py,
  changing that assignment and nothing else.
"""

from __future__ import annotations

import ast
import json
import math
import numbers
import re
from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from skynet_core.i18n import _
from skynet_core.metric.pysource import parse as parse_source
from skynet_core.metric.reward_spec import nested_spec_assignment, spec_assignment
from skynet_core.scoring.sandbox.skynet._reward import (
    PARTS,
    NormalizedSpec,
    RewardSpecError,
    part_score,
    reward_pair,
    validate_reward_spec,
)

__all__ = [
    "PARTS",
    "MetricSourceError",
    "NormalizedSpec",
    "RewardSpecError",
    "error_from_part_score",
    "part_score",
    "replace_reward_spec",
    "reward_pair",
    "reward_parts",
    "spec_to_source",
    "validate_reward_spec",
    "weight_vector",
]

_NAME = "REWARD_SPEC"
_SECTION_ORDER = ("weights", *PARTS)


class MetricSourceError(ValueError):
    """metric.py cannot be rewritten as it stands. ``line`` is the metric.py line at fault, if known."""

    def __init__(self, message: str, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


def weight_vector(weights: Mapping[str, float]) -> np.ndarray:
    """The weights as an array in :data:`PARTS` order (accuracy, speed, cost), scaled to sum to 1."""
    vector = np.array([float(weights[part]) for part in PARTS])
    scaled: np.ndarray = vector / vector.sum()
    return scaled


def reward_parts(
    accuracy: ArrayLike, latency_ms: ArrayLike, cost_usd: ArrayLike, spec: Any
) -> tuple[np.ndarray, np.ndarray]:
    """Rewards of many cases: ``(rewards, parts)``, with ``parts`` of shape ``(n, 3)`` in :data:`PARTS` order.

    ``accuracy`` holds what the metric passed to ``reward``: scores in [0, 1], or errors of 0 or
    more when ``spec`` sets ``accuracy.reference``. ``latency_ms`` and ``cost_usd`` are the
    observations, NaN (or ``None``) where not measured: that part scores 0, as in
    :func:`reward_pair`. A column is NaN for a part that is off (weight 0 and no reference); it
    adds nothing to the reward. Raises ``ValueError`` naming the first bad accuracy by its index.
    """
    norm = validate_reward_spec(spec)
    acc = _accuracy_array(accuracy)
    latency = np.asarray(latency_ms, dtype=float)
    cost = np.asarray(cost_usd, dtype=float)
    if not (acc.ndim == latency.ndim == cost.ndim == 1 and len(acc) == len(latency) == len(cost)):
        raise ValueError(
            f"accuracy, latency_ms and cost_usd must be flat and of one length; got shapes {acc.shape}, "
            f"{latency.shape} and {cost.shape}."
        )
    parts = np.empty((len(acc), 3))
    parts[:, 0] = _accuracy_part(acc, norm.accuracy_ref)
    for column, x in ((1, latency), (2, cost)):
        ref = norm.reference(PARTS[column])
        if ref is None:
            parts[:, column] = np.nan
        else:
            parts[:, column] = np.where(np.isnan(x), 0.0, ref / (ref + np.maximum(x, 0.0)))
    counted = np.nan_to_num(parts, nan=0.0)
    weights = norm.weights
    # Term by term, in reward_pair's order, so both give the same floats.
    rewards = weights["accuracy"] * counted[:, 0] + weights["speed"] * counted[:, 1] + weights["cost"] * counted[:, 2]
    return rewards, parts


def error_from_part_score(score: ArrayLike, ref: float) -> np.ndarray:
    """The error that :func:`part_score` turned into ``score`` under ``ref``: ``ref * (1 - s) / s``.

    Use it to recover errors from stored accuracy parts when the accuracy reference changes. A
    score of 0 gives an infinite error (which scores 0 under any reference).
    """
    s = np.asarray(score, dtype=float)
    with np.errstate(divide="ignore"):
        errors: np.ndarray = ref * (1.0 - s) / s
    return errors


def spec_to_source(spec: Mapping[str, Any], newline: str = "\n") -> str:
    """``spec`` as the Python statement ``REWARD_SPEC = {...}``, one top-level key a line, no final newline.

    Known keys come first in the contract's order (weights, accuracy, speed, cost), then any
    others as given. Whole-number floats are written as integers (2000, not 2000.0). Raises
    ``ValueError`` for a value that has no Python literal (NaN, an object).
    """
    if not isinstance(spec, Mapping):
        raise ValueError(f"REWARD_SPEC must be a dict; got {type(spec).__name__}.")
    keys = [key for key in _SECTION_ORDER if key in spec] + [key for key in spec if key not in _SECTION_ORDER]
    body = "".join(f"    {_literal(key)}: {_literal(_ordered(key, spec[key]))},{newline}" for key in keys)
    return f"{_NAME} = {{{newline}{body}}}" if keys else f"{_NAME} = {{}}"


def replace_reward_spec(source: str, spec: Mapping[str, Any]) -> str:
    """metric.py ``source`` with its ``REWARD_SPEC`` set to ``spec``; every other character is kept.

    - ``spec`` is checked first (:class:`RewardSpecError`), so an invalid spec is never written.
    - The value of the last top-level ``REWARD_SPEC = ...`` (or ``REWARD_SPEC: ... = ...``) is
      replaced, since that is the one in force. Comments inside the old value are lost.
    - Without one, ``REWARD_SPEC = {...}`` is inserted after the leading imports (after the
      docstring, or at the top, when there are none), set off by blank lines.
    - Raises :class:`MetricSourceError` when the source does not parse, or when ``REWARD_SPEC``
      is assigned only inside a block (an ``if``, a function), which cannot be rewritten safely.
    """
    validate_reward_spec(dict(spec))
    try:
        tree = parse_source(source)
    except SyntaxError as exc:
        raise MetricSourceError(
            _("metric.py does not parse (line {line}: {error}); fix it before writing REWARD_SPEC.").format(
                line=exc.lineno, error=exc.msg
            ),
            exc.lineno,
        ) from None
    except ValueError as exc:
        raise MetricSourceError(
            _("metric.py cannot be parsed ({error}); fix it before writing REWARD_SPEC.").format(error=exc)
        ) from None
    newline = match.group() if (match := re.search(r"\r\n|\r|\n", source)) else "\n"
    starts = _line_starts(source)
    in_force = spec_assignment(tree)
    if in_force is not None and in_force.value is not None:
        value = in_force.value
        start = _offset(source, starts, value.lineno, value.col_offset)
        end = _offset(source, starts, value.end_lineno or value.lineno, value.end_col_offset or 0)
        rendered = spec_to_source(spec, newline).removeprefix(f"{_NAME} = ")
        return source[:start] + rendered + source[end:]
    nested = nested_spec_assignment(tree)
    if nested is not None:
        raise MetricSourceError(
            _(
                "REWARD_SPEC is assigned inside a block at line {line}; move it to the top level of "
                "metric.py so it can be rewritten."
            ).format(line=nested.lineno),
            nested.lineno,
        )
    return _insert(source, starts, _header_end(tree), spec_to_source(spec, newline), newline)


def _accuracy_array(accuracy: ArrayLike) -> np.ndarray:
    raw = np.asarray(accuracy)
    if raw.dtype == bool:
        raise TypeError("accuracy holds booleans; pass 1.0 or 0.0 per case.")
    try:
        return raw.astype(float)
    except (TypeError, ValueError):
        raise TypeError(f"accuracy must hold numbers; got values of type {raw.dtype}.") from None


def _accuracy_part(acc: np.ndarray, ref: float | None) -> np.ndarray:
    missing = np.flatnonzero(np.isnan(acc))
    if missing.size:
        raise ValueError(
            _("accuracy of case {index} (0-based) is missing (NaN); leave out cases whose metric failed.").format(
                index=missing[0]
            )
        )
    if ref is None:
        outside = np.flatnonzero((acc < 0) | (acc > 1))
        if outside.size:
            index = outside[0]
            raise ValueError(
                _(
                    "accuracy of case {index} (0-based) is {value!r}, outside [0, 1]; without an accuracy "
                    "reference accuracy is a score between 0 and 1."
                ).format(index=index, value=float(acc[index]))
            )
        return acc
    negative = np.flatnonzero(acc < 0)
    if negative.size:
        index = negative[0]
        raise ValueError(
            _(
                "accuracy of case {index} (0-based) is {value!r}, a negative error; with an accuracy "
                "reference, accuracy is an error of 0 or more."
            ).format(index=index, value=float(acc[index]))
        )
    return ref / (ref + acc)


def _ordered(key: Any, value: Any) -> Any:
    """Weights in PARTS order and ``reference`` first in a part, so written specs read the same way."""
    if not isinstance(value, Mapping):
        return value
    first = PARTS if key == "weights" else ("reference",)
    return {k: value[k] for k in first if k in value} | {k: v for k, v in value.items() if k not in first}


def _literal(value: Any) -> str:
    if value is None or isinstance(value, bool):
        return repr(value)
    if isinstance(value, str):
        # JSON's string escapes are all valid in Python, and its double quotes match the contract's examples.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, numbers.Integral):
        return str(int(value))
    if isinstance(value, numbers.Real):
        number = float(value)
        if not math.isfinite(number):
            raise ValueError(f"{value!r} cannot be written into REWARD_SPEC; give a finite number.")
        return str(int(number)) if number.is_integer() and abs(number) < 1e16 else repr(number)
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_literal(k)}: {_literal(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        items = ", ".join(_literal(item) for item in value)
        return f"[{items}]" if isinstance(value, list) else f"({items}{',' if len(value) == 1 else ''})"
    raise ValueError(f"{value!r} ({type(value).__name__}) cannot be written into REWARD_SPEC as a literal.")


def _line_starts(source: str) -> list[int]:
    # Python ends a line at \r\n, \r or \n (not at the other characters str.splitlines knows).
    return [0, *(match.end() for match in re.finditer(r"\r\n|\r|\n", source))]


def _offset(source: str, starts: list[int], lineno: int, col: int) -> int:
    """The index in ``source`` of an ast position; ``col`` counts UTF-8 bytes, not characters."""
    start = starts[lineno - 1]
    end = starts[lineno] if lineno < len(starts) else len(source)
    prefix = source[start:end].encode("utf-8", "surrogatepass")[:col]
    return start + len(prefix.decode("utf-8", "surrogatepass"))


def _header_end(tree: ast.Module) -> int:
    """The last line of the module docstring and the imports that open the module; 0 when there are none."""
    end = 0
    for index, node in enumerate(tree.body):
        is_docstring = index == 0 and isinstance(node, ast.Expr) and isinstance(getattr(node.value, "value", None), str)
        if not (is_docstring or isinstance(node, (ast.Import, ast.ImportFrom))):
            break
        end = node.end_lineno or node.lineno
    return end


def _insert(source: str, starts: list[int], after_line: int, statement: str, newline: str) -> str:
    at = starts[after_line] if after_line < len(starts) else len(source)
    before = source[:at]
    rest = source[at:]
    lead = newline if before and not before.endswith(("\n", "\r")) else ""
    if before:
        lead += newline
    # A blank line after the new statement, unless the file already has one there or ends.
    trail = newline if rest and not rest.startswith(("\n", "\r")) else ""
    return before + lead + statement + newline + trail + rest
