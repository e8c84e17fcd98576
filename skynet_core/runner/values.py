"""What a worker and its caller hand each other: the ways a call ends early, a metric's model request, and a
batch of cases already encoded."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import i18n
from ..trace import LlmCall

METRIC_FILE = "metric.py"


class ChildDied(Exception):
    """The child exited or broke the protocol; the message says how, for people.

    ``index`` is the position (in the submitted cases) of the call that was
    running, when the child's progress page tells it.
    """

    def __init__(self, message: str, index: int | None = None) -> None:
        super().__init__(message)
        self.index = index
        self.llm_calls: list[LlmCall] = []  # the running case's llm() calls, traced before it failed


class CallTimeout(Exception):
    """A call outlived the timeout; ``line`` is where the metric folder's ``file`` was stuck
    and ``index`` the running case's position, where known."""

    def __init__(self, line: int | None, index: int | None = None, file: str = METRIC_FILE) -> None:
        super().__init__("timeout")
        self.line = line
        self.index = index
        self.file = file
        self.llm_calls: list[LlmCall] = []  # the running case's llm() calls, the one still waiting last


class Cancelled(Exception):
    """The run was cancelled by the caller."""


@dataclass
class LlmRequest:
    """One `llm()` call of the metric; ``call`` is its number within the running case (1 for the first).

    ``case`` tells the running cases apart: the same number for every call of one case, another for every
    other case (0: not known). The answer cache counts identical calls within a case by it.
    """

    instructions: str
    input: str | None
    call: int = 1
    case: int = 0


LlmHandler = Callable[[LlmRequest], dict[str, Any]]
"""Answers a metric's ``llm()`` call. It may also have ``answer_at_once(request) -> dict | None``: the
reply when it has one at hand without waiting (a cached answer), which the runner then takes without
starting a thread for the call; None otherwise, and the call is made as usual."""


class EncodedCases:
    """A batch of cases whose payloads are JSON already: ``data`` is the JSON array of them (a JSON Lines
    file's lines sent as they are), ``count`` how many there are."""

    __slots__ = ("count", "data")

    def __init__(self, data: bytes, count: int) -> None:
        self.data, self.count = data, count

    def __len__(self) -> int:
        return self.count


def results_items(message: dict[str, Any], first: int, count: int, running: Callable[[], int | None]) -> list[Any]:
    """The items of the child's ``results`` message, whose first must be case ``first`` of the ``count`` sent.
    The whole line is checked before any item is taken: a forged line (extra, missing or out-of-order items)
    fails the case the child was on (``running()`` for a message that is not results at all), never the run."""
    items = message.get("items") if message.get("t") == "results" else None
    if not isinstance(items, list):
        raise ChildDied(i18n._("the metric wrote an unexpected message onto the runner's private channel"), running())
    if (
        not items
        or len(items) > count - first
        or any(type(item) is not dict or item.get("i") != first + n for n, item in enumerate(items))
    ):
        raise ChildDied(
            i18n._(
                "the metric wrote a malformed results message onto the runner's private "
                "channel; print() instead of writing to inherited file descriptors"
            ),
            first,
        )
    return items
