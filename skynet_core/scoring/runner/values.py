"""What a worker and its caller hand each other: the ways a call ends early, a metric's model request, and a
batch of cases already encoded."""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from ... import i18n
from ...metric.source import MetricSource
from ...results.trace import LlmCall

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


class CallsAhead(Protocol):
    """A request of cases' answers sent ahead (``AnswersAhead.ahead``), and the record of the calls they make.

    ``wire`` goes with the cases (``{"<position>": [[id, sealed answer], …]}``, None when nothing is sent). The
    runner tells it, for the case at each position, the answers the sandbox reported taking (:meth:`used`,
    which traces them and raises ``ValueError`` for a report that names nothing sent; ``case`` is the case's
    number when it goes on to a call through the runner, else None), each call made through the runner that
    got an answer (:meth:`made`, with the reply's ``recorded``), and the case's end (:meth:`done`).
    ``on_record`` are the positions of the cases whose calls last time are on record, answered ahead or not:
    the others have not been scored in this process, and may ask the model.
    """

    wire: dict[str, list[list[str]]] | None
    on_record: Collection[int]

    def used(self, position: int, reported: Any, case: int | None) -> list[LlmCall]: ...

    def made(self, position: int, recorded: Any) -> None: ...

    def done(self, position: int) -> None: ...


@runtime_checkable
class AnswersAhead(Protocol):
    """An ``LlmHandler`` that can answer a case's calls ahead: given the cases' JSON as sent and the metric
    folder they are sent to, the answers to send with them, that metric's own (None when it cannot)."""

    def ahead(self, payloads: Sequence[bytes | memoryview], metric: MetricSource) -> CallsAhead | None: ...


class EncodedCases:
    """A batch of cases whose payloads are JSON already: ``data`` is the JSON array of them (a JSON Lines
    file's lines sent as they are), ``count`` how many there are, and ``payloads`` each one's JSON when the
    batch was built from them (to send answers ahead)."""

    __slots__ = ("count", "data", "payloads")

    def __init__(self, data: bytes, count: int, payloads: Sequence[bytes | memoryview] | None = None) -> None:
        self.data, self.count, self.payloads = data, count, payloads

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
        raise malformed_results(first)
    return items


def malformed_results(index: int) -> ChildDied:
    """The failure of the case at ``index`` when the child's message about it is forged."""
    return ChildDied(
        i18n._(
            "the metric wrote a malformed results message onto the runner's private "
            "channel; print() instead of writing to inherited file descriptors"
        ),
        index,
    )
