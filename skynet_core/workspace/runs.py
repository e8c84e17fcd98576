"""Scored runs and feedback marks: what the studio keeps of its results."""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

from skynet_core.store.marks import MarkStore
from skynet_core.store.runs import RunStore

from ..cases import Case
from ..feedback.marks import Mark, MarkValue
from ..metric.source import MetricSource
from ..provenance import Provenance
from ..results import CaseResult
from ..reward.candidates import ScoredCandidates, from_saved_runs, metric_key
from ..runs import RunKey, RunSummary, SavedRun, metric_hash
from ..runs.history import keep_scored_text
from ..store import DEFAULT_WORKSPACE, Store
from .data import Data
from .human import Human
from .values import DatasetInUse

SCORED_KEPT = 4


class Runs:
    """The scored runs and feedback marks kept in ``store``'s data directory. A run kept keeps its scored text as a
    version of workspace ``name`` and its agreement with ``human``'s scores; ``data`` is the dataset in use."""

    def __init__(self, store: Store, data: Data, human: Human, name: str = DEFAULT_WORKSPACE) -> None:
        self._settings = store
        self.data = data
        self.human = human
        self.name = name
        self.store = RunStore(store.directory)
        self.marks = MarkStore(store.path)
        self._lock = threading.Lock()
        # The trade-offs' scores as read from the runs they come from, by those runs' ids.
        self._scored: OrderedDict[tuple[Any, ...], ScoredCandidates | None] = OrderedDict()

    def summaries(self) -> list[RunSummary]:
        """Every saved run, newest first (without its results)."""
        return self.store.list()

    def get(self, run_id: int) -> SavedRun | None:
        """A saved run with its results, or ``None`` when it is no longer kept."""
        return self.store.get(run_id)

    def latest(self, in_use: DatasetInUse | None = None) -> SavedRun | None:
        """The newest saved run of the dataset and candidate in use."""
        in_use = in_use or self.data.in_use()
        return self.store.latest(in_use.data.source, in_use.candidate)

    def keep(
        self,
        metric: MetricSource,
        results: list[CaseResult],
        made_by: Provenance,
        cases: list[Case] | None = None,
    ) -> int:
        """Keep scored results in the database (the run of ``made_by``'s dataset, candidate and split), with
        the ``cases`` scored when given, so the run can be opened and exported with its inputs and outputs
        even after the dataset changes, and its agreement with the human scores that exist now. The text scored
        is kept as a version unless one holds it already (``history.keep_scored_text``): every scored text can be
        found on History, and Runs names it."""
        keep_scored_text(self._settings, metric, self.name)
        key = RunKey(made_by.dataset, made_by.candidate, made_by.split, metric_hash(metric.main), made_by.dataset_name)
        run_id = self.store.save(key, results, metric_source=metric.main, provenance=made_by, cases=cases)
        self.human.record_run(run_id, results, made_by)
        return run_id

    def scored_candidates(self, source: str, in_use: DatasetInUse) -> ScoredCandidates | None:
        """Every candidate of the dataset in use as this metric.py (REWARD_SPEC set aside) scored it on the split
        in use, from each candidate's newest saved run; else as the metric.py of those runs scored them (an
        earlier text: the result's ``metric`` says which); ``None`` until each candidate has a run of one text
        on that split (see ``Jobs.score_candidates``)."""
        data = in_use.data
        summaries = self.summaries()  # newest first, without results: cheap
        ids = tuple(
            next((run.id for run in summaries if run.key.dataset == data.source and run.key.candidate == name), None)
            for name in data.candidates
        )
        key = (ids, data.source, len(data.cases), in_use.split, metric_key(source))
        with self._lock:  # moving a weight re-weights these scores: they are read from the runs once
            if key in self._scored:
                return self._scored[key]
        newest = [self.store.get(run_id) if run_id is not None else None for run_id in ids]
        scored = from_saved_runs(newest, data, in_use.split, key[-1])
        if scored is None and newest[0] is not None:
            scored = from_saved_runs(newest, data, in_use.split, metric_key(newest[0].metric_source))
        with self._lock:
            self._scored[key] = scored
            while len(self._scored) > SCORED_KEPT:
                self._scored.popitem(last=False)
        return scored

    def marks_for(self, run: SavedRun) -> dict[str, Mark]:
        """People's marks on the feedback of ``run``'s cases, by case id."""
        return self.marks.marks_for(run.key.scope, run.key.metric_hash)

    def set_mark(self, run: SavedRun, case_id: str, value: MarkValue, note: str = "") -> Mark:
        """Mark the feedback of one case of ``run`` useful or weak, with a note; marking again replaces it."""
        return self.marks.set_mark(run.key.scope, run.key.metric_hash, case_id, value, note=note)

    def clear_mark(self, run: SavedRun, case_id: str) -> None:
        self.marks.clear_mark(run.key.scope, run.key.metric_hash, case_id)
