"""A person's score for one case's output: the value every agreement figure compares the metric with."""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skynet_core.i18n import _

if TYPE_CHECKING:
    from skynet_core.cases import Case

PASS_VALUE = 1.0
"""A pass, on the metric's scale (the issue's rule: pass/fail is kept as 1/0)."""
FAIL_VALUE = 0.0
PASS_WORDS = {"pass": PASS_VALUE, "fail": FAIL_VALUE}


class LabelError(ValueError):
    """A label that cannot be read. The message is for people: the file and line, what is wrong and what to
    write instead. ``line`` repeats the line for a page that highlights it."""

    def __init__(self, message: str, *, line: int | None = None) -> None:
        super().__init__(message)
        self.line = line


@dataclass(frozen=True)
class HumanScore:
    """One person's score for one case's output.

    Invariants (checked on construction; a breach is a programming error, ``ValueError``):

    - The identity is ``(dataset, case_id, candidate, rater)``: one score per rater for each
      candidate's output of a case; scoring it again replaces it.
    - ``dataset`` is the label set the score is kept in (the ``Dataset.source`` of the file labelled first, or
      ``"example"``; see :mod:`.labels`), never empty. ``case_id`` is never empty. ``candidate`` names the
      output scored; it is ``""`` only in a dataset whose one candidate has no name.
    - ``value`` is a finite number on the metric's scale; a pass is stored as 1.0 and a fail as 0.0.
    - ``rater`` is never empty (the OS user unless the person changed it, see :mod:`.rater`).
    - ``note`` is free text from the person, shown literally, possibly empty.
    - ``labelled_at`` is seconds since the epoch (UTC).

    A human score does not depend on the metric's version: editing metric.py keeps every score.
    """

    dataset: str
    case_id: str
    candidate: str
    value: float
    rater: str
    note: str = ""
    labelled_at: float = 0.0

    def __post_init__(self) -> None:
        if not self.dataset or not self.case_id or not self.rater:
            raise ValueError(f"a human score needs a dataset, a case id and a rater: {self!r}")
        if isinstance(self.value, bool) or not isinstance(self.value, numbers.Real) or not math.isfinite(self.value):
            raise ValueError(f"a human score's value must be a finite number, not {self.value!r}")

    @property
    def key(self) -> tuple[str, str, str, str]:
        """``(dataset, case_id, candidate, rater)``: what makes this score unique."""
        return self.dataset, self.case_id, self.candidate, self.rater


def parse_human_value(value: Any) -> float | None:
    """A label as the number kept: a finite number as it is, ``pass`` as 1.0, ``fail`` as 0.0 (any case,
    around spaces), a number written as text as that number; ``None`` for an empty value (not labelled).

    Raises ``ValueError`` with the sentence that says what to write (the caller adds the file and line).
    """
    if value is None or (isinstance(value, str) and not value.strip()):
        return None
    if isinstance(value, numbers.Real) and not isinstance(value, bool):
        number = float(value)
    elif isinstance(value, str):
        text = value.strip()
        word = PASS_WORDS.get(text.lower())
        if word is not None:
            return word
        try:
            number = float(text)
        except ValueError:
            raise ValueError(_bad_value(value)) from None
    else:
        raise ValueError(_bad_value(value))
    if not math.isfinite(number):
        raise ValueError(_bad_value(value))
    return number


def _bad_value(value: Any) -> str:
    shown = repr(value) if not isinstance(value, str) else repr(value[:40] + ("…" if len(value) > 40 else ""))
    return _(
        "the human score is {value}, which is neither a number nor pass/fail; write a finite number on the "
        "metric's scale (such as 0.8), or pass or fail"
    ).format(value=shown)


def scores_from_cases(cases: Iterable[Case], dataset: str, rater: str) -> list[HumanScore]:
    """The human scores a data file carries (its ``human`` column, :attr:`Case.human`), as ``rater``'s scores of
    ``dataset``: to show beside the stored ones, or to keep with ``HumanScores.set_many``."""
    return [HumanScore(dataset, case.id, case.candidate, case.human, rater) for case in cases if case.human is not None]


def human_values(scores: Iterable[HumanScore], candidate: str, rater: str | None = None) -> dict[str, float]:
    """Each case's human score for ``candidate``'s outputs, by case id: the scores given for that candidate only
    (a person scored one output; another candidate's output of the same case is another score).

    With ``rater``, only that rater's scores count; without, a case rated by several people gets the mean of
    their scores.
    """
    found: dict[str, list[float]] = {}
    for score in scores:
        if score.candidate == candidate and (rater is None or score.rater == rater):
            found.setdefault(score.case_id, []).append(score.value)
    return {case_id: math.fsum(values) / len(values) for case_id, values in found.items()}


@dataclass(frozen=True)
class LabelImport:
    """One import of a labels file into a label set: ``file`` (its name), when, how many scores it ``kept``,
    how many rows named other cases (``unknown_rows``, with the first ids in ``unknown_sample``), and how many
    of its scores are still stored (``remaining``: a later score of the same case by the same rater replaces one)."""

    id: int
    dataset: str
    file: str
    imported_at: float
    kept: int
    unknown_rows: int = 0
    unknown_sample: tuple[str, ...] = ()
    remaining: int = 0
