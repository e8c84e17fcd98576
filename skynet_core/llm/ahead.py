"""Answers sent ahead with a batch of cases: the cached answers of the calls each case made last time, sealed
by their requests (``skynet_core.scoring.sandbox.sealed``), so that scoring again after an edit that left the calls
alone answers them inside the sandbox, without a round trip to the studio for each.

What the studio trusts of the sandbox's report of the answers it took (``[position, ms]`` each): only that a
call was made. Each answer taken is traced from what the studio itself recorded when the call was asked (the
request's texts and the answer, redacted and clipped), never from texts the sandbox sends back; a report
that names nothing sent, or one answer twice, is refused as a forged message. The worst a metric can do is
leave a call it made out of its own case's trace, or put in one it did not make; neither costs anything,
and a call's cost and the run's spend come only from calls the studio made.

Everything a case's record needs is computed once, when the call is asked (:func:`recorded_call`): a batch
sent again only looks its cases up, and a case that made the same calls again leaves its record as it was.

Whose answers are sent: only the metric's own. A recorded call goes with a case when the metric being run
is the one that made it (its folder's digest) or holds its instructions as a string of its own
(:func:`metric_prompts`: an edit that left the prompt alone). Another metric scored on the same cases, one
that never calls the model included, is sent nothing, so it cannot learn from what it holds (the sealed
answers' number and lengths) anything of another metric's verdicts; and every sealed answer is padded
(``sealed.bucket_bytes``), so even a metric's own say nothing by their length.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Collection, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from ..metric.needs import string_literals
from ..metric.source import MetricSource
from ..results.trace import LlmCall
from ..scoring.sandbox.sealed import lookup_id, seal, seal_key
from .cache import CachedAnswer, CaseCalls, RecordedCall

if TYPE_CHECKING:
    from .handler import MetricLlm

MAX_LOOKUP_MS = 60_000.0
"""A reported lookup time is taken as at most this (it is the sandbox's word, shown in the trace only)."""


def fingerprint(payload: bytes | memoryview) -> bytes:
    """The case a payload (the JSON the sandbox is sent for it) is, as the record of its calls knows it."""
    return hashlib.blake2b(payload, digest_size=16).digest()


def prompt_digest(instructions: str) -> bytes:
    """What a recorded call keeps of its instructions, to tell which metrics hold them (:func:`metric_prompts`)."""
    return hashlib.blake2b(instructions.encode("utf-8", "surrogatepass"), digest_size=16).digest()


@functools.lru_cache(maxsize=16)
def metric_prompts(metric: MetricSource) -> frozenset[bytes]:
    """The digests (:func:`prompt_digest`) of every text the metric folder holds as its own: the string constants
    of its Python files, and its other files whole and line by line."""
    texts: set[str] = set()
    for name, text in metric.files.items():
        if name.endswith(".py"):
            texts.update(string_literals(text))
        else:
            texts.update((text, text.strip(), *(line.strip() for line in text.splitlines())))
    return frozenset(prompt_digest(text) for text in texts if text)


def recorded_call(
    trace: LlmCall, answer: CachedAnswer, request: bytes, answer_key: str, first_key: str, instructions: str
) -> RecordedCall:
    """What a case's record keeps of a call that got ``answer`` (``trace``: the call's; ``request``: its
    ``sealed.request_bytes``; ``instructions``: the call's, whole): sealed once, here, and traced as a call
    answered from the cache."""
    cached = replace(trace, prompt_tokens=0, completion_tokens=0, cost_usd=0.0, retries=0, cached=True)
    sealed = seal(answer.text, seal_key(request))
    return RecordedCall(lookup_id(request), sealed, answer, answer_key, first_key, cached, prompt_digest(instructions))


class AheadBatch:
    """One request of cases: the answers sent ahead with it (:attr:`wire`), the calls each of its cases makes
    this time, and, as each case ends, those calls kept as the case's record (the runner's ``CallsAhead``).
    Used by one worker's thread.

    ``payloads`` are the cases' JSON as sent, by position in the request; a case's fingerprint is computed
    only when the record is asked about it (a first run records only the cases that call ``llm()``).
    ``metric`` is the metric folder being run: only its own recorded calls are sent (see the module's
    docstring), and the calls its cases make are recorded as its.
    """

    def __init__(
        self,
        handler: MetricLlm,
        calls: CaseCalls,
        scope: str,
        payloads: Sequence[bytes | memoryview],
        metric: MetricSource,
    ):
        self._handler, self._calls, self._scope, self._payloads = handler, calls, scope, payloads
        self._metric = metric
        self._prints: list[bytes] | None = None
        self._recorded: dict[int, tuple[RecordedCall, ...]] = {}  # what the record held of each case
        self._sent: dict[int, tuple[RecordedCall, ...]] = {}
        self._made: dict[int, list[RecordedCall]] = {}
        self.wire = self._seal_all() if len(calls) else None

    @property
    def on_record(self) -> Collection[int]:
        """The positions of the cases whose calls last time are on record (whatever the cache still holds)."""
        return self._recorded.keys()

    def _print(self, position: int) -> bytes:
        if self._prints is None:
            self._prints = [fingerprint(payload) for payload in self._payloads]
        return self._prints[position]

    def _seal_all(self) -> dict[str, list[list[str]]] | None:
        """The sealed answers by case position (as text, for JSON) of the calls the record lists whose
        answers the cache still holds in memory; at most the calls a case may make."""
        cache = self._handler.cache
        assert cache is not None
        cap = self._handler.settings.max_calls_per_case
        self._prints = [fingerprint(payload) for payload in self._payloads]
        records = self._calls.of_many(self._scope, self._prints)
        self._recorded = {position: recorded for position, recorded in enumerate(records) if recorded}
        digest, prompts = self._metric.digest, metric_prompts(self._metric)
        listed = [
            (position, call)
            for position, recorded in self._recorded.items()
            for call in [call for call in recorded if call.made_by == digest or call.prompt in prompts][:cap]
        ]
        held = cache.remembered_many([call.answer_key for _, call in listed])
        sent: dict[int, list[RecordedCall]] = {}
        for (position, call), answer in zip(listed, held, strict=True):
            if answer is call.answer or (answer is not None and answer.text == call.answer.text):
                sent.setdefault(position, []).append(call)
        self._sent = {position: tuple(calls) for position, calls in sent.items()}
        wire = {str(position): [[call.lookup, call.sealed] for call in calls] for position, calls in sent.items()}
        return wire or None

    def used(self, position: int, reported: Any, case: int | None) -> list[LlmCall]:
        """The traces of the answers the case at ``position`` took, as the sandbox reported them (``[[index,
        ms], …]``), in order. ``case``: the runner's number for the case (``LlmRequest.case``) when it goes on
        to ask the studio (the answers taken then count among its identical calls), else None. Raises
        ``ValueError`` for a report that names an answer not sent, or one already taken."""
        if type(reported) is not list:
            raise ValueError("the answers taken are not a list")
        sent = self._sent.get(position, ())
        made = self._made.get(position)
        if made is None:
            made = self._made[position] = []
        traces = []
        for item in reported:
            if type(item) is not list or len(item) != 2:
                raise ValueError("an answer taken is not [index, ms]")
            index, ms = item
            if type(index) is not int or not 0 <= index < len(sent) or type(ms) not in (int, float):
                raise ValueError("an answer taken was not sent")
            call = sent[index]
            if any(other is call for other in made):
                raise ValueError("an answer was taken twice")
            made.append(call)
            if case is not None:
                self._handler.count_repeat(case, call.first_key)
            traces.append(call.trace.with_latency(min(max(float(ms), 0.0), MAX_LOOKUP_MS)))
        return traces

    def made(self, position: int, recorded: RecordedCall) -> None:
        """A call the case at ``position`` made through the studio, which got an answer: the metric's own."""
        self._made.setdefault(position, []).append(replace(recorded, made_by=self._metric.digest))

    def done(self, position: int) -> None:
        """The case at ``position`` ended: its calls this time become its record (left as it was when they are
        the calls it made last time)."""
        made = self._made.pop(position, ())
        before = self._recorded.get(position, ())
        if len(made) != len(before) or any(now is not then for now, then in zip(made, before, strict=True)):
            self._calls.keep(self._scope, self._print(position), tuple(made))
