"""Which ``llm()`` calls each case made the last time it was scored, so that their cached answers can be sent
ahead with the case the next time (``skynet_core.scoring.sandbox.sealed``)."""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass

from ...results.trace import LlmCall
from ._answer import CachedAnswer

CASES_KEPT = 100_000
"""The most cases whose calls a process remembers (the least recently scored go first)."""
TEXT_KEPT = 16_000_000
"""The most characters those records hold (:attr:`RecordedCall.size`)."""


@dataclass(frozen=True)
class RecordedCall:
    """One call a case made that got an answer: what is sent ahead for it, and its trace when it is taken.

    ``lookup`` is the request's id and ``sealed`` its answer sealed by the request (``sealed.lookup_id``,
    ``sealed.seal``): the pair the sandbox is sent. ``answer`` is the answer sealed, sent only while the cache
    holds it under ``answer_key``; ``first_key`` is the cache's key of the same request's first call in a case
    (``Repeats`` counts by it). ``trace`` is the call's trace as answered from the cache (cost 0), its texts
    redacted and clipped; taken ahead, it gets the lookup's latency. Whose it is: ``prompt`` is a digest of
    its instructions and ``made_by`` the digest of the metric folder that made it (``""`` until a case's
    record keeps it); only a metric with that digest, or whose text holds those instructions, is sent it.
    """

    lookup: str
    sealed: str
    answer: CachedAnswer
    answer_key: str
    first_key: str
    trace: LlmCall
    prompt: bytes = b""
    made_by: str = ""

    @property
    def size(self) -> int:
        """What the record holds of it, in characters (its traced texts, its answer twice, its keys)."""
        trace = self.trace
        return len(trace.instructions) + len(trace.input or "") + len(trace.answer or "") + len(self.sealed) + 300


class CaseCalls:
    """The calls each case made when it was last scored, by the run's ``scope`` (what makes the same calls
    get the same answers: the model, its server, the temperature, the keys) and the case's ``fingerprint`` (its
    payload's digest). Bounded by :data:`CASES_KEPT` and :data:`TEXT_KEPT`; held in memory only; thread-safe."""

    def __init__(self, cases: int = CASES_KEPT, text: int = TEXT_KEPT) -> None:
        self._cases, self._text = cases, text
        self._calls: OrderedDict[tuple[str, bytes], tuple[RecordedCall, ...]] = OrderedDict()
        self._held = 0
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._calls)

    def of(self, scope: str, fingerprint: bytes) -> tuple[RecordedCall, ...]:
        """The calls the case made last time in ``scope`` (none when it was not scored, or was forgotten)."""
        with self._lock:
            return self._calls.get((scope, fingerprint), ())

    def of_many(self, scope: str, fingerprints: Sequence[bytes]) -> list[tuple[RecordedCall, ...]]:
        """:meth:`of` for each of ``fingerprints``, at once."""
        with self._lock:
            calls = self._calls
            return [calls.get((scope, fingerprint), ()) for fingerprint in fingerprints]

    def keep(self, scope: str, fingerprint: bytes, calls: tuple[RecordedCall, ...]) -> None:
        """Remember ``calls`` as the case's latest (forgetting its calls before, and the oldest cases past the
        bound)."""
        key = (scope, fingerprint)
        with self._lock:
            old = self._calls.pop(key, ())
            self._held -= sum(call.size for call in old)
            if calls:
                self._calls[key] = calls
                self._held += sum(call.size for call in calls)
            while self._calls and (len(self._calls) > self._cases or self._held > self._text):
                self._held -= sum(call.size for call in self._calls.popitem(last=False)[1])

    def clear(self) -> None:
        with self._lock:
            self._calls.clear()
            self._held = 0
