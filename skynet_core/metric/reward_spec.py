"""Where metric.py's ``REWARD_SPEC`` is, read without running metric.py: the one locator.

The assignment *in force* is the last top-level ``REWARD_SPEC = ...`` (or
``REWARD_SPEC: ... = ...``): it is the value the module holds once imported. The
contract check names its line, the reward code rewrites its value, and the pages
read its literal value, all through :func:`spec_assignment`.
"""

from __future__ import annotations

import ast
import copy
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from ..i18n import _, language
from ..scoring.sandbox.skynet._reward import RewardSpecError, validate_reward_spec
from .pysource import parse as parse_source

SPEC_NAME = "REWARD_SPEC"
Assignment = ast.Assign | ast.AnnAssign


def _assigns_spec(node: ast.AST) -> bool:
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return False
    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
    return any(isinstance(target, ast.Name) and target.id == SPEC_NAME for target in targets)


def spec_assignment(tree: ast.Module) -> Assignment | None:
    """The top-level ``REWARD_SPEC`` assignment in force (the last one), or ``None``."""
    found = [node for node in tree.body if _assigns_spec(node)]
    return found[-1] if found else None  # type: ignore[return-value]


def nested_spec_assignment(tree: ast.Module) -> Assignment | None:
    """The first ``REWARD_SPEC`` assignment anywhere (inside a block too), or ``None``."""
    return next((node for node in ast.walk(tree) if _assigns_spec(node)), None)  # type: ignore[return-value]


def calls_reward(files: Mapping[str, str]) -> bool:
    """Whether any Python file of a metric folder calls ``reward(...)`` (``reward`` or ``skynet.reward``).

    A ``REWARD_SPEC`` that nothing passes to ``reward()`` changes no score. A file that does not parse
    counts as calling it: the load stage reports that file, and the warning would only be noise.
    """
    for name, text in files.items():
        if not name.endswith(".py"):
            continue
        try:
            tree = parse_source(text)
        except (SyntaxError, ValueError):
            return True
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                func = node.func
                if (isinstance(func, ast.Name) and func.id == "reward") or (
                    isinstance(func, ast.Attribute) and func.attr == "reward"
                ):
                    return True
    return False


def reward_spec_line(source: str) -> int | None:
    """The metric.py line of the ``REWARD_SPEC`` assignment in force, if metric.py parses and has one."""
    try:
        node = spec_assignment(parse_source(source))
    except (SyntaxError, ValueError):
        return None
    return node.lineno if node is not None else None


@dataclass(frozen=True)
class RewardSpecInSource:
    """What metric.py's top-level ``REWARD_SPEC`` holds, read without running metric.py.

    ``spec`` is the literal dict when it is valid; otherwise ``problem`` says, for people, why
    there is none (absent, computed, invalid, or metric.py does not parse), and ``line`` is the
    metric.py line at fault when there is one.
    """

    spec: dict[str, Any] | None
    problem: str | None = None
    line: int | None = None


def reward_spec_in(source: str) -> RewardSpecInSource:
    """The ``REWARD_SPEC`` in force in ``source``, read with ``ast.literal_eval`` (cached by text; a copy each call)."""
    return copy.deepcopy(_reward_spec_in(source, language()))


@lru_cache(maxsize=64)
def _reward_spec_in(source: str, lang: str) -> RewardSpecInSource:
    """``lang``: the messages' language (the current one, passed so that the cache keeps one per language)."""
    try:
        tree = parse_source(source)
    except SyntaxError as exc:
        return RewardSpecInSource(
            None,
            _(
                "metric.py does not parse (line {line}: {message}), so its "
                "REWARD_SPEC cannot be read; fix it on the Author page."
            ).format(line=exc.lineno, message=exc.msg),
            exc.lineno,
        )
    except ValueError as exc:
        return RewardSpecInSource(
            None, _("metric.py cannot be parsed ({error}); fix it on the Author page.").format(error=exc)
        )
    node = spec_assignment(tree)
    if node is None:
        return RewardSpecInSource(None, _("metric.py defines no REWARD_SPEC at its top level."))
    try:
        value = ast.literal_eval(node.value)  # type: ignore[arg-type]
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return RewardSpecInSource(
            None,
            _(
                "REWARD_SPEC at metric.py line {line} is computed, not written as "
                "a literal dict, so it cannot be read without running metric.py."
            ).format(line=node.lineno),
            node.lineno,
        )
    try:
        validate_reward_spec(value)
    except RewardSpecError as exc:
        return RewardSpecInSource(
            None,
            _("REWARD_SPEC at metric.py line {line} is invalid: {error}").format(line=node.lineno, error=exc),
            node.lineno,
        )
    return RewardSpecInSource(value)


def reward_weights(source: str) -> dict[str, float] | None:
    """The normalised weights of metric.py's literal ``REWARD_SPEC``, or None when there is no valid one."""
    spec = reward_spec_in(source).spec
    return dict(validate_reward_spec(spec).weights) if spec is not None else None
