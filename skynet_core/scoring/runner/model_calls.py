"""The metric's `llm()` calls, answered in the parent: the metric's request checked, the handler called in a
thread of its own while the case's clock runs, and the call's trace."""

from __future__ import annotations

import itertools
import random
import threading
import time
from collections.abc import Callable
from typing import Any

from ... import i18n
from ...redact import redact
from ...results.trace import CASE_TIMEOUT, NO_ANSWER, NOT_AVAILABLE, LlmCall, from_reply
from .values import CallTimeout, LlmHandler, LlmRequest

# Numbers that tell running cases apart (LlmRequest.case), from a random start: unique across the
# processes whose calls one driver answers (a Ray cluster's nodes).
case_numbers = itertools.count(random.SystemRandom().getrandbits(62) + 1)


def answer_llm(
    message: dict[str, Any],
    llm: LlmHandler | None,
    check: Callable[[], None],
    number: int = 1,
    case: int = 0,
) -> dict[str, Any]:
    """Make the metric's model call here, in the parent, which alone holds the keys. ``check()`` raises when
    the case's time is up or the run is cancelled; it is called while the answer is awaited."""
    if llm is None:
        return {
            "op": "llm_reply",
            "error": i18n._("llm() is not available in this run"),
            "error_kind": NOT_AVAILABLE,
        }
    instructions = message.get("instructions")
    text = message.get("input")
    if not isinstance(instructions, str) or not (text is None or isinstance(text, str)):
        return {
            "op": "llm_reply",
            "error": i18n._("llm() takes a string of instructions and an optional input"),
            "error_kind": "TypeError",
        }
    request = LlmRequest(instructions, text, number, case)
    at_once = getattr(llm, "answer_at_once", None)
    ready = at_once(request) if at_once is not None else None
    if ready is not None:
        return {"op": "llm_reply", **ready}
    result: dict[str, Any] = {}

    def call() -> None:
        try:
            result.update(llm(request))
        except Exception as exc:  # noqa: BLE001  (a broken handler fails the call, not the run)
            result["error"] = redact(
                i18n._("the model call failed in the runner: {error}: {message}").format(
                    error=type(exc).__name__, message=exc
                )
            )
            result["error_kind"] = type(exc).__name__
        if not isinstance(result.get("text"), str) and not result.get("error"):
            result["error"] = i18n._("the model call returned no text")
            result["error_kind"] = NO_ANSWER

    thread = threading.Thread(target=call, daemon=True)
    started = time.perf_counter()
    thread.start()
    try:
        while thread.is_alive():
            check()
            thread.join(0.05)
    except CallTimeout as exc:
        exc.llm_calls = [
            LlmCall.make(
                instructions,
                text,
                None,
                error=i18n._("the case's timeout ran out while this call waited for the model's answer"),
                error_kind=CASE_TIMEOUT,
                elapsed_ms=(time.perf_counter() - started) * 1000.0,
            )
        ]
        raise
    return {"op": "llm_reply", **result}


def traced(message: dict[str, Any], reply: dict[str, Any]) -> LlmCall:
    """The call's trace, taken out of ``reply`` (which goes on to the child without it): the handler's own
    :class:`LlmCall`, else one made from the request and the reply."""
    call = reply.pop("call", None)
    usage = reply.pop("usage", None)
    kind = reply.pop("error_kind", None)
    if isinstance(call, LlmCall):
        return call
    return from_reply(message, {**reply, "usage": usage, "error_kind": kind})
