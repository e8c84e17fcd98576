"""The trace of a metric's ``llm()`` calls: what each call sent, what came back, and what it cost.

Each case's result carries one :class:`LlmCall` per call its metric made through
``llm()`` (``CaseResult.llm_calls``, in call order), built in the parent (which
made the call), never taken from the metric's process. A trace is bounded and
holds no secret:

- every text (instructions, input, answer, error) is passed through
  :func:`skynet_core.redact.redact` first (the keys this process knows and
  anything shaped like a key become ``[redacted]``), then clipped to
  :data:`CLIP_CHARS` characters: the first :data:`CLIP_HEAD` and the last
  ``CLIP_CHARS - CLIP_HEAD`` are kept (a verdict often sits at the end), and
  ``clipped`` maps the clipped field to its full length;
- a case keeps the texts of its first :data:`FULL_CALLS` calls; later calls keep
  their numbers, kind of error and model, with empty texts (``clipped`` says
  how long they were), so a case that makes thousands of calls stays small;
- calls the metric makes after a limit stopped its case are refused without
  being traced.

The JSON form (:meth:`LlmCall.to_json`) has English keys and is what saved runs
and ``--trace`` on the command line carry.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..redact import known_secrets, redact

CLIP_CHARS = 4_000
"""Most characters of one text (instructions, input, answer, error) a trace keeps."""
CLIP_HEAD = 3_000
"""Of a clipped text, the first this many characters are kept, and the last ``CLIP_CHARS - CLIP_HEAD``."""
CLIP_MARK = "\n…\n"
"""What stands for the removed middle of a clipped text."""
FULL_CALLS = 20
"""A case's first this many calls keep their texts; later ones keep only their numbers and error."""
TEXTS = ("instructions", "input", "answer", "error")

# Kinds of failure that come from the runner rather than from the provider (class names otherwise).
LIMIT_REACHED = "LimitReached"
NOT_AVAILABLE = "LlmUnavailable"
NO_ANSWER = "NoAnswer"
CASE_TIMEOUT = "CaseTimeout"  # the case's timeout ran out while the call waited for its answer


def clip_text(text: str, limit: int = CLIP_CHARS, head: int = CLIP_HEAD) -> tuple[str, int | None]:
    """``text`` clipped to about ``limit`` characters (its head and tail kept), and its full length when clipped."""
    if len(text) <= limit:
        return text, None
    tail = max(0, limit - head)
    return text[:head] + CLIP_MARK + (text[-tail:] if tail else ""), len(text)


@dataclass(frozen=True, slots=True)
class LlmCall:
    """One ``llm()`` call of a metric, as the parent made it.

    ``answer`` is the model's reply (``None`` when the call failed); ``error``
    the message the metric received and ``error_kind`` the class name of the
    failure (``RateLimitError``, ``AuthenticationError``, ``Timeout``…, or
    :data:`LIMIT_REACHED` when a limit refused the call). ``latency_ms`` is the
    last attempt's time; ``elapsed_ms`` the whole call's, with the earlier
    attempts and the waits between them. ``retries`` is the attempts after the
    first. ``cost_usd`` is None when unknown (or the call failed). ``clipped``
    maps each clipped text's field name to its full length. ``cached`` is true
    when no model call was made: the answer came from the answer cache (or from
    an identical call in flight), at no cost, in ``latency_ms`` of lookup.
    """

    instructions: str
    input: str | None = None
    answer: str | None = None
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_ms: float = 0.0
    elapsed_ms: float = 0.0
    cost_usd: float | None = None
    retries: int = 0
    error: str = ""
    error_kind: str = ""
    clipped: Mapping[str, int] = field(default_factory=dict)
    cached: bool = False

    @property
    def ok(self) -> bool:
        return not self.error_kind and not self.error

    @classmethod
    def make(
        cls,
        instructions: str,
        input: str | None = None,
        answer: str | None = None,
        *,
        secrets: Iterable[str | None] = (),
        env: Mapping[str, str] | None = None,
        **numbers: Any,
    ) -> LlmCall:
        """A call with its texts redacted (the ``secrets`` given, the keys of ``env`` (default: the process's
        environment), key shapes) and clipped."""
        found = known_secrets(env, secrets)  # the environment is read once for the call's texts, not per text
        texts: dict[str, Any] = {"instructions": instructions, "input": input, "answer": answer}
        texts["error"] = numbers.pop("error", "") or ""
        clipped: dict[str, int] = {}
        for name, value in texts.items():
            if isinstance(value, str) and value:
                shown, full = clip_text(redact(value, found, env={}))
                texts[name] = shown
                if full is not None:
                    clipped[name] = full
        return cls(**texts, **numbers, clipped=clipped)

    def slim(self) -> LlmCall:
        """This call without its texts (their lengths in ``clipped``), for calls past :data:`FULL_CALLS`."""
        lengths = dict(self.clipped)
        for name in ("instructions", "input", "answer"):
            value = getattr(self, name)
            if value and name not in lengths:
                lengths[name] = len(value)
        return LlmCall(
            "",
            None if self.input is None else "",
            None if self.answer is None else "",
            self.model,
            self.prompt_tokens,
            self.completion_tokens,
            self.latency_ms,
            self.elapsed_ms,
            self.cost_usd,
            self.retries,
            self.error,
            self.error_kind,
            lengths,
            self.cached,
        )

    def with_latency(self, ms: float) -> LlmCall:
        """This call taking ``ms`` (its latency and its whole time), otherwise the same (faster than ``replace``,
        for a call answered again from the cache)."""
        return LlmCall(
            self.instructions,
            self.input,
            self.answer,
            self.model,
            self.prompt_tokens,
            self.completion_tokens,
            ms,
            ms,
            self.cost_usd,
            self.retries,
            self.error,
            self.error_kind,
            self.clipped,
            self.cached,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "instructions": self.instructions,
            "input": self.input,
            "answer": self.answer,
            "model": self.model,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "latency_ms": self.latency_ms,
            "elapsed_ms": self.elapsed_ms,
            "cost_usd": self.cost_usd,
            "retries": self.retries,
            "error": self.error,
            "error_kind": self.error_kind,
            "clipped": dict(self.clipped),
            "cached": self.cached,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> LlmCall:
        """The call :meth:`to_json` wrote (keys it lacks take their defaults; unknown keys are ignored)."""

        def text(name: str) -> str | None:
            value = data.get(name)
            return value if isinstance(value, str) else None

        def number(name: str) -> float:
            value = data.get(name)
            return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else 0.0

        cost = data.get("cost_usd")
        clipped = data.get("clipped")
        return cls(
            instructions=text("instructions") or "",
            input=text("input"),
            answer=text("answer"),
            model=text("model") or "",
            prompt_tokens=int(number("prompt_tokens")),
            completion_tokens=int(number("completion_tokens")),
            latency_ms=number("latency_ms"),
            elapsed_ms=number("elapsed_ms"),
            cost_usd=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
            retries=int(number("retries")),
            error=text("error") or "",
            error_kind=text("error_kind") or "",
            clipped={str(k): int(v) for k, v in clipped.items() if isinstance(v, int)}
            if isinstance(clipped, Mapping)
            else {},
            cached=data.get("cached") is True,
        )


def bounded(calls: Sequence[LlmCall]) -> tuple[LlmCall, ...]:
    """A case's calls as its result keeps them: the first :data:`FULL_CALLS` whole, the rest slim."""
    if len(calls) <= FULL_CALLS:
        return tuple(calls)
    return (*calls[:FULL_CALLS], *(call.slim() for call in calls[FULL_CALLS:]))


def from_reply(request: Mapping[str, Any], reply: Mapping[str, Any]) -> LlmCall:
    """A call traced from what a runner handler answered when it gave no :class:`LlmCall` itself
    (handlers written for tests, or the runner's own refusals)."""
    instructions = request.get("instructions")
    text = request.get("input")
    given = reply.get("usage")
    usage: Mapping[str, Any] = given if isinstance(given, Mapping) else {}
    error = reply.get("error")
    answer = reply.get("text")
    numbers: dict[str, Any] = {}
    for name, kind in (("prompt_tokens", int), ("completion_tokens", int), ("latency_ms", float)):
        value = usage.get(name)
        if isinstance(value, int | float) and not isinstance(value, bool):
            numbers[name] = kind(value)
    cost = usage.get("cost_usd")
    if isinstance(cost, int | float) and not isinstance(cost, bool):
        numbers["cost_usd"] = float(cost)
    numbers.setdefault("elapsed_ms", numbers.get("latency_ms", 0.0))
    if error:
        numbers["error"] = str(error)
        numbers["error_kind"] = str(reply.get("error_kind") or "LlmError")
    return LlmCall.make(
        instructions if isinstance(instructions, str) else repr(instructions),
        text if isinstance(text, str) or text is None else repr(text),
        None if error else (answer if isinstance(answer, str) else None),
        **numbers,
    )
