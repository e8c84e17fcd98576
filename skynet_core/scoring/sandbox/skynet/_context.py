"""Per-case state the runner's child sets before each call of `score`.

STDLIB ONLY: this runs inside the metric's sandbox.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

_observation: dict[str, float | None] = {"latency_ms": None, "cost_usd": None}
_llm_transport: Callable[[dict[str, Any]], dict[str, Any]] | None = None


class LlmError(RuntimeError):
    """A call to `llm` failed; the message says why and what to do."""


def set_case(observation: dict[str, Any] | None) -> None:
    global _observation
    if not observation:  # most cases: nothing measured (a fresh dict all the same: metric code may have changed it)
        _observation = {"latency_ms": None, "cost_usd": None}
        return
    _observation = {
        "latency_ms": _number_or_none(observation.get("latency_ms")),
        "cost_usd": _number_or_none(observation.get("cost_usd")),
    }


def set_llm_transport(transport: Callable[[dict[str, Any]], dict[str, Any]] | None) -> None:
    global _llm_transport
    _llm_transport = transport


def _number_or_none(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        number = float(value)
    except (TypeError, ValueError):
        return None
    return number if number == number and abs(number) != float("inf") else None


def observation() -> dict[str, float | None]:
    """The current case's measurements: ``{"latency_ms": float | None, "cost_usd": float | None}``.

    A fresh copy each call: the metric cannot change what Skynet measured.
    """
    return dict(_observation)


def service_cost() -> float | None:
    """The current case's model cost in US dollars, or ``None`` when it was not measured."""
    return _observation["cost_usd"]


def llm(instructions: str, input: Any = None) -> str:
    """Ask the metric model: ``instructions`` is the system message, ``input`` the user message.

    Returns the reply text. The call is made by Skynet outside this process,
    which never sees an API key.
    """
    if not isinstance(instructions, str):
        raise TypeError(f"llm() instructions must be a string, not {type(instructions).__name__}")
    if _llm_transport is None:
        raise LlmError("llm() is not available here: this code is not running under the Skynet runner")
    reply = _llm_transport({"instructions": instructions, "input": None if input is None else str(input)})
    if reply.get("error"):
        raise LlmError(reply["error"])
    return str(reply.get("text", ""))
