"""An answer as the cache keeps it, and where an answer came from."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum

import orjson


@dataclass(frozen=True)
class CachedAnswer:
    """An answer as kept: the (redacted) text, the model that gave it, and what the call that made it took
    (tokens, cost in USD, latency in ms): shown for information, never counted again."""

    text: str
    model: str = ""
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None
    latency_ms: float = 0.0

    def to_json(self) -> bytes:
        return orjson.dumps(
            {
                "text": self.text,
                "model": self.model,
                "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens,
                "cost_usd": self.cost_usd,
                "latency_ms": self.latency_ms,
            }
        )

    @classmethod
    def from_json(cls, data: bytes | str) -> CachedAnswer | None:
        """The answer :meth:`to_json` wrote, or None when the stored text is not one (then it is a miss)."""
        try:
            value = orjson.loads(data)
        except orjson.JSONDecodeError:
            return None
        if not isinstance(value, dict) or not isinstance(value.get("text"), str):
            return None

        def number(name: str) -> float:
            item = value.get(name)
            return float(item) if isinstance(item, int | float) and not isinstance(item, bool) else 0.0

        cost = value.get("cost_usd")
        return cls(
            value["text"],
            str(value.get("model") or ""),
            int(number("prompt_tokens")),
            int(number("completion_tokens")),
            float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
            number("latency_ms"),
        )


class Source(Enum):
    """Where :meth:`LlmCache.answer`'s answer came from."""

    PROVIDER = "provider"  # this call asked the model
    CACHE = "cache"  # an answer stored earlier
    SHARED = "shared"  # an identical call in flight at the same moment asked the model; this one waited for it

    @property
    def cached(self) -> bool:
        """Whether no model call was made for this answer."""
        return self is not Source.PROVIDER
