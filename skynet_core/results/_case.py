"""One case's outcome: its status, the judge's usage summed over its ``llm()`` calls, and the result."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

import orjson

from ..i18n import N_, _
from .trace import LlmCall


class CaseStatus(StrEnum):
    """``ok``: a valid pair; ``error``: score raised or the child crashed;
    ``timeout``: the call outlived the timeout; ``invalid``: the returned value
    breaks the contract."""

    OK = "ok"
    ERROR = "error"
    TIMEOUT = "timeout"
    INVALID = "invalid"

    @property
    def word(self) -> str:
        """What people read for this status, in the current language ("timed out", "超时")."""
        return _(CASE_WORDS[self])


CASE_WORDS = {
    CaseStatus.OK: N_("ok"),
    CaseStatus.ERROR: N_("error"),
    CaseStatus.TIMEOUT: N_("timed out"),
    CaseStatus.INVALID: N_("invalid"),
}


@dataclass(frozen=True, slots=True)
class JudgeUsage:
    """What the metric's ``llm`` calls cost for one case (summed over calls).

    ``calls`` counts every call the metric made, the failed ones too (their
    trace says which failed and why: ``CaseResult.llm_calls``); tokens and cost
    come from the answered calls. A value: the results of cases that made no
    call share :data:`NO_CALLS` (making one for each was a quarter of a
    result's making).
    """

    calls: int = 0
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def plus(self, latency_ms: float, prompt_tokens: int, completion_tokens: int, cost_usd: float | None) -> JudgeUsage:
        """This usage and one more call."""
        return JudgeUsage(
            self.calls + 1,
            self.latency_ms + latency_ms,
            self.prompt_tokens + prompt_tokens,
            self.completion_tokens + completion_tokens,
            self.cost_usd if cost_usd is None else (self.cost_usd or 0.0) + cost_usd,
        )

    @classmethod
    def of_calls(cls, calls: Sequence[LlmCall]) -> JudgeUsage:
        """The sums over one case's traced calls."""
        if len(calls) == 1:  # most judges make one call a case
            call = calls[0]
            return cls(1, call.latency_ms, call.prompt_tokens, call.completion_tokens, call.cost_usd)
        usage = cls()
        for call in calls:
            usage = usage.plus(call.latency_ms, call.prompt_tokens, call.completion_tokens, call.cost_usd)
        return usage


NO_CALLS = JudgeUsage()
"""The usage of a case whose metric made no ``llm`` call."""


@dataclass(slots=True)
class CaseResult:
    """The outcome of calling ``score`` on one case.

    ``scores`` holds the named scores, ``extra`` the side-information keys other
    than ``feedback`` and ``scores`` (allowed and shown, Part B rule 3).
    ``stdout`` is what the metric printed during the call (capped: head and
    tail kept). ``line`` is the line of the error in ``file`` (metric.py unless the error
    comes from another file of the metric folder), where known.
    """

    id: str
    split: str = "train"
    status: CaseStatus = CaseStatus.OK
    score: float | None = None
    scores: dict[str, float] = field(default_factory=dict)
    feedback: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    error: str = ""
    duration_ms: float = 0.0
    stdout: str = ""
    line: int | None = None
    candidate: str = ""
    judge: JudgeUsage = NO_CALLS
    file: str = "metric.py"
    # The trace of the metric's llm() calls (skynet_core.results.trace), read as ``llm_calls``. Private to orjson,
    # which leaves fields starting with "_" out: the bulk writes of cases that made no call stay as they were.
    _llm_calls: tuple[LlmCall, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status is CaseStatus.OK

    @property
    def llm_calls(self) -> tuple[LlmCall, ...]:
        """Every ``llm()`` call the metric made for this case, in order (empty when it made none)."""
        return self._llm_calls

    def to_json(self) -> dict[str, Any]:
        """The result as JSON; ``llm_calls`` (each :meth:`LlmCall.to_json`) only when the metric made calls."""
        data = asdict(self)
        del data["_llm_calls"]
        data["status"] = self.status.value
        if self._llm_calls:
            data["llm_calls"] = [call.to_json() for call in self._llm_calls]
        return data

    def to_json_bytes(self, trace: bool = False) -> bytes:
        """``to_json()`` encoded (same keys in the same order), for the CLI's and exports' bulk writes.
        The ``llm_calls`` trace is left out unless ``trace`` (the command line's ``--trace``).

        Built from a dict of the fields, not by orjson reading the dataclass: orjson reads a slots
        dataclass field by field through getattr, four times slower than a dict (2 µs of a
        result's 3 went on ``judge`` alone), and most results share the empty judge's JSON."""
        judge = self.judge
        data: dict[str, Any] = {
            "id": self.id,
            "split": self.split,
            "status": self.status,
            "score": self.score,
            "scores": self.scores,
            "feedback": self.feedback,
            "extra": self.extra,
            "error": self.error,
            "duration_ms": self.duration_ms,
            "stdout": self.stdout,
            "line": self.line,
            "candidate": self.candidate,
            "judge": _NO_JUDGE
            if judge is NO_CALLS
            or (
                not (judge.calls or judge.latency_ms or judge.prompt_tokens or judge.completion_tokens)
                and judge.cost_usd is None
            )
            else _judge_dict(judge),
            "file": self.file,
        }
        if trace and self._llm_calls:
            data["llm_calls"] = self._llm_calls
        try:
            return orjson.dumps(data)
        except orjson.JSONEncodeError:
            # Side information with keys that are not strings (made in this process, not read from the sandbox's
            # JSON): encoded as their text. Not the option for every result: it makes each encoding a third slower.
            return orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> CaseResult:
        data = dict(data)
        data["status"] = CaseStatus(data["status"])
        data["judge"] = JudgeUsage(**data.get("judge") or {})
        calls = data.pop("llm_calls", None)
        data.pop("_llm_calls", None)
        if isinstance(calls, list) and calls:
            data["_llm_calls"] = tuple(LlmCall.from_json(call) for call in calls if isinstance(call, dict))
        return cls(**data)


_NO_JUDGE = orjson.Fragment(orjson.dumps(asdict(JudgeUsage())))  # a result whose metric made no llm() call


def _judge_dict(judge: JudgeUsage) -> dict[str, Any]:
    return {
        "calls": judge.calls,
        "latency_ms": judge.latency_ms,
        "prompt_tokens": judge.prompt_tokens,
        "completion_tokens": judge.completion_tokens,
        "cost_usd": judge.cost_usd,
    }
