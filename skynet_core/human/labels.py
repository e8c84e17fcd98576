"""The human scores of one dataset as a page reads them: the stored ones and the data file's own, read once.

A human score belongs to a case id and a candidate's output, not to a file's bytes. The store keeps scores in
*label sets*: the first data file labelled names one, and a later file that keeps its case ids (the same file
re-uploaded, edited, or grown by new cases) shares it (see ``Workspace.human.label_set``). What a page reads is the
scores of the label set whose case ids are cases of the data in use (:class:`HumanLabels`), with a count of
those that name other cases; candidate files, roles and the candidate in use are not part of the key (a score
names its candidate itself).

A data file's ``human`` column is read live, as the scores of one more rater, :data:`FILE_RATER`: it is
never copied into the store, so editing the file changes them and nothing is left behind when it goes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from skynet_core.i18n import LANGUAGES, N_, _, use_language

from .human_score import HumanScore, human_values

FILE_RATER = "(data file)"
"""The rater of the scores a data file's ``human`` column carries."""
FILE_RATER_WORDS = N_("the data file's human column")
EVERY_RATER_WORDS = N_("every rater (the mean)")
"""What the agreement report's rater picker calls the mean of every rater's scores."""


def rater_label(name: str) -> str:
    """A rater's name for people: the data file's column in words, anyone else by name."""
    return _(FILE_RATER_WORDS) if name == FILE_RATER else name


@cache
def reserved_rater_names() -> frozenset[str]:
    """The names no person may rate under (case-folded): :data:`FILE_RATER` and the words the pages show for the
    data file's column and for every rater's mean, in every language (a rater named so would read as them)."""
    names = {FILE_RATER}
    for language in LANGUAGES:
        with use_language(language):
            names.update((_(FILE_RATER_WORDS), _(EVERY_RATER_WORDS)))
    return frozenset(name.casefold() for name in names)


@dataclass(frozen=True)
class ImportedLabels:
    """What an import kept: ``count`` scores by ``raters`` (most first), for ``candidate`` when the file named
    none (``None``: every row named its candidate), as import ``import_id``; and the ``unknown_rows`` that name
    cases the data in use does not have (not kept), with the first few of their ids in ``unknown_sample``."""

    count: int
    raters: tuple[str, ...]
    candidate: str | None = None
    import_id: int = 0
    unknown_rows: int = 0
    unknown_sample: tuple[str, ...] = ()


@dataclass(frozen=True)
class HumanLabels:
    """Every human score of one dataset (``dataset``: its source), as one value a page reads once.

    Invariants: ``scores`` hold each ``(case id, candidate, rater)`` once, the stored ones and the data
    file's (:data:`FILE_RATER`; the file's win over a stored copy of the same key), oldest first. The stored
    ones are those of ``label_set`` (the dataset's source, or the file labelled first that kept these ids) that
    name cases of the data when it is known; ``elsewhere`` counts the label set's scores of other cases.
    """

    dataset: str
    scores: tuple[HumanScore, ...] = ()
    label_set: str = ""
    elsewhere: int = 0

    @classmethod
    def merged(
        cls,
        dataset: str,
        stored: Iterable[HumanScore],
        from_file: Iterable[HumanScore],
        *,
        label_set: str = "",
        elsewhere: int = 0,
    ) -> HumanLabels:
        kept = {score.key[1:]: score for score in stored}
        kept.update((score.key[1:], score) for score in from_file)
        return cls(dataset, tuple(kept.values()), label_set or dataset, elsewhere)

    def __bool__(self) -> bool:
        return bool(self.scores)

    @property
    def origin(self) -> str | None:
        """The name of the file the scores were first made on, when it is not this dataset's own (``None``)."""
        return None if self.label_set in ("", self.dataset) else Path(self.label_set).name

    def values(self, candidate: str, rater: str | None = None) -> dict[str, float]:
        """Each case's human score for ``candidate``'s outputs (one rater's, or the mean of every rater's)."""
        return human_values(self.scores, candidate, rater)

    def notes(self, candidate: str, rater: str | None = None) -> dict[str, str]:
        """The raters' notes on each case of ``candidate``'s outputs, by case id (several joined by lines)."""
        found: dict[str, list[str]] = {}
        for score in self.scores:
            if score.note and score.candidate == candidate and rater in (None, score.rater):
                found.setdefault(score.case_id, []).append(score.note)
        return {case_id: "\n".join(notes) for case_id, notes in found.items()}

    def raters(self, candidate: str | None = None) -> list[str]:
        """Who scored cases of the dataset (of ``candidate``'s outputs when given), most scores first (then by name)."""
        counts: dict[str, int] = {}
        for score in self.scores:
            if candidate is None or score.candidate == candidate:
                counts[score.rater] = counts.get(score.rater, 0) + 1
        return sorted(counts, key=lambda name: (-counts[name], name))

    def of_rater(self, rater: str, candidate: str) -> dict[str, HumanScore]:
        """``rater``'s score of each case of ``candidate``'s outputs, by case id (what the labelling view shows)."""
        return {s.case_id: s for s in self.scores if s.rater == rater and s.candidate == candidate}

    def stored(self) -> list[HumanScore]:
        """The scores kept in the store (the data file's column left out): what an export writes."""
        return [score for score in self.scores if score.rater != FILE_RATER]

    def without_candidate(self, candidates: Iterable[str]) -> list[HumanScore]:
        """Stored scores that name no candidate although the data's candidates have names: kept before a score
        belonged to one candidate's output (an import without a ``candidate`` column), used by none now."""
        named = [name for name in candidates if name]
        return [s for s in self.stored() if not s.candidate and named]
