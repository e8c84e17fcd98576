"""Agreement across versions: each scored run keeps its agreement, and two runs' agreement is compared.

A run's agreement is computed from the human scores that exist when it is scored, and kept in a
side table of the studio's database keyed by the run's id (:class:`skynet_core.store.human.RunAgreements`;
:mod:`skynet_core.runs` is unchanged;
the agreement of a run that was dropped to keep the newest ones goes at the next save). Comparing
two runs recomputes both against the same human scores, so that the difference is the metric's,
not the labels'; the cases whose score moved toward the person's score or away from it show
what an edit changed.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import TYPE_CHECKING

from skynet_core.results import CaseResult

from .bootstrap import RESAMPLES, SEED
from .pairing import pair_results
from .report import DEFAULT_THRESHOLD, FIGURES, Agreement
from .statistics import measure_agreement

if TYPE_CHECKING:  # the store imports this package's records: only its type here
    from ..store.human import RunAgreements


def agreement_of(
    results: Iterable[CaseResult],
    humans: Mapping[str, float],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> Agreement | None:
    """The agreement of one candidate's ``results`` with ``humans`` (human scores by case id, see
    :meth:`.HumanLabels.values`), or ``None`` when there are none: what a scored run's summary, the report and
    the record kept with a run show."""
    if not humans:
        return None
    return measure_agreement(pair_results(results, humans), threshold=threshold, resamples=resamples, seed=seed)


def record_run_agreement(
    run_id: int,
    results: Iterable[CaseResult],
    humans: Mapping[str, float],
    kept: RunAgreements,
    *,
    threshold: float = DEFAULT_THRESHOLD,
) -> Agreement | None:
    """Compute a run's agreement with the human scores that exist now and keep it with the run: what to call
    right after a scored run is saved. ``None`` (nothing kept) when there are no human scores."""
    agreement = agreement_of(results, humans, threshold=threshold)
    if agreement is not None:
        kept.save(run_id, agreement)
    return agreement


class Movement(StrEnum):
    """How a case's gap to the person's score changed from run A to run B."""

    TOWARD = "toward"
    AWAY = "away"
    SAME = "same"


@dataclass(frozen=True)
class CaseMove:
    """A labelled case both runs scored: its human score and the two metric scores. ``change`` is
    ``gap_b - gap_a`` (negative: B is nearer the person's score)."""

    id: str
    human: float
    score_a: float
    score_b: float

    @property
    def gap_a(self) -> float:
        return abs(self.score_a - self.human)

    @property
    def gap_b(self) -> float:
        return abs(self.score_b - self.human)

    @property
    def change(self) -> float:
        return self.gap_b - self.gap_a

    @property
    def movement(self) -> Movement:
        if self.change < 0:
            return Movement.TOWARD
        return Movement.AWAY if self.change > 0 else Movement.SAME


@dataclass(frozen=True)
class AgreementComparison:
    """Run A's agreement against run B's on the same human scores, and the labelled cases whose score changed,
    the largest change of gap first (``moves``; cases whose gap stayed the same are left out)."""

    a: Agreement
    b: Agreement
    moves: tuple[CaseMove, ...]

    def change(self, figure: str) -> float | None:
        """B's value of ``figure`` (a :data:`.report.FIGURES` name) minus A's; ``None`` when either is undefined."""
        first, second = self.a.figure(figure).value, self.b.figure(figure).value
        return None if first is None or second is None else second - first

    def changes(self) -> dict[str, float | None]:
        return {figure: self.change(figure) for figure in FIGURES}

    @property
    def toward(self) -> tuple[CaseMove, ...]:
        return tuple(move for move in self.moves if move.movement is Movement.TOWARD)

    @property
    def away(self) -> tuple[CaseMove, ...]:
        return tuple(move for move in self.moves if move.movement is Movement.AWAY)


def compare_agreement(
    results_a: Sequence[CaseResult],
    results_b: Sequence[CaseResult],
    humans: Mapping[str, float],
    *,
    threshold: float = DEFAULT_THRESHOLD,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> AgreementComparison:
    """Two runs (of the same dataset and candidate) against the same human scores (by case id)."""
    pairing_a, pairing_b = pair_results(results_a, humans), pair_results(results_b, humans)
    scores_b = {case.id: case.score for case in pairing_b.cases}
    moves = [
        CaseMove(case.id, case.human, case.score, scores_b[case.id])
        for case in pairing_a.cases
        if case.id in scores_b and scores_b[case.id] != case.score
    ]
    moves = [move for move in moves if move.movement is not Movement.SAME]
    moves.sort(key=lambda move: (-abs(move.change), move.id))
    return AgreementComparison(
        a=measure_agreement(pairing_a, threshold=threshold, resamples=resamples, seed=seed),
        b=measure_agreement(pairing_b, threshold=threshold, resamples=resamples, seed=seed),
        moves=tuple(moves),
    )
