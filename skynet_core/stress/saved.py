"""Saved stress runs, as records (kept by :class:`skynet_core.store.stress.StressStore`).

Each saved run keeps the metric folder it stressed (its digest and its files), what it ran on and with (a
:class:`~skynet_core.provenance.Provenance`), the whole report, and its summary (the flags with their worst
reasons) that lists read without decoding reports: History and Runs show "stress: hackable (claims_correct 47%)"
for a metric version from it.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..metric.source import MetricSource
from ..provenance import Provenance
from .report import StressReport, StressSummary

KEEP = 50
"""Stress runs kept per (dataset, candidate); older ones are deleted when a new one is saved."""


@dataclass(frozen=True)
class StressRow:
    """A saved run as a list shows it: ``metric`` is the metric folder's digest."""

    id: int
    created_at: float
    metric: str
    provenance: Provenance
    summary: StressSummary


@dataclass(frozen=True)
class SavedStress:
    """A saved run read back whole: the metric folder it stressed and its report."""

    id: int
    created_at: float
    provenance: Provenance
    metric: MetricSource
    report: StressReport
