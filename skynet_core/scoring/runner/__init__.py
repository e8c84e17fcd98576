"""The isolated metric runner: metric code runs only in child processes we can kill.

Public face: :class:`WorkerPool`, :func:`default_pool`, :func:`detect_isolation`, :class:`Limits`,
:func:`memory_limit_enforcement` (how the memory limit is enforced here: the kernel's memory cgroup, or the
watchdog). Cases are scored through a :class:`~skynet_core.scoring.Scorer`, never by calling the runner's
``run.score_cases``.
"""

from .memcg import enforcement as memory_limit_enforcement
from .pool import WorkerPool, default_pool
from .sandbox import Limits, detect_isolation
from .shard import LoadFailure
from .values import LlmHandler, LlmRequest
from .worker import Worker

__all__ = [
    "Limits",
    "LlmHandler",
    "LlmRequest",
    "LoadFailure",
    "Worker",
    "WorkerPool",
    "default_pool",
    "detect_isolation",
    "memory_limit_enforcement",
]
