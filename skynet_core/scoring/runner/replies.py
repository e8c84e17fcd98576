"""The child's reply to one case, made a :class:`CaseResult`: it is untrusted (metric code writes into it), so
anything off-shape is refused, bounded or named as the metric's fault."""

from __future__ import annotations

import math
from typing import Any

from ...cases import Case
from ...i18n import _
from ...metric.packages import missing_module_hint
from ...metric.source import MAIN_FILE, MetricSource, MetricSourceError, check_name
from ...results import NO_CALLS, CaseResult, CaseStatus, JudgeUsage
from ...results.overflow import SIDE_KEEP_BYTES, bound_side_information
from ...results.trace import LlmCall, bounded
from ..sandbox.returns import MAX_NAMED_SCORES

MAX_NAME_CHARS = 255
MAX_DURATION_MS = 3_600_000.0  # an honest call ends within the 600 s timeout; beyond an hour is forged
_ABSENT: Any = object()  # a key the child's reply leaves out
_OK = CaseStatus.OK


def file_of(reply: dict[str, Any]) -> str:
    """The metric folder's file the child's reply names (metric.py when it names none)."""
    return clean_file(reply.get("file"))


def clean_file(file: Any) -> str:
    """``file`` when it is a Python file a metric folder could hold, else metric.py: the name comes
    from the child, which metric code controls."""
    if not isinstance(file, str) or not file.endswith(".py") or len(file) > MAX_NAME_CHARS:
        return MAIN_FILE
    try:
        return check_name(file)
    except MetricSourceError:
        return MAIN_FILE


def where(file: str, line: int | None) -> str:
    """``metric.py line 3`` or ``helpers.py line 12``: how messages name a place in the metric folder."""
    return _("{file} line {line}").format(file=file, line=line) if line else file


def timeout_message(timeout: float, line: int | None, what: str = "score", file: str = MAIN_FILE) -> str:
    """What a call that outlived the metric timeout says; ``what`` is "score" or "loading metric.py"."""
    fix = _("Look for an endless loop or a slow call, or raise the timeout (at most 600 s)")
    if what == "loading metric.py":
        message = (
            _("loading metric.py did not finish within {timeout} s, stuck at {where}; it was stopped. {fix}")
            if line
            else _("loading metric.py did not finish within {timeout} s; it was stopped. {fix}")
        )
    else:
        message = (
            _("score did not finish within {timeout} s, stuck at {where}; it was stopped. {fix}")
            if line
            else _("score did not finish within {timeout} s; it was stopped. {fix}")
        )
    return message.format(timeout=f"{timeout:g}", where=where(file, line), fix=fix)


def reply_to_result(case: Case, reply: dict[str, Any], source: MetricSource | None = None) -> CaseResult:
    """Turn the child's (untrusted) reply into a CaseResult, refusing anything off-shape."""
    # Built in one call on the ok path: this runs once per case, and a million cases notice every step.
    # The usual reply first: a float score and a short feedback, nothing else (the checks below, unrolled).
    score, duration, feedback = reply.get("score"), reply.get("duration_ms"), reply.get("feedback")
    calls = reply.get("judge")  # the worker's trace of this case's llm() calls (never the child's)
    if (
        type(score) is float
        and type(duration) is float
        and type(feedback) is str
        and reply.get("status") == "ok"
        and "scores" not in reply
        and "extra" not in reply
        and "stdout" not in reply
        and math.isfinite(score)
        and 0.0 <= duration <= MAX_DURATION_MS
        and len(feedback) <= SIDE_KEEP_BYTES // 4
    ):
        # Positional: keyword matching costs more than the rest of this construction.
        if not calls:
            return CaseResult(case.id, case.split, _OK, score, {}, feedback, {}, "", duration, "", None, case.candidate)
        judge, traced = judge_usage(calls)
        return CaseResult(
            case.id, case.split, _OK, score, {}, feedback, {}, "", duration, "", None, case.candidate, judge,
            MAIN_FILE, traced,
        )  # fmt: skip
    duration = _finite(reply.get("duration_ms"))
    honest = duration is not None and 0.0 <= duration <= MAX_DURATION_MS  # else forged on the channel
    stdout = reply.get("stdout")
    judge, traced = judge_usage(calls) if calls else (NO_CALLS, ())
    base = CaseResult(
        id=case.id,
        split=case.split,
        candidate=case.candidate,
        duration_ms=duration if duration is not None and honest else 0.0,
        stdout=stdout if type(stdout) is str else "",
        judge=judge,
        _llm_calls=traced,
    )
    status = reply.get("status")
    if status == "ok":
        return _scored(base, reply, honest)
    return _failed(base, reply, status, source)


def _scored(base: CaseResult, reply: dict[str, Any], honest: bool) -> CaseResult:
    """``base`` (the case, its duration, stdout and judge) with the score and side information of an ``ok``
    reply off the fast path (named scores, side information, a long feedback); an error when anything in
    it is off-shape, or ``honest`` is false (the duration was forged on the channel)."""
    score = _finite(reply.get("score"))
    # The child leaves out empty named scores and side information (fewer bytes to parse, case after case).
    scores = reply.get("scores", _ABSENT)
    if scores is _ABSENT:
        scores = {}
    feedback = reply.get("feedback")
    extra = reply.get("extra", _ABSENT)
    if extra is _ABSENT:
        extra = {}
    if (
        honest
        and score is not None
        and type(feedback) is str
        and type(scores) is dict
        and type(extra) is dict
        and len(scores) <= MAX_NAMED_SCORES
        and (not scores or all(type(k) is str and _finite(v) is not None for k, v in scores.items()))
    ):
        result = base  # made for this reply alone: filled in place
        result.score = score
        result.scores = {key: float(value) for key, value in scores.items()} if scores else {}
        result.feedback, result.extra = feedback, extra
        # A short feedback and no other side information is within the size kept (a character is at most 4 bytes).
        return result if not extra and len(feedback) <= SIDE_KEEP_BYTES // 4 else bound_side_information(result)
    base.status = CaseStatus.ERROR
    base.error = "the runner received a malformed result for this case; was the channel tampered with?"
    return base


def _failed(base: CaseResult, reply: dict[str, Any], status: Any, source: MetricSource | None) -> CaseResult:
    """``base`` as a case that raised (``error``) or returned a value off the contract (``invalid``): the
    child's message, with where in the metric folder it happened and a hint for a missing module."""
    result = base
    result.status = CaseStatus.INVALID if status == "invalid" else CaseStatus.ERROR
    error = reply.get("error")
    result.error = error if isinstance(error, str) else _("score failed")
    detail = reply.get("detail")
    if isinstance(detail, str) and detail and detail not in result.error:
        result.error += "\n" + detail
    line = reply.get("line")
    result.line = line if isinstance(line, int) and not isinstance(line, bool) else None
    result.file = file_of(reply)
    missing = reply.get("missing_module")
    if isinstance(missing, str) and missing:
        first, *rest = result.error.split("\n", 1)
        result.error = "\n".join(
            [_("{error}. {hint}").format(error=first, hint=missing_module_hint(missing, source)), *rest]
        )
    if (
        result.line
        and where(result.file, result.line) not in (first_line := result.error.splitlines()[0])
        and (f"{result.file} line" not in first_line)
    ):
        first, *rest = result.error.split("\n", 1)
        result.error = "\n".join([f"{first} ({where(result.file, result.line)})", *rest])
    return result


def _finite(value: Any) -> float | None:
    kind = type(value)
    if kind is not float and kind is not int:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def judge_usage(calls: Any) -> tuple[JudgeUsage, tuple[LlmCall, ...]]:
    """One case's judge sums and its bounded trace, from the worker's list of :class:`LlmCall`."""
    traced = [call for call in calls if isinstance(call, LlmCall)] if isinstance(calls, list) else []
    return JudgeUsage.of_calls(traced), bounded(traced)


def failed_result(
    case: Case,
    status: CaseStatus,
    error: str,
    line: int | None = None,
    duration_ms: float = 0.0,
    stdout: str = "",
    file: str = MAIN_FILE,
) -> CaseResult:
    return CaseResult(
        id=case.id,
        split=case.split,
        candidate=case.candidate,
        status=status,
        error=error,
        line=line,
        duration_ms=duration_ms,
        stdout=stdout,
        file=file,
    )
