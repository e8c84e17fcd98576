"""Scored runs, as records: what "Score all cases" keeps (the SQL is :mod:`skynet_core.store.runs`).

A run is keyed by what it scored and with what (:class:`RunKey`): the dataset
(its source, the file path or ``"example"``), the candidate, the split (``None``
for every split) and the hash of metric.py's text (:func:`metric_hash`). The
results are kept whole, as :meth:`CaseResult.to_json` rows, and come back through
:meth:`CaseResult.from_json`.

A run also keeps the cases it scored (id, candidate, split, input, output, expected, observation), so that a run
can be opened and exported with what was scored even after the dataset file changed or went away,
and a small summary (mean, counts by status, named scores) so that the list of runs reads no results.
Runs saved before these were kept have neither: the summary is computed from the results when
listed, and the cases are looked up in the dataset at export time (see :mod:`skynet_core.views.runs`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..cases import Case, Observation
from ..provenance import Provenance
from ..results import CaseResult

if TYPE_CHECKING:
    from ..datasets import Dataset

KEEP_RUNS = 50
"""Runs kept per (dataset, candidate); older ones are deleted when a new one is saved."""


def metric_hash(source: str) -> str:
    """A short SHA-256 of metric.py's text: the same text always gives the same 12 hex digits."""
    return hashlib.sha256(source.encode("utf-8")).hexdigest()[:12]


@dataclass(frozen=True)
class RunKey:
    """What a run scored and with which metric.

    ``dataset`` is the dataset's source (its file path, or ``"example"``), which
    identifies it; ``dataset_name`` is the name people read. ``candidate`` is
    ``""`` for a dataset without candidates; ``split`` is ``None`` when every split
    was scored.
    """

    dataset: str
    candidate: str
    split: str | None
    metric_hash: str
    dataset_name: str = ""

    @classmethod
    def of(cls, data: Dataset, candidate: str, split: str | None, source: str) -> RunKey:
        """The key of scoring ``data``'s ``candidate`` in ``split`` with metric.py text ``source``."""
        return cls(data.source, candidate, split, metric_hash(source), data.name)

    @property
    def scope(self) -> str:
        """The dataset and candidate as one string, for things kept per candidate (such as feedback marks)."""
        return f"{self.dataset} :: {self.candidate}" if self.candidate else self.dataset


@dataclass(frozen=True)
class SavedRun:
    """A run read back from the store. ``created_at`` is seconds since the epoch (UTC);
    ``metric_source`` is the metric.py text it was scored with (``""`` when not given)."""

    id: int
    key: RunKey
    created_at: float
    results: list[CaseResult]
    metric_source: str = ""
    provenance: Provenance | None = None
    cases: list[Case] | None = None
    """The cases scored, as they were (``None``: a run saved before cases were kept)."""


@dataclass(frozen=True)
class RunSummary:
    """A saved run as the list of runs shows it, without its results: ``mean`` is over ok cases
    (``None``: no case scored ok), ``statuses`` the case count per status, ``score_names`` the named
    scores in the order they first appear."""

    id: int
    key: RunKey
    created_at: float
    case_count: int
    mean: float | None
    statuses: dict[str, int] = field(default_factory=dict)
    score_names: tuple[str, ...] = ()
    provenance: Provenance | None = None
    has_cases: bool = False

    @property
    def ok_share(self) -> float:
        """The share of cases that scored ok (0 for an empty run)."""
        return self.statuses.get("ok", 0) / self.case_count if self.case_count else 0.0

    @property
    def error_share(self) -> float:
        """The share of cases that did not score (error, timeout or invalid)."""
        return 1.0 - self.ok_share if self.case_count else 0.0


def summarize(results: Sequence[CaseResult]) -> dict[str, Any]:
    """The summary kept beside a run: mean over ok cases, counts by status, named scores."""
    scored = [result.score for result in results if result.ok and result.score is not None]
    statuses: dict[str, int] = {}
    names: dict[str, None] = {}
    for result in results:
        statuses[result.status.value] = statuses.get(result.status.value, 0) + 1
        for name in result.scores:
            names.setdefault(name, None)
    return {"mean": sum(scored) / len(scored) if scored else None, "statuses": statuses, "score_names": list(names)}


def by_candidate(
    results: Sequence[CaseResult], cases: Sequence[Case], candidates: Sequence[str]
) -> dict[str, tuple[list[CaseResult], list[Case]]]:
    """One scoring of several candidates' cases split into a run per candidate: each candidate's results
    with the cases they scored, so each run is kept with its cases (never one that reads "saved before runs
    kept their cases")."""
    split: dict[str, tuple[list[CaseResult], list[Case]]] = {name: ([], []) for name in candidates}
    for result in results:
        if result.candidate in split:
            split[result.candidate][0].append(result)
    for case in cases:
        if case.candidate in split:
            split[case.candidate][1].append(case)
    return split


def case_to_json(case: Case) -> dict[str, Any]:
    """What a run keeps of a case it scored."""
    return {
        "id": case.id,
        "candidate": case.candidate,
        "split": case.split,
        "input": case.input,
        "output": case.output,
        "expected": case.expected,
        "observation": case.observation.to_json(),
    }


def case_from_json(data: dict[str, Any]) -> Case:
    observed = data.get("observation") or {}
    return Case(
        id=str(data.get("id", "")),
        input=data.get("input") or {},
        output=data.get("output"),
        expected=data.get("expected"),
        split=str(data.get("split") or "train"),
        candidate=str(data.get("candidate") or ""),
        observation=Observation(observed.get("latency_ms"), observed.get("cost_usd")),
    )
