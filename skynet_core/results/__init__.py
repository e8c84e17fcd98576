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

from ._case import CASE_WORDS, NO_CALLS, CaseResult, CaseStatus, JudgeUsage
from ._check import STAGE_ORDER, CheckReport, Isolation, Stage, StageName, StageStatus
from ._job import ErrorKind, JobError, JobKind, Outcome, OutcomeStatus
from ._tally import SHOWN_CASES, RunTally

__all__ = [
    "CASE_WORDS",
    "NO_CALLS",
    "SHOWN_CASES",
    "STAGE_ORDER",
    "CaseResult",
    "CaseStatus",
    "CheckReport",
    "ErrorKind",
    "Isolation",
    "JobError",
    "JobKind",
    "JudgeUsage",
    "Outcome",
    "OutcomeStatus",
    "RunTally",
    "Stage",
    "StageName",
    "StageStatus",
]
