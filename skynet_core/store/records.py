"""The records of the studio's own tables (:mod:`skynet_core.store.studio`): the draft and the saved versions."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from ..metric.source import MetricSource


class VersionKind(StrEnum):
    """Who made a version: a person (``named``), the autosave while typing (``auto``), the studio
    keeping a text that was about to be replaced (``kept``: an example, an upload, a restore, a conflict),
    or the studio keeping a text that was scored (``scored``: every scored run names a version)."""

    NAMED = "named"
    AUTO = "auto"
    KEPT = "kept"
    SCORED = "scored"


@dataclass(frozen=True)
class Version:
    """A saved copy of the metric. ``created_at`` is seconds since the epoch (UTC); ``source`` is metric.py."""

    id: int
    workspace: str
    name: str
    source: str
    created_at: float
    kind: VersionKind = VersionKind.NAMED
    metric: MetricSource | None = None

    @property
    def folder(self) -> MetricSource:
        """The whole metric folder (metric.py alone for a single-file metric)."""
        return self.metric if self.metric is not None else MetricSource.of(self.source)


@dataclass(frozen=True)
class Draft:
    """The stored draft: ``revision`` rises by one on every write (0 means nothing was ever written)."""

    revision: int
    metric: MetricSource
    updated_at: float

    @property
    def source(self) -> str:
        return self.metric.main
