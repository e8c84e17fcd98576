"""A model as judge: what its calls cost over a run, how consistent its verdicts are, and how often noise alone
would make GEPA accept a change.

- ``summary``: :func:`judge_summary` (calls, time and cost per 1,000 cases, from each case's ``JudgeUsage``);
- ``consistency``: :func:`judge_consistency` (each case scored N times through a ``Scorer``, the spread per case);
- ``noise``: :func:`noise_acceptance` (the chance that a judge's noise alone passes GEPA's minibatch test).
"""

from .consistency import (
    DEFAULT_THRESHOLD,
    REPEAT_MARK,
    CaseSpread,
    Consistency,
    column_labels,
    consistency_of,
    judge_consistency,
    repeat_cases,
    repeat_id,
)
from .noise import NoiseAcceptance, noise_acceptance
from .summary import JudgeSummary, judge_summary, judge_summary_of

__all__ = [
    "DEFAULT_THRESHOLD",
    "REPEAT_MARK",
    "CaseSpread",
    "Consistency",
    "JudgeSummary",
    "NoiseAcceptance",
    "column_labels",
    "consistency_of",
    "judge_consistency",
    "judge_summary",
    "judge_summary_of",
    "noise_acceptance",
    "repeat_cases",
    "repeat_id",
]
