"""The human scores of one dataset as a page reads them: the stored ones and the data file's own, read once.

A dataset is known to the human scores by its ``Dataset.source`` (the main file's path, or ``"example"``),
the key the scored runs use too. An upload lands on a path named for its bytes, so the same file uploaded
again finds its labels; candidate files, roles and the candidate in use are not part of the key, so a
change of them keeps every label (a label names its candidate itself). A file whose bytes change under a
new upload is another dataset.

A data file's ``human`` column is read live, as the scores of one more rater, :data:`FILE_RATER`: it is
never copied into the store, so editing the file changes them and nothing is left behind when it goes.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from skynet_core.i18n import _

from .human_score import HumanScore, human_values

FILE_RATER = "(data file)"
"""The rater of the scores a data file's ``human`` column carries."""


def rater_label(name: str) -> str:
    """A rater's name for people: the data file's column in words, anyone else by name."""
    return _("the data file's human column") if name == FILE_RATER else name


@dataclass(frozen=True)
class ImportedLabels:
    """What an import kept: ``count`` scores by ``raters`` (most first), and the ``unknown`` ids (in the file's
    order) that are not cases of the dataset in use (kept all the same: the data may gain them)."""

    count: int
    raters: tuple[str, ...]
    unknown: tuple[str, ...] = ()


@dataclass(frozen=True)
class HumanLabels:
    """Every human score of one dataset (``dataset``: its source), as one value a page reads once.

    Invariants: ``scores`` hold each ``(case id, candidate, rater)`` once, the stored ones and the data
    file's (:data:`FILE_RATER`; the file's win over a stored copy of the same key), oldest first.
    """

    dataset: str
    scores: tuple[HumanScore, ...] = ()

    @classmethod
    def merged(cls, dataset: str, stored: Iterable[HumanScore], from_file: Iterable[HumanScore]) -> HumanLabels:
        kept = {score.key: score for score in stored}
        kept.update((score.key, score) for score in from_file)
        return cls(dataset, tuple(kept.values()))

    def __bool__(self) -> bool:
        return bool(self.scores)

    def values(self, candidate: str, rater: str | None = None) -> dict[str, float]:
        """Each case's human score for ``candidate``'s outputs (one rater's, or the mean of every rater's)."""
        return human_values(self.scores, candidate, rater)

    def notes(self, candidate: str, rater: str | None = None) -> dict[str, str]:
        """The raters' notes on each case of ``candidate``'s outputs, by case id (several joined by lines)."""
        found: dict[str, list[str]] = {}
        for score in self.scores:
            if score.note and score.candidate in (candidate, "") and rater in (None, score.rater):
                found.setdefault(score.case_id, []).append(score.note)
        return {case_id: "\n".join(notes) for case_id, notes in found.items()}

    def raters(self) -> list[str]:
        """Who scored cases of the dataset, most scores first (then by name)."""
        counts: dict[str, int] = {}
        for score in self.scores:
            counts[score.rater] = counts.get(score.rater, 0) + 1
        return sorted(counts, key=lambda name: (-counts[name], name))

    def of_rater(self, rater: str, candidate: str) -> dict[str, HumanScore]:
        """``rater``'s score of each case of ``candidate``'s outputs, by case id: the candidate's own score over
        one given without a candidate (what the labelling view shows and changes)."""
        exact = {s.case_id: s for s in self.scores if s.rater == rater and s.candidate == candidate}
        general = {s.case_id: s for s in self.scores if s.rater == rater and not s.candidate}
        return {**general, **exact}

    def stored(self) -> list[HumanScore]:
        """The scores kept in the store (the data file's column left out): what an export writes."""
        return [score for score in self.scores if score.rater != FILE_RATER]
