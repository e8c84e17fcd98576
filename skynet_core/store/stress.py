"""Stress runs kept in the studio's SQLite file (``stress_runs``), with the metric version they tested (the records
are :mod:`skynet_core.stress.saved`; the table is a :class:`~skynet_core.store.saved_runs.SavedRuns`, like uplift's).
Safe to share between threads; only the newest :data:`KEEP` runs of each dataset and candidate are kept.
"""

from __future__ import annotations

from pathlib import Path

from ..metric.source import MetricSource
from ..provenance import Provenance
from ..stress.report import StressReport, StressSummary
from ..stress.saved import KEEP, SavedStress, StressRow
from .saved_runs import SavedRuns


class StressStore:
    """Stress runs in the studio's SQLite file in ``directory`` (the data directory when ``None``)."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self._runs = SavedRuns(
            directory, "stress_runs", body="report", by_metric=("metric", "dataset", "created_at"), keep=KEEP
        )
        self.directory, self.path = self._runs.directory, self._runs.path

    def save(self, report: StressReport, metric: MetricSource, provenance: Provenance) -> int:
        """Keep ``report`` with the metric folder it stressed and what it ran on; return its id."""
        return self._runs.save(metric, provenance, report.created_at, report.summary().to_json(), report.to_json())

    def list(self, *, metric: str | None = None, dataset: str | None = None) -> list[StressRow]:
        """Saved runs, newest first; only those of the metric digest ``metric`` and of ``dataset`` when given."""
        return [
            StressRow(row.id, row.created_at, row.metric, row.provenance, StressSummary.from_json(row.summary))
            for row in self._runs.rows(metric=metric, dataset=dataset)
        ]

    def get(self, saved: int) -> SavedStress | None:
        """The run ``saved`` whole, or ``None``."""
        run = self._runs.get(saved)
        if run is None:
            return None
        return SavedStress(
            run.id, run.created_at, run.provenance, run.metric, StressReport.from_json(run.body, run.created_at)
        )

    def latest(self, dataset: str, candidate: str) -> SavedStress | None:
        """The newest run of ``dataset`` (a source) and ``candidate``, whatever metric version made it."""
        newest = self._runs.newest(dataset, candidate)
        return self.get(newest) if newest is not None else None

    def clear(self) -> None:
        self._runs.clear()
