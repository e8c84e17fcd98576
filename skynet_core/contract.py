"""The contract check: load, signature, reward spec, and the return value on sampled cases.

Implements contract Part A and Part B rules 1-8, 13 and 15. The stages run in
order; a stage after a failed one is reported ``not_run``. The check never
raises for anything metric code does: every problem is a failed stage with a
message that names the file and line (metric.py or a helper module beside it)
or the case, and the fix.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

from .cases import Case
from .i18n import _, ngettext
from .metric_source import MAIN_FILE, MetricSource
from .results import STAGE_ORDER, CaseStatus, CheckReport, Isolation, RunTally, Stage, StageName, StageStatus
from .reward_spec import calls_reward, reward_spec_line
from .runner.pool import WorkerPool, default_pool
from .runner.run import LoadFailure, ResultCallback, ScoreRun, load_into, score_cases
from .runner.worker import Cancelled, LlmHandler, Worker
from .sandbox.returns import check_number, check_return, check_signature
from .score_lines import def_line, fix_line
from .scoring import LocalScorer, RunOptions, Scorer

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_TIMEOUT_S",
    "MIN_TIMEOUT_S",
    "SAMPLE_SIZE",
    "check_metric",
    "check_number",
    "check_return",
    "check_signature",
    "reward_spec_line",
    "validate_timeout",
]

DEFAULT_TIMEOUT_S = 60.0
MIN_TIMEOUT_S = 1.0
MAX_TIMEOUT_S = 600.0
SAMPLE_SIZE = 3


def validate_timeout(timeout: float) -> float:
    """The timeout in seconds, or ValueError when it is outside 1 to 600 s (Part B rule 8)."""
    try:
        value = float(timeout)
    except (TypeError, ValueError):
        raise ValueError(
            _("timeout must be a number of seconds from 1 to 600, not {value}").format(value=repr(timeout))
        ) from None
    if not MIN_TIMEOUT_S <= value <= MAX_TIMEOUT_S:
        raise ValueError(
            _("timeout must be from 1 to 600 seconds; {value} s is outside that range").format(value=f"{value:g}")
        )
    return value


def _report(
    stages: dict[StageName, Stage], started: float, pool: WorkerPool, run: ScoreRun | None = None
) -> CheckReport:
    ordered = [stages.get(name) or Stage(name, StageStatus.NOT_RUN) for name in STAGE_ORDER]
    # The run is only as isolated as the weakest place its metric code ran: here, or a cluster's nodes.
    isolation = pool.isolation if run is None or run.isolation is pool.isolation else Isolation.REDUCED
    return CheckReport(
        stages=ordered,
        cases=run.results if run else [],
        isolation=isolation,
        duration_ms=(time.monotonic() - started) * 1000.0,
        tally=run.tally if run else RunTally(),
    )


def check_metric(
    source: str | MetricSource,
    cases: Sequence[Case],
    *,
    timeout: float = DEFAULT_TIMEOUT_S,
    llm: LlmHandler | None = None,
    cancel: threading.Event | None = None,
    pool: WorkerPool | None = None,
    sample: Sequence[Case] | None = None,
    concurrency: int = 1,
    on_result: ResultCallback | None = None,
    stop_on_timeout: bool = True,
    in_order: ResultCallback | None = None,
    keep: bool = True,
    scorer: Scorer | None = None,
    name: str = MAIN_FILE,
) -> CheckReport:
    """Run the contract check of the metric ``source`` (metric.py's text, or a metric folder)
    on a sample of ``cases``.

    ``sample`` overrides the sampling (Part B rule 7) with chosen cases; the
    `score` command passes every case, with ``stop_on_timeout=False`` so that
    one hanging case does not hide the others' results, and streams them
    (``in_order``, ``keep=False``: see :func:`score_cases`); the report's
    ``tally`` sums them up either way.
    ``scorer`` scores the cases once the stages before passed here (``scoring.RayScorer``: on a
    Ray cluster); ``None`` or a ``LocalScorer`` scores here, in the worker that loaded the stages.
    ``name`` is what the messages call metric.py (the command line names the file it was given).
    Raises ``Cancelled`` when ``cancel`` is set during the run; the caller
    asked for that and has a newer check coming.
    """
    timeout = validate_timeout(timeout)
    source = MetricSource.of(source)
    main = source.main
    pool = pool or default_pool()
    started = time.monotonic()
    stages: dict[StageName, Stage] = {}
    worker = pool.take()
    owned: Worker | None = worker  # closed here, unless score_cases took it
    try:
        try:
            loaded = load_into(worker, source, timeout, cancel)
        except LoadFailure as exc:
            message = exc.message if not exc.detail else f"{exc.message}\n{exc.detail}"
            stages[StageName.LOAD] = Stage(StageName.LOAD, StageStatus.FAILED, message, line=exc.line, file=exc.file)
            return _report(stages, started, pool)
        stages[StageName.LOAD] = Stage(
            StageName.LOAD, StageStatus.PASSED, _("{file} compiles and imports").format(file=name)
        )

        signature = loaded.get("signature") or {}
        if not signature.get("ok"):
            line = signature.get("line")
            file = signature.get("file")
            stages[StageName.SIGNATURE] = Stage(
                StageName.SIGNATURE,
                StageStatus.FAILED,
                str(signature.get("message") or _("score has an unusable signature")),
                line=line if isinstance(line, int) else def_line(main),
                file=file if isinstance(file, str) and isinstance(line, int) else MAIN_FILE,
            )
            return _report(stages, started, pool)
        arity = signature.get("arity")
        how = "score(input, output, expected)" if arity == 3 else "score(input, output)"
        stages[StageName.SIGNATURE] = Stage(
            StageName.SIGNATURE,
            StageStatus.PASSED,
            _("found {found}; Skynet calls {call}").format(found=signature.get("signature"), call=how),
        )

        spec = loaded.get("reward_spec")
        if spec is None:
            stages[StageName.REWARD_SPEC] = Stage(
                StageName.REWARD_SPEC, StageStatus.SKIPPED, _("{file} defines no REWARD_SPEC").format(file=name)
            )
        elif not spec.get("ok"):
            stages[StageName.REWARD_SPEC] = Stage(
                StageName.REWARD_SPEC, StageStatus.FAILED, str(spec.get("message")), line=reward_spec_line(main)
            )
            return _report(stages, started, pool)
        else:
            unused = not calls_reward(source.files)
            stages[StageName.REWARD_SPEC] = Stage(
                StageName.REWARD_SPEC,
                StageStatus.PASSED,
                _("REWARD_SPEC is valid"),
                line=reward_spec_line(main),
                warning=_(
                    "metric.py defines REWARD_SPEC but never calls reward(): the spec changes no score. "
                    "Return reward(REWARD_SPEC, accuracy, feedback) from score, or remove REWARD_SPEC."
                )
                if unused
                else "",
            )

        sampled = sample is None
        if sample is None:
            from .datasets import sample_for_check

            sample = sample_for_check(list(cases), SAMPLE_SIZE)
        if not sample:
            stages[StageName.RETURN_VALUE] = Stage(
                StageName.RETURN_VALUE,
                StageStatus.FAILED,
                _("there are no cases to sample; load a dataset with at least one case"),
            )
            return _report(stages, started, pool)
        if scorer is not None and not isinstance(scorer, LocalScorer):
            owned = None
            worker.close()  # the cases run elsewhere
            options = RunOptions(timeout, concurrency, llm, pool, cancel, on_result, in_order, keep, stop_on_timeout)
            run = scorer(source, list(sample), options)
        else:
            run = score_cases(
                source,
                sample,
                timeout=timeout,
                llm=llm,
                cancel=cancel,
                pool=pool,
                worker=worker,
                stop_on_timeout=stop_on_timeout,
                concurrency=concurrency,
                on_result=on_result,
                in_order=in_order,
                keep=keep,
            )
            owned = None  # score_cases closed it
        if run.cancelled:
            raise Cancelled()
        tally = run.tally
        if not tally.failed:
            stages[StageName.RETURN_VALUE] = Stage(
                StageName.RETURN_VALUE,
                StageStatus.PASSED,
                (
                    ngettext(
                        "{count} sampled case returned a valid (score, side information) pair",
                        "{count} sampled cases returned valid (score, side information) pairs",
                        tally.total,
                    )
                    if sampled
                    else ngettext(
                        "{count} case returned a valid (score, side information) pair",
                        "{count} cases returned valid (score, side information) pairs",
                        tally.total,
                    )
                ).format(count=tally.total),
            )
        else:
            bad = tally.failures[0]
            headline = {
                CaseStatus.TIMEOUT: _("case {case} timed out: {error}"),
                CaseStatus.INVALID: _("case {case} returned an invalid value: {error}"),
                CaseStatus.ERROR: _("case {case} failed: {error}"),
            }[bad.status]
            first_line = bad.error.splitlines()[0] if bad.error else ""
            message = headline.format(case=bad.id, error=first_line)
            if tally.failed > 1:
                message = ngettext(
                    "{message} ({more} more of {total} cases failed too)",
                    "{message} ({more} more of {total} cases failed too)",
                    tally.failed - 1,
                ).format(message=message, more=tally.failed - 1, total=len(sample))
            line, file = bad.line, bad.file
            if line is None and bad.status is CaseStatus.INVALID:
                line, file = fix_line(main), MAIN_FILE  # where the fix goes: score's return
            stages[StageName.RETURN_VALUE] = Stage(
                StageName.RETURN_VALUE,
                StageStatus.FAILED,
                message,
                line=line,
                case_id=bad.id,
                file=file,
            )
        return _report(stages, started, pool, run)
    finally:
        if owned is not None:
            owned.close()
