"""Saved uplift experiments, as records (kept by :class:`skynet_core.store.uplift.UpliftStore`).

Each saved experiment keeps the metric folder it ran (its digest and its files), what it ran on and with
(a :class:`~skynet_core.provenance.Provenance`), the whole result, and a summary (the feedback value and
each arm's gain) that lists read without decoding results. So History and Runs can show how an edit to
the feedback changed its value, and diff the two metric versions.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ...metric.source import MetricSource
from ...provenance import Provenance
from .config import Arm
from .result import Outcome, UpliftResult
from .stats import Interval

KEEP = 50
"""Experiments kept per (dataset, candidate); older ones are deleted when a new one is saved."""


@dataclass(frozen=True)
class UpliftSummary:
    """A saved experiment as a list shows it: ``metric`` is the metric folder's digest, ``feedback_value`` and
    ``gains`` (one per arm) the result's, ``seeds`` the seeds that finished, ``outcome`` how it ended."""

    id: int
    created_at: float
    metric: str
    provenance: Provenance
    outcome: Outcome
    seeds: int
    feedback_value: Interval
    gains: dict[Arm, Interval] = field(default_factory=dict)
    models: tuple[str, str] = ("", "")


@dataclass(frozen=True)
class SavedUplift:
    """A saved experiment read back whole: the metric folder it ran and its result."""

    id: int
    created_at: float
    provenance: Provenance
    metric: MetricSource
    result: UpliftResult
