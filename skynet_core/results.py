"""The typed values where the contract check, the runner, the pages and the CLI meet.

Invariants a reader can rely on:

- A :class:`CheckReport` always lists the four stages in contract order
  (``load``, ``signature``, ``reward_spec``, ``return_value``). A stage after a
  failed one is ``not_run``; ``reward_spec`` is ``skipped`` when metric.py
  defines no ``REWARD_SPEC``.
- A :class:`CaseResult` never raises for one bad case: whatever the metric did
  (raised, hung, crashed, returned a bad value) is its ``status`` and ``error``.
  ``score`` is a finite float exactly when ``status`` is ``ok``.
- Higher scores are better.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

import orjson

from .i18n import N_, _
from .trace import LlmCall


class StageName(StrEnum):
    LOAD = "load"
    SIGNATURE = "signature"
    REWARD_SPEC = "reward_spec"
    RETURN_VALUE = "return_value"

    @property
    def label(self) -> str:
        """The label people see (contract Part B rule 6)."""
        return _(_STAGE_LABELS[self])


_STAGE_LABELS = {
    StageName.LOAD: N_("load"),
    StageName.SIGNATURE: N_("signature"),
    StageName.REWARD_SPEC: N_("reward spec"),
    StageName.RETURN_VALUE: N_("metric return value"),
}

STAGE_ORDER = (StageName.LOAD, StageName.SIGNATURE, StageName.REWARD_SPEC, StageName.RETURN_VALUE)


class StageStatus(StrEnum):
    PASSED = "passed"
    FAILED = "failed"
    SKIPPED = "skipped"
    NOT_RUN = "not_run"


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


class Isolation(StrEnum):
    """How strongly metric code was isolated.

    ``full``: bubblewrap sandbox, unprivileged user, no network, only the
    Python files it needs visible. ``reduced``: a separate, resource-limited
    process group with a scrubbed environment, but sharing the file system
    and (possibly) the network with the server.
    """

    FULL = "full"
    REDUCED = "reduced"


@dataclass(frozen=True)
class Stage:
    """One stage's verdict. ``line`` is the line in ``file`` (metric.py unless the error comes
    from another file of the metric folder, such as ``helpers.py``) and ``case_id`` the case the
    message is about, where they apply."""

    name: StageName
    status: StageStatus
    message: str = ""
    line: int | None = None
    case_id: str | None = None
    file: str = "metric.py"
    # A passed stage's caveat for people (e.g. a REWARD_SPEC that nothing passes to reward()); not a failure.
    warning: str = ""

    @property
    def label(self) -> str:
        return self.name.label

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name.value,
            "label": self.label,
            "status": self.status.value,
            "message": self.message,
            "line": self.line,
            "case_id": self.case_id,
            "file": self.file,
            "warning": self.warning,
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
    # The trace of the metric's llm() calls (skynet_core.trace), read as ``llm_calls``. Private to orjson,
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


SHOWN_CASES = 20
_OK = CaseStatus.OK


@dataclass
class RunTally:
    """What a report needs from a run's results without holding them: counts by status,
    the mean of the scores, the judge's totals, and the first few cases (all of them and the
    failed ones, up to ``SHOWN_CASES`` each) for a text report. Fed in case order."""

    total: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    scored: int = 0
    score_sum: float = 0.0
    judge_calls: int = 0
    judge_ms: float = 0.0
    judge_cost_usd: float | None = None
    judge_unpriced: int = 0
    judge_failed: int = 0
    judge_errors: dict[str, int] = field(default_factory=dict)
    judge_cached: int = 0  # calls answered by the answer cache (no model call, no cost)
    first: list[CaseResult] = field(default_factory=list)
    failures: list[CaseResult] = field(default_factory=list)
    failed: int = 0

    def add(self, result: CaseResult) -> None:
        self.total += 1
        by_status = self.by_status
        # Not .value for every case: an enum's property (or hash) costs more than the rest of this line.
        if result.status is _OK:
            by_status["ok"] = by_status.get("ok", 0) + 1
            score = result.score
            if score is not None:
                self.scored += 1
                self.score_sum += score
        else:
            status = result.status.value
            by_status[status] = by_status.get(status, 0) + 1
            self.failed += 1
            if len(self.failures) < SHOWN_CASES:
                self.failures.append(result)
        if self.total <= SHOWN_CASES:
            self.first.append(result)
        judge = result.judge
        if judge.calls:
            self.judge_calls += judge.calls
            self.judge_ms += judge.latency_ms
            calls = result._llm_calls
            if calls:
                answered = 0
                for call in calls:
                    if call.cached:
                        self.judge_cached += 1
                    if call.ok:
                        answered += 1
                    else:
                        self.judge_failed += 1
                        kind = call.error_kind or "LlmError"
                        self.judge_errors[kind] = self.judge_errors.get(kind, 0) + 1
                if answered and any(call.ok and call.cost_usd is None for call in calls):
                    self.judge_unpriced += 1
            elif judge.cost_usd is None:  # a result kept before calls were traced
                self.judge_unpriced += 1
        if judge.cost_usd is not None:
            self.judge_cost_usd = (self.judge_cost_usd or 0.0) + judge.cost_usd

    @property
    def mean(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None

    @property
    def first_failure(self) -> CaseResult | None:
        return self.failures[0] if self.failures else None


@dataclass
class CheckReport:
    """The result of the contract check: the stages in order, the sampled
    cases' results, and the isolation level the run had. ``tally`` sums the
    cases up; it is all there is of them when the run streamed its results
    instead of keeping them (``cases`` then empty)."""

    stages: list[Stage]
    cases: list[CaseResult] = field(default_factory=list)
    isolation: Isolation = Isolation.REDUCED
    duration_ms: float = 0.0
    tally: RunTally = field(default_factory=RunTally)

    @property
    def ok(self) -> bool:
        return all(stage.status in (StageStatus.PASSED, StageStatus.SKIPPED) for stage in self.stages)

    def stage(self, name: StageName | str) -> Stage:
        name = StageName(name)
        return next(stage for stage in self.stages if stage.name is name)

    @property
    def first_failure(self) -> Stage | None:
        return next((stage for stage in self.stages if stage.status is StageStatus.FAILED), None)

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "isolation": self.isolation.value,
            "stages": [stage.to_json() for stage in self.stages],
            "cases": [case.to_json() for case in self.cases],
        }


class JobKind(StrEnum):
    """What a background job runs; ``label`` names it for people (the progress line, the running-jobs list)."""

    CHECK = "check"
    SCORE = "score"
    TRY = "try"
    CONSISTENCY = "consistency"
    COMPARE = "compare"
    PROBES = "probes"
    GRADE = "grade"
    TRY_JUDGE = "try judge"
    TRADEOFFS = "trade-offs"
    UPLIFT = "uplift"

    @property
    def label(self) -> str:
        return _(_JOB_LABELS[self])


_JOB_LABELS = {
    JobKind.CHECK: N_("contract check"),
    JobKind.SCORE: N_("scoring"),
    JobKind.TRY: N_("case try-out"),
    JobKind.CONSISTENCY: N_("judge consistency"),
    JobKind.COMPARE: N_("comparison"),
    JobKind.PROBES: N_("feedback probes"),
    JobKind.GRADE: N_("feedback grading"),
    JobKind.TRY_JUDGE: N_("judge trial"),
    JobKind.TRADEOFFS: N_("reward trade-offs"),
    JobKind.UPLIFT: N_("feedback uplift"),
}


class ErrorKind(StrEnum):
    """Why a job could not run, as a type (never a prefix of its error text).

    ``cluster``: the Ray cluster cannot be used (its message says what to do); ``model``: the model a job
    needs could not be asked; ``internal``: anything else, a fault of ours (try again, restart the app).
    """

    CLUSTER = "cluster"
    MODEL = "model"
    INTERNAL = "internal"


class JobError(Exception):
    """A job that cannot run for a reason people can act on: its ``kind`` and a message for them."""

    def __init__(self, kind: ErrorKind, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class OutcomeStatus(StrEnum):
    """Where a job is: still ``running``; ``cancelled`` (by a person, a newer job, or nobody watching);
    ``could_not_run`` (the job failed before or around the metric: see ``ErrorKind``); ``metric_broken``
    (metric.py failed a stage before any case ran, so no case was scored); ``scored`` (it finished)."""

    RUNNING = "running"
    CANCELLED = "cancelled"
    COULD_NOT_RUN = "could_not_run"
    METRIC_BROKEN = "metric_broken"
    SCORED = "scored"


@dataclass(frozen=True)
class Outcome:
    """A job's state read once, the one way every page reads it (see ``Job.outcome``).

    Invariants: ``results`` are the cases scored so far, in the order they came (for a finished scoring
    job, in case order); ``failure`` is set exactly when ``status`` is ``metric_broken``; ``error_kind`` and
    ``error`` exactly when it is ``could_not_run`` (``error`` is for people when the kind is ``cluster`` or
    ``model``, a detail for a bug report when it is ``internal``). :meth:`message` is the one sentence
    for people, translated, naming the job by its kind.
    """

    kind: JobKind
    status: OutcomeStatus
    done: int = 0
    total: int = 0
    results: tuple[CaseResult, ...] = ()
    failure: Stage | None = None
    error_kind: ErrorKind | None = None
    error: str = ""

    @property
    def finished(self) -> bool:
        return self.status is not OutcomeStatus.RUNNING

    def message(self) -> str:
        """What happened, for people ("" for a job that scored: its results say it)."""
        what = self.kind.label
        if self.status is OutcomeStatus.RUNNING:
            text = _("{what}… {done} of {total}").format(what=what, done=self.done, total=self.total)
        elif self.status is OutcomeStatus.CANCELLED:
            text = (
                _("{what} was cancelled after {done} of {total} cases; what ran is shown.")
                if self.results
                else _("{what} was cancelled.")
            ).format(what=what, done=len(self.results), total=self.total)
        elif self.status is OutcomeStatus.COULD_NOT_RUN:
            if self.error_kind is ErrorKind.INTERNAL:
                text = _("{what} could not run. Try again; if it repeats, restart the app.").format(what=what)
            else:
                text = self.error
        elif self.status is OutcomeStatus.METRIC_BROKEN and self.failure is not None:
            failure = self.failure
            text = (
                _("No case was scored: metric.py fails at {stage} ({file} line {line}).")
                if failure.line
                else _("No case was scored: metric.py fails at {stage}.")
            ).format(stage=failure.label, file=failure.file, line=failure.line)
        else:
            return ""
        return text[:1].upper() + text[1:]
