"""Agreement across versions: each scored run keeps its agreement, and two runs' agreement is compared.

A run's agreement is computed from the human scores that exist when it is scored, and kept in a
side table of the studio's database keyed by the run's id (:mod:`skynet_core.runs` is unchanged;
the agreement of a run that was dropped to keep the newest ones goes at the next save). Comparing
two runs recomputes both against the same human scores, so that the difference is the metric's,
not the labels'; the cases whose score moved toward the person's score or away from it show
what an edit changed.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path

import orjson

from skynet_core.results import CaseResult
from skynet_core.store import connect, open_database

from .bootstrap import RESAMPLES, SEED
from .pairing import pair_results
from .report import DEFAULT_THRESHOLD, FIGURES, Agreement
from .statistics import measure_agreement

_SCHEMA = """
CREATE TABLE IF NOT EXISTS run_agreements (
    run_id INTEGER PRIMARY KEY,
    agreement TEXT NOT NULL,
    computed_at REAL NOT NULL
);
"""


class RunAgreements:
    """The agreement kept beside each scored run, in the studio's database in ``directory``."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)

    def save(self, run_id: int, agreement: Agreement) -> None:
        """Keep ``agreement`` as run ``run_id``'s (replacing an earlier one), and drop those of runs that are gone."""
        with connect(self.path) as db:
            db.execute(
                "INSERT INTO run_agreements (run_id, agreement, computed_at) VALUES (?, ?, ?) "
                "ON CONFLICT (run_id) DO UPDATE SET agreement = excluded.agreement, computed_at = excluded.computed_at",
                (run_id, orjson.dumps(agreement.to_record()).decode(), time.time()),
            )
            has_runs = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'scored_runs'"
            ).fetchone()
            if has_runs:
                db.execute("DELETE FROM run_agreements WHERE run_id NOT IN (SELECT id FROM scored_runs)")

    def get(self, run_id: int) -> Agreement | None:
        """Run ``run_id``'s agreement, or ``None`` when it has none (no human scores when it was scored)."""
        return self.of_runs([run_id]).get(run_id)

    def of_runs(self, run_ids: Iterable[int]) -> dict[int, Agreement]:
        """The agreement of each of ``run_ids`` that has one (for the list of runs: one query)."""
        wanted = list(dict.fromkeys(run_ids))
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        with connect(self.path) as db:
            rows = db.execute(
                f"SELECT run_id, agreement FROM run_agreements WHERE run_id IN ({marks})", wanted
            ).fetchall()
        return {int(run_id): Agreement.from_record(orjson.loads(text)) for run_id, text in rows}


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
