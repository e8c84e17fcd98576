"""A background job's values: what it runs, why it could not run, and its outcome as every page reads it."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..i18n import N_, _
from ._case import CaseResult
from ._check import Stage


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
    ALIGN = "align"
    STRESS = "stress"

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
    JobKind.ALIGN: N_("judge alignment"),
    JobKind.STRESS: N_("stress test"),
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
