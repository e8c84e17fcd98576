"""The workspace's values: what it stores under which key, and the typed values its methods return."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..cases import Case
from ..datasets import CandidateFile, Dataset, Role
from ..examples import EXAMPLE_METRICS
from ..llm import ModelSettings
from ..metric.source import MetricSource
from ..provenance import Provenance
from ..store import DEFAULT_WORKSPACE, Draft, Version

# Store keys (JSON values). ``dataset.path`` is a file path, or "example" for the bundled tickets.
SETTING_DATASET_PATH = "dataset.path"
SETTING_CANDIDATE = "dataset.candidate"  # a candidate name; missing or unknown means the first
SETTING_SPLIT = "dataset.split"  # "train", "val", "test", or null for every split
# For a file (not the example): {column: [role, field]}, missing or null for roles inferred from the column names;
# more candidates as [{"name", "path", "roles"}] joined by id; the main file's candidate name when it has none.
SETTING_DATASET_ROLES = "dataset.roles"
# The roles last used with each set of columns: [[sorted column names, {column: [role, field]} or null], ...],
# the newest last, at most ROLES_KEPT sets.
SETTING_ROLES_BY_COLUMNS = "dataset.roles_by_columns"
ROLES_KEPT = 32
SETTING_DATASET_CANDIDATE_FILES = "dataset.candidate_files"
SETTING_DATASET_MAIN_CANDIDATE = "dataset.main_candidate"
SETTING_TIMEOUT = "timeout_s"
SETTING_RAY_ADDRESS = "ray.address"  # the Ray cluster every scoring job scores on; empty: this machine
SETTING_LANGUAGE = "ui.language"  # the language picked in the sidebar ("en", "zh_CN"); missing: the browser's
SETTING_CONFLICT = "draft.conflict"  # the last conflict between two writers: {"version": id, "at": time}
SETTING_INSTRUCTION = "reflection.instruction"  # the text "Try one reflection step" optimizes: {dataset: text}
EXAMPLE_SOURCE = "example"
FIRST_EXAMPLE = "Exact match"
AUTO_VERSION_S = 180.0
"""Typing keeps an automatic version of the draft at most this often (seconds)."""
DATASETS_KEPT = 4


def scoped_key(workspace: str, key: str) -> str:
    """A store key of the workspace named ``workspace`` (the default workspace's keys carry no prefix)."""
    return key if workspace == DEFAULT_WORKSPACE else f"{workspace}:{key}"


def roles_of(stored: Any, columns: Sequence[str]) -> Any:
    """The roles (as JSON) :data:`SETTING_ROLES_BY_COLUMNS` holds for this set of columns, or ``None``."""
    key = sorted(str(column) for column in columns)
    for entry in stored if isinstance(stored, list) else []:
        if isinstance(entry, list) and len(entry) == 2 and entry[0] == key:
            return entry[1]
    return None


def with_roles_of(stored: Any, columns: Sequence[str], roles: dict[str, list[str]] | None) -> list[Any]:
    """:data:`SETTING_ROLES_BY_COLUMNS` with ``roles`` for this set of columns (the newest; the oldest set goes
    past :data:`ROLES_KEPT`)."""
    key = sorted(str(column) for column in columns)
    kept = (
        [entry for entry in stored if isinstance(entry, list) and entry and entry[0] != key]
        if isinstance(stored, list)
        else []
    )
    return [*kept, [key, roles]][-ROLES_KEPT:]


def example_metric(title: str = FIRST_EXAMPLE) -> MetricSource:
    """A bundled example metric (metric.py alone)."""
    return MetricSource.of(EXAMPLE_METRICS[title].read_text(encoding="utf-8"))


@dataclass(frozen=True)
class DatasetChoice:
    """What the Data page chose: the file (or ``"example"``), its column roles (``None``: inferred from the
    names), more candidates as files joined by id, the main file's candidate name, and the candidate and
    split the other pages use (``None``: the first candidate, every split)."""

    path: str = EXAMPLE_SOURCE
    roles: dict[str, tuple[Role, str]] | None = None
    candidate_files: tuple[CandidateFile, ...] = ()
    main_candidate: str | None = None
    candidate: str | None = None
    split: str | None = None


@dataclass(frozen=True)
class DatasetInUse:
    """The loaded dataset, the candidate and split in use, and (when the chosen file failed) why the
    example is shown instead."""

    data: Dataset
    candidate: str
    split: str | None
    problem: str | None = None

    @property
    def cases(self) -> list[Case]:
        """The candidate's cases in the split (every split when none is chosen): a copy of the dataset's kept list."""
        return list(self.data.cases_of(self.candidate, self.split))

    def check_sample(self, k: int) -> list[Case]:
        """The contract check's sample of :attr:`cases` (computed once per dataset, candidate and split)."""
        return self.data.check_sample(self.candidate, self.split, k)


@dataclass(frozen=True)
class DraftWrite:
    """The outcome of a write of the draft: the draft now stored, and the version that kept the text it
    replaced (``None`` when nothing needed keeping). ``conflict`` is true when the write was based on an
    older revision than the stored one (another tab or page wrote in between)."""

    draft: Draft
    kept: Version | None = None
    conflict: bool = False


@dataclass(frozen=True)
class SavedVersion:
    """A "Save version" request's outcome: the version, and whether a new one was made (``False``: the
    draft was already the latest version, which is returned instead of a duplicate)."""

    version: Version
    created: bool


@dataclass(frozen=True)
class Conflict:
    """The last time two writers edited the draft at once: the version that kept the other text, and when."""

    version_id: int
    at: float


@dataclass(frozen=True)
class Snapshot:
    """What one script run of a page shows, read once (``Workspace.snapshot``): the draft, the dataset in use,
    the model settings with the session's keys, the provenance a result made now would have, the timeout,
    the Ray address ("" for this machine) and the stored language (``None``: the browser's).

    Invariant: ``provenance`` is made from exactly this draft, dataset and settings."""

    draft: Draft
    in_use: DatasetInUse
    settings: ModelSettings
    provenance: Provenance
    timeout_s: float
    ray_address: str
    language: str | None

    @property
    def metric(self) -> MetricSource:
        return self.draft.metric

    @property
    def cases(self) -> list[Case]:
        return self.in_use.cases
