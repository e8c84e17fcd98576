"""Skynet Metric Studio's logic: the metric contract, the isolated runner, datasets, the reward.

Pages, the CLI and tests import from here. Nothing in this package imports
streamlit. Heavier parts (``reward``, ``tradeoffs``, ``charts``, ``feedback``,
``export``) are imported from their modules, and the names below only when
first used, so that the CLI starts fast.
"""

from typing import TYPE_CHECKING

from .lazy import lazy_attribute

if TYPE_CHECKING:
    from .cases import Case, Observation
    from .contract import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S, check_metric, validate_timeout
    from .datasets import Dataset, DatasetError, Role, load_dataset, load_example, sample_for_check
    from .results import CaseResult, CaseStatus, CheckReport, Isolation, JudgeUsage, Stage, StageName, StageStatus
    from .runner import LoadFailure, WorkerPool, default_pool, detect_isolation
    from .scoring import LocalScorer, RunOptions, Scorer, ScoreRun, scorer_for

# Where each public name lives. They are imported on first use (PEP 562), so that ``python -m skynet_core``
# pays only for what its command needs (the command line's ``score`` starts in a few hundredths of a second).
_HOMES = {
    **dict.fromkeys(("Case", "Observation"), "cases"),
    **dict.fromkeys(
        ("DEFAULT_TIMEOUT_S", "MAX_TIMEOUT_S", "MIN_TIMEOUT_S", "check_metric", "validate_timeout"), "contract"
    ),
    **dict.fromkeys(
        ("Dataset", "DatasetError", "Role", "load_dataset", "load_example", "sample_for_check"), "datasets"
    ),
    **dict.fromkeys(
        ("CaseResult", "CaseStatus", "CheckReport", "Isolation", "JudgeUsage", "Stage", "StageName", "StageStatus"),
        "results",
    ),
    **dict.fromkeys(("LoadFailure", "WorkerPool", "default_pool", "detect_isolation"), "runner"),
    **dict.fromkeys(("LocalScorer", "RunOptions", "ScoreRun", "Scorer", "scorer_for"), "scoring"),
}


def __getattr__(name: str) -> object:
    return lazy_attribute(__name__, _HOMES, name)


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
    "LocalScorer",
    "Observation",
    "Role",
    "RunOptions",
    "ScoreRun",
    "Scorer",
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
    "scorer_for",
    "validate_timeout",
]
