"""The contract check: load, signature, reward spec, and the return value on sampled cases.

Implements contract Part A and Part B rules 1-8. The stages run in order; a
stage after a failed one is reported ``not_run``. The check never raises for
anything metric.py does: every problem is a failed stage with a message that
names the metric.py line or the case, and the fix.
"""

from __future__ import annotations

import ast
import threading
import time

from .cases import Case
from .pysource import parse as parse_source
from .results import STAGE_ORDER, CaseResult, CaseStatus, CheckReport, Stage, StageName, StageStatus
from .reward_spec import reward_spec_line
from .runner.pool import WorkerPool, default_pool
from .runner.run import LoadFailure, ResultCallback, load_into, score_cases
from .runner.worker import Cancelled, LlmHandler
from .sandbox.returns import check_number, check_return, check_signature

__all__ = ["DEFAULT_TIMEOUT_S", "MAX_TIMEOUT_S", "MIN_TIMEOUT_S", "SAMPLE_SIZE", "check_metric", "check_number",
           "check_return", "check_signature", "reward_spec_line", "validate_timeout"]

DEFAULT_TIMEOUT_S = 60.0
MIN_TIMEOUT_S = 1.0
MAX_TIMEOUT_S = 600.0
SAMPLE_SIZE = 3


def validate_timeout(timeout: float) -> float:
    """The timeout in seconds, or ValueError when it is outside 1 to 600 s (Part B rule 8)."""
    try:
        value = float(timeout)
    except (TypeError, ValueError):
        raise ValueError(f"timeout must be a number of seconds from 1 to 600, not {timeout!r}") from None
    if not MIN_TIMEOUT_S <= value <= MAX_TIMEOUT_S:
        raise ValueError(f"timeout must be from 1 to 600 seconds; {value:g} s is outside that range")
    return value


def _report(stages: dict[StageName, Stage], started: float, pool: WorkerPool,
            cases: list[CaseResult] | None = None) -> CheckReport:
    ordered = [stages.get(name) or Stage(name, StageStatus.NOT_RUN) for name in STAGE_ORDER]
    return CheckReport(stages=ordered, cases=cases or [], isolation=pool.isolation,
                       duration_ms=(time.monotonic() - started) * 1000.0)


def check_metric(source: str, cases: list[Case], *, timeout: float = DEFAULT_TIMEOUT_S,
                 llm: LlmHandler | None = None, cancel: threading.Event | None = None,
                 pool: WorkerPool | None = None, sample: list[Case] | None = None, concurrency: int = 1,
                 on_result: ResultCallback | None = None, stop_on_timeout: bool = True) -> CheckReport:
    """Run the contract check of metric.py ``source`` on a sample of ``cases``.

    ``sample`` overrides the sampling (Part B rule 7) with chosen cases; the
    `score` command passes every case, with ``stop_on_timeout=False`` so that
    one hanging case does not hide the others' results.
    Raises ``Cancelled`` when ``cancel`` is set during the run; the caller
    asked for that and has a newer check coming.
    """
    timeout = validate_timeout(timeout)
    pool = pool or default_pool()
    started = time.monotonic()
    stages: dict[StageName, Stage] = {}
    worker = pool.take()
    try:
        try:
            loaded = load_into(worker, source, timeout, cancel)
        except LoadFailure as exc:
            message = exc.message if not exc.detail else f"{exc.message}\n{exc.detail}"
            stages[StageName.LOAD] = Stage(StageName.LOAD, StageStatus.FAILED, message, line=exc.line)
            return _report(stages, started, pool)
        stages[StageName.LOAD] = Stage(StageName.LOAD, StageStatus.PASSED, "metric.py compiles and imports")

        signature = loaded.get("signature") or {}
        if not signature.get("ok"):
            stages[StageName.SIGNATURE] = Stage(StageName.SIGNATURE, StageStatus.FAILED,
                                                str(signature.get("message", "score has an unusable signature")),
                                                line=_def_line(source))
            return _report(stages, started, pool)
        arity = signature.get("arity")
        how = "score(input, output, expected)" if arity == 3 else "score(input, output)"
        stages[StageName.SIGNATURE] = Stage(StageName.SIGNATURE, StageStatus.PASSED,
                                            f"found {signature.get('signature')}; Skynet calls {how}")

        spec = loaded.get("reward_spec")
        if spec is None:
            stages[StageName.REWARD_SPEC] = Stage(StageName.REWARD_SPEC, StageStatus.SKIPPED,
                                                  "metric.py defines no REWARD_SPEC")
        elif not spec.get("ok"):
            stages[StageName.REWARD_SPEC] = Stage(StageName.REWARD_SPEC, StageStatus.FAILED,
                                                  str(spec.get("message")), line=reward_spec_line(source))
            return _report(stages, started, pool)
        else:
            stages[StageName.REWARD_SPEC] = Stage(StageName.REWARD_SPEC, StageStatus.PASSED,
                                                  "REWARD_SPEC is valid", line=reward_spec_line(source))

        sampled = sample is None
        if sample is None:
            from .datasets import sample_for_check

            sample = sample_for_check(cases, SAMPLE_SIZE)
        if not sample:
            stages[StageName.RETURN_VALUE] = Stage(
                StageName.RETURN_VALUE, StageStatus.FAILED,
                "there are no cases to sample; load a dataset with at least one case")
            return _report(stages, started, pool)
        run = score_cases(source, sample, timeout=timeout, llm=llm, cancel=cancel, pool=pool, worker=worker,
                          stop_on_timeout=stop_on_timeout, concurrency=concurrency, on_result=on_result)
        worker = None  # score_cases closed it
        if run.cancelled:
            raise Cancelled()
        failed = [result for result in run.results if result.status is not CaseStatus.OK]
        if not failed:
            stages[StageName.RETURN_VALUE] = Stage(
                StageName.RETURN_VALUE, StageStatus.PASSED,
                f"{len(run.results)} {'sampled ' if sampled else ''}case(s) returned valid "
                "(score, side information) pairs")
        else:
            bad = failed[0]
            verb = {CaseStatus.TIMEOUT: "timed out", CaseStatus.INVALID: "returned an invalid value",
                    CaseStatus.ERROR: "failed"}[bad.status]
            first_line = bad.error.splitlines()[0] if bad.error else ""
            others = f" ({len(failed) - 1} more of {len(sample)} cases failed too)" if len(failed) > 1 else ""
            stages[StageName.RETURN_VALUE] = Stage(StageName.RETURN_VALUE, StageStatus.FAILED,
                                                   f"case {bad.id} {verb}: {first_line}{others}", line=bad.line,
                                                   case_id=bad.id)
        return _report(stages, started, pool, run.results)
    finally:
        if worker is not None:
            worker.close()


def _def_line(source: str) -> int | None:
    try:
        tree = parse_source(source)
    except SyntaxError:
        return None
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "score":
            return node.lineno
    return None
