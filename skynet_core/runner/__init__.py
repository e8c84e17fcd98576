"""The isolated metric runner: metric code runs only in child processes we can kill.

Public face: :func:`score_cases`, :class:`WorkerPool`, :func:`default_pool`,
:func:`detect_isolation`, :class:`Limits`.
"""

from .pool import WorkerPool, default_pool
from .run import ScoreRun, score_cases
from .sandbox import Limits, detect_isolation
from .shard import LoadFailure
from .values import LlmHandler, LlmRequest
from .worker import Worker

__all__ = [
    "Limits",
    "LlmHandler",
    "LlmRequest",
    "LoadFailure",
    "ScoreRun",
    "Worker",
    "WorkerPool",
    "default_pool",
    "detect_isolation",
    "score_cases",
]
