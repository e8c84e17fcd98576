"""Skynet Metric Studio's logic: the metric contract, the isolated runner, datasets, the reward.

Pages, the CLI and tests import from here. Nothing in this package imports
streamlit. Heavier parts (``reward``, ``tradeoffs``, ``charts``, ``feedback``,
``export``) are imported from their modules so that the CLI starts fast.
"""

from .cases import Case, Observation
from .contract import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S, check_metric, validate_timeout
from .datasets import Dataset, DatasetError, Role, load_dataset, load_example, sample_for_check
from .results import CaseResult, CaseStatus, CheckReport, Isolation, JudgeUsage, Stage, StageName, StageStatus
from .runner import LoadFailure, ScoreRun, WorkerPool, default_pool, detect_isolation, score_cases

__all__ = [
    "DEFAULT_TIMEOUT_S",
    "MAX_TIMEOUT_S",
    "MIN_TIMEOUT_S",
    "Case",
    "CaseResult",
    "CaseStatus",
    "CheckReport",
    "Dataset",
    "DatasetError",
    "Isolation",
    "JudgeUsage",
    "LoadFailure",
    "Observation",
    "Role",
    "ScoreRun",
    "Stage",
    "StageName",
    "StageStatus",
    "WorkerPool",
    "check_metric",
    "default_pool",
    "detect_isolation",
    "load_dataset",
    "load_example",
    "sample_for_check",
    "score_cases",
    "validate_timeout",
]
