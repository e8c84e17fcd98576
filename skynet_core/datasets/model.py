"""The dataset model: a Dataset of cases, column roles, the limits, and DatasetError."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any, TypeVar

from skynet_core.cases import Case, Observation
from skynet_core.i18n import N_

_T = TypeVar("_T")
EXAMPLE_PATH = Path(__file__).parents[1] / "examples" / "tickets.jsonl"

SPLITS = ("train", "val", "test")

# The measurement's meaning is marked for the extractor and translated where a message shows it.
_MEASUREMENTS = {
    "latency_ms": (N_("the latency in milliseconds"), "850"),
    "cost_usd": (N_("the cost in US dollars"), "0.002"),
}


class DatasetError(ValueError):
    """A case file (or a table built from one) that cannot become a dataset.

    The message is for people: the file, the line (JSON Lines) or column and row
    (tables) where it applies, what is wrong and what to do, in one or two
    sentences. ``line`` and ``column`` repeat the location for a page that wants
    to highlight it.
    """

    def __init__(self, message: str, *, line: int | None = None, column: str | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


class Role(StrEnum):
    """What a column means. ``IGNORED`` columns are shown but not passed to the metric.

    The ``CANDIDATE_*`` roles are for a table with one output column per candidate (an A/B
    export such as ``out_small, out_large``): the field is the candidate's name, and the
    column holds that candidate's whole output, measured latency (ms) or cost (USD). See
    :mod:`skynet_core.datasets.per_candidate`.
    """

    INPUT = "input"
    EXPECTED = "expected"
    OUTPUT = "output"
    OBSERVATION = "observation"
    CANDIDATE = "candidate"
    SPLIT = "split"
    ID = "id"
    HUMAN = "human"
    IGNORED = "ignored"
    CANDIDATE_OUTPUT = "candidate_output"
    CANDIDATE_LATENCY = "candidate_latency_ms"
    CANDIDATE_COST = "candidate_cost_usd"


@dataclass
class Dataset:
    """The cases of one file.

    ``cases`` holds every candidate's cases in file order. ``candidates`` lists the
    candidate names in order of first appearance, ``[""]`` when the file has no
    candidate column. All candidates have the same case ids, and a case id has the
    same split (and input and expected) for every candidate. ``source`` is the
    file's path, or ``"example"`` for the bundled example. ``splits_from_column``
    is true when a ``split`` column gave the splits instead of the planner. ``warnings`` are sentences for
    people about what loaded but may not be what was meant (ids that differ only in Unicode form).
    ``identity`` is the digest of every file it was built from, by content, and of
    the roles and candidate names it was read with (``""``: not known; see
    :mod:`skynet_core.datasets.identity`).

    Invariant: a dataset is not changed once built (nothing appends to or replaces its cases), so what is
    derived from its cases (one candidate's list, the split counts, the check's sample) is computed once
    and kept; on 900,000 cases each was a pass over every case, several per script run. Callers get copies.
    """

    name: str
    cases: list[Case]
    candidates: list[str]
    source: str
    splits_from_column: bool = False
    warnings: list[str] = field(default_factory=list)  # for people: what loads but may not be meant (NFC twin ids)
    identity: str = ""
    # What is derived from the cases, kept (see the invariant above): not part of the value.
    _derived: dict[tuple[Any, ...], Any] = field(default_factory=dict, init=False, repr=False, compare=False)

    def _kept(self, key: tuple[Any, ...], make: Callable[[], _T]) -> _T:
        if key not in self._derived:
            self._derived[key] = make()  # two threads may both make it: the same value, one kept
        kept: _T = self._derived[key]
        return kept

    def for_candidate(self, candidate: str) -> list[Case]:
        """The cases of one candidate, in file order. Raises ``ValueError`` for an unknown name."""
        return list(self.cases_of(candidate, None))

    def cases_of(self, candidate: str, split: str | None) -> tuple[Case, ...]:
        """One candidate's cases in ``split`` (every split for ``None``), in file order, kept: the dataset's own
        tuple, not a copy. Raises ``ValueError`` for an unknown candidate."""
        if candidate not in self.candidates:
            raise ValueError(f"The dataset has no candidate {candidate!r}; its candidates are {self.candidates}.")
        if split is not None:
            return self._kept(
                ("cases", candidate, split),
                lambda: tuple(case for case in self.cases_of(candidate, None) if case.split == split),
            )
        return self._kept(("cases", candidate, None), lambda: tuple(c for c in self.cases if c.candidate == candidate))

    def case_ids(self) -> frozenset[str]:
        """Every case id (each candidate has the same ones), computed once."""
        return self._kept(("ids",), lambda: frozenset(case.id for case in self.cases))

    def check_sample(self, candidate: str, split: str | None, k: int) -> list[Case]:
        """:func:`~skynet_core.datasets.splits.sample_for_check` of :meth:`cases_of`, computed once."""
        from .splits import sample_for_check

        return list(
            self._kept(("sample", candidate, split, k), lambda: sample_for_check(self.cases_of(candidate, split), k))
        )

    def split_counts(self) -> dict[str, int]:
        """How many distinct case ids each split has (one candidate's worth, since all line up).

        With planned splits the keys are always ``train``, ``val``, ``test`` (zeros
        included) and the counts equal ``split_plan(number of ids)``. With a split
        column the keys are the names present: ``train``, ``val``, ``test`` first,
        then the others in order of first appearance.
        """
        return dict(self._kept(("split counts",), self._split_counts))

    def _split_counts(self) -> dict[str, int]:
        per_id = {case.id: case.split for case in self.cases}
        counts = dict.fromkeys(SPLITS, 0)
        for split in per_id.values():
            counts[split] = counts.get(split, 0) + 1
        if self.splits_from_column:
            counts = {split: count for split, count in counts.items() if count}
        return counts

    def by_split(self, split: str | None) -> list[Case]:
        """The cases (every candidate's) in ``split``, in file order; all cases when ``split`` is ``None``."""
        if split is None:
            return list(self.cases)
        return [case for case in self.cases if case.split == split]


@dataclass
class _Row:
    """One parsed line or row, before ids and splits are settled."""

    number: int
    where: str
    input: dict[str, Any]
    output: Any
    expected: dict[str, Any] | None
    observation: Observation
    id: str | None
    split: str | None
    candidate: str | None
    human: float | None = None
