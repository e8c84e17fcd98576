"""What makes two ``llm()`` calls the same call: the fields of an answer's key, and identical calls counted
within a case."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import orjson

KEY_VERSION = 1
"""Part of every key: a change in what a key means (or how an answer is stored) starts a fresh cache."""
KEYED_PARAMETERS = frozenset({"model", "api_base", "messages", "temperature", "mock_response"})
"""``complete``'s litellm parameters that are in the key (``messages`` as the instructions and the input)."""
NEUTRAL_PARAMETERS = frozenset({"api_key", "timeout", "num_retries", "drop_params"})
"""``complete``'s litellm parameters left out of the key: the credentials (never stored, never keyed), how
long to wait and how often to retry (they change whether an answer comes, not which), and ``drop_params``
(always on)."""
REPEATS_KEPT = 65_536
"""How many (case, request) pairs :class:`Repeats` remembers (cases that finished long ago fall out)."""


@dataclass(frozen=True)
class AnswerRequest:
    """What makes two ``llm()`` calls the same call: the fields of an answer's key.

    ``api_base`` is compared without a trailing slash; ``repeat`` counts the identical calls the same case
    made before this one (0 for the first).
    """

    model: str
    api_base: str | None
    instructions: str
    input: str | None
    temperature: float
    mock_response: str | None = None
    repeat: int = 0

    def key(self) -> str:
        """The SHA-256 of the fields (hex): the cache's primary key. No text of the request is stored."""
        import hashlib  # here, not at the top: the command line imports this module and rarely needs it

        base = self.api_base.rstrip("/") if self.api_base else None
        fields = [
            KEY_VERSION,
            self.model,
            base,
            self.instructions,
            self.input,
            float(self.temperature),
            self.mock_response,
            self.repeat,
        ]
        return hashlib.sha256(orjson.dumps(fields)).hexdigest()


class Repeats:
    """Counts identical calls within a case: :meth:`take` says how many calls the case ``case`` made with
    the same request before this one. Bounded (:data:`REPEATS_KEPT`); thread-safe. ``case`` 0 means the
    case is not known (a handler called outside the runner): every call is then a first."""

    def __init__(self, kept: int = REPEATS_KEPT) -> None:
        self._kept = kept
        self._seen: OrderedDict[tuple[int, str], int] = OrderedDict()
        self._lock = threading.Lock()

    def peek(self, case: int, request: str) -> int:
        """What :meth:`take` would say, without counting this call."""
        if not case:
            return 0
        with self._lock:
            return self._seen.get((case, request), 0)

    def take(self, case: int, request: str) -> int:
        if not case:
            return 0
        with self._lock:
            seen = self._seen.pop((case, request), 0)
            self._seen[(case, request)] = seen + 1
            while len(self._seen) > self._kept:
                self._seen.popitem(last=False)
        return seen
