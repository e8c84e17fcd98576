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
from collections.abc import Iterator, Sequence
from typing import Any

from ..cases import Case
from ..i18n import _, ngettext
from ..results import STAGE_ORDER, CaseStatus, CheckReport, Isolation, RunTally, Stage, StageName, StageStatus
from ..scoring import LocalScorer, RunOptions, Scorer, ScoreRun
from ..scoring.runner.pool import WorkerPool, default_pool
from ..scoring.runner.shard import LoadFailure, load_into
from ..scoring.runner.values import Cancelled
from ..scoring.runner.worker import Worker
from ..scoring.sandbox.returns import check_number, check_return, check_signature
from .lines import def_line, fix_line
from .source import MAIN_FILE, MetricSource

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_TIMEOUT_S",
    "MIN_TIMEOUT_S",
    "SAMPLE_SIZE",
    "check_metric",
    "check_number",
    "check_return",
    "check_signature",
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
    options: RunOptions,
    *,
    scorer: Scorer | None = None,
    sample: Sequence[Case] | None = None,
    name: str = MAIN_FILE,
) -> CheckReport:
    """Run the contract check of the metric ``source`` (metric.py's text, or a metric folder)
    on a sample of ``cases``, as ``options`` say (taken whole: the timeout, the model handler, the pool,
    the cancel event, the callbacks).

    ``sample`` overrides the sampling (Part B rule 7) with chosen cases; "Score all" and the
    `score` command pass every case (the command with ``stop_on_timeout=False``, so that
    one hanging case does not hide the others' results, streaming them with ``in_order`` and
    ``keep=False``); the live check stops at the first timeout (``stop_on_timeout=True``). The report's
    ``tally`` sums the cases up either way.
    ``scorer`` scores the cases once the stages before passed (``RayScorer``: on a Ray cluster); ``None``
    or a ``LocalScorer`` scores here, starting in the worker that loaded the stages.
    ``name`` is what the messages call metric.py (the command line names the file it was given).
    Raises ``Cancelled`` when ``options.cancel`` is set during the run; the caller
    asked for that and has a newer check coming.
    """
    timeout = validate_timeout(options.timeout_s)
    source = MetricSource.of(source)
    pool = options.pool or default_pool()
    cancel = options.cancel
    started = time.monotonic()
    stages: dict[StageName, Stage] = {}
    worker = pool.take(cancel)
    owned: Worker | None = worker  # closed here, unless the local scorer took it
    try:
        for stage in _static_stages(worker, source, timeout, cancel, name):
            stages[stage.name] = stage
            if stage.status is StageStatus.FAILED:
                return _report(stages, started, pool)

        sampled = sample is None
        if sample is None:
            from ..datasets import sample_for_check

            sample = sample_for_check(list(cases), SAMPLE_SIZE)
        if not sample:
            stages[StageName.RETURN_VALUE] = Stage(
                StageName.RETURN_VALUE,
                StageStatus.FAILED,
                _("there are no cases to sample; load a dataset with at least one case"),
            )
            return _report(stages, started, pool)
        # The sample as given: the CLI's every case is a CaseLines, whose cases are built only as the runner
        # sends them (a list of it built 20,000 Case objects up front, a third of a `score` run's time).
        if scorer is None or isinstance(scorer, LocalScorer):
            scorer = LocalScorer(worker)  # the cases start in the child that loaded the stages
        else:
            worker.close()  # the cases run elsewhere
        run = scorer(source, sample, options)
        owned = None  # the local scorer's run closed it, or it was closed before the cases ran elsewhere
        if run.cancelled:
            raise Cancelled()
        stages[StageName.RETURN_VALUE] = _return_stage(run.tally, len(sample), sampled, source.main)
        return _report(stages, started, pool, run)
    finally:
        if owned is not None:
            owned.close()


def _static_stages(
    worker: Worker, source: MetricSource, timeout: float, cancel: threading.Event | None, name: str
) -> Iterator[Stage]:
    """The stages before any case runs (load, signature, reward spec), in order; the caller stops at the
    first failed one."""
    try:
        loaded = load_into(worker, source, timeout, cancel)
    except LoadFailure as exc:
        message = exc.message if not exc.detail else f"{exc.message}\n{exc.detail}"
        yield Stage(StageName.LOAD, StageStatus.FAILED, message, line=exc.line, file=exc.file)
        return
    yield Stage(StageName.LOAD, StageStatus.PASSED, _("{file} compiles and imports").format(file=name))
    yield _signature_stage(loaded.get("signature") or {}, source.main)
    yield _reward_spec_stage(loaded.get("reward_spec"), source, name)


def _signature_stage(signature: dict[str, Any], main: str) -> Stage:
    if not signature.get("ok"):
        line = signature.get("line")
        file = signature.get("file")
        return Stage(
            StageName.SIGNATURE,
            StageStatus.FAILED,
            str(signature.get("message") or _("score has an unusable signature")),
            line=line if isinstance(line, int) else def_line(main),
            file=file if isinstance(file, str) and isinstance(line, int) else MAIN_FILE,
        )
    how = "score(input, output, expected)" if signature.get("arity") == 3 else "score(input, output)"
    return Stage(
        StageName.SIGNATURE,
        StageStatus.PASSED,
        _("found {found}; Skynet calls {call}").format(found=signature.get("signature"), call=how),
    )


def _reward_spec_stage(spec: dict[str, Any] | None, source: MetricSource, name: str) -> Stage:
    main = source.main
    if spec is None:
        return Stage(StageName.REWARD_SPEC, StageStatus.SKIPPED, _("{file} defines no REWARD_SPEC").format(file=name))
    from .reward_spec import calls_reward, reward_spec_line  # here: most metrics define no REWARD_SPEC

    if not spec.get("ok"):
        return Stage(StageName.REWARD_SPEC, StageStatus.FAILED, str(spec.get("message")), line=reward_spec_line(main))
    unused = not calls_reward(source.files)
    return Stage(
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


def _return_stage(tally: RunTally, sampled_count: int, sampled: bool, main: str) -> Stage:
    """The return-value stage from the run's tally: passed, or the first failed case with how many more failed."""
    if not tally.failed:
        return Stage(
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
        ).format(message=message, more=tally.failed - 1, total=sampled_count)
    line, file = bad.line, bad.file
    if line is None and bad.status is CaseStatus.INVALID:
        line, file = fix_line(main), MAIN_FILE  # where the fix goes: score's return
    return Stage(StageName.RETURN_VALUE, StageStatus.FAILED, message, line=line, case_id=bad.id, file=file)
