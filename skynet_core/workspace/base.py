"""What every part of the workspace shares: the database, the run and mark stores, the job board, the pool."""

from __future__ import annotations

import threading
import weakref
from collections import OrderedDict
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..datasets import Dataset
from ..feedback.marks import MarkStore
from ..results import CheckReport
from ..reward.candidates import ScoredCandidates
from ..runs import RunStore
from ..scoring.runner import LlmHandler, WorkerPool, default_pool
from ..store import DEFAULT_WORKSPACE, Store
from .jobs import Job, JobBoard


class WorkspaceBase:
    """The state the workspace's parts (draft, dataset, settings, records, use cases) work on. Thread-safe."""

    def __init__(
        self,
        directory: str | Path | None = None,
        *,
        pool: WorkerPool | None = None,
        name: str = DEFAULT_WORKSPACE,
        jobs: JobBoard | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.store = Store(directory)
        self.directory = self.store.directory
        self.runs = RunStore(self.directory)
        self.marks = MarkStore(self.store.path)
        self.name = name
        self.jobs = jobs or JobBoard()
        self._pool = pool
        self._env = env
        self._lock = threading.Lock()
        self._datasets: OrderedDict[str, Dataset] = OrderedDict()
        self._handlers: weakref.WeakKeyDictionary[Job[Any], LlmHandler] = weakref.WeakKeyDictionary()
        # The trade-offs' scores as read from the runs they come from, by those runs' ids (see records.py).
        self._scored: OrderedDict[tuple[Any, ...], ScoredCandidates | None] = OrderedDict()
        # Checks that passed whole, by what made them (see usecases.py): a new tab's check of the same text is drawn
        # from here at once instead of starting a sandbox.
        self._checked: OrderedDict[tuple[Any, ...], CheckReport] = OrderedDict()

    @property
    def pool(self) -> WorkerPool:
        """The pool of pre-started metric workers (the process-wide one unless another was given)."""
        return self._pool or default_pool()

    def _key(self, key: str) -> str:
        """A store key of this workspace (the default workspace's keys carry no prefix)."""
        return key if self.name == DEFAULT_WORKSPACE else f"{self.name}:{key}"
