"""The metric's results joined to the human scores, case by case."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from skynet_core.results import CaseResult

from .report import UNKNOWN_KEPT


@dataclass(frozen=True)
class LabelledCase:
    """A case that has a human score and that the metric scored (``ok``): both on the metric's scale.
    ``scores`` are its named scores."""

    id: str
    score: float
    human: float
    scores: Mapping[str, float] = field(default_factory=dict)


@dataclass(frozen=True)
class Pairing:
    """A run's results against the human scores.

    - ``cases``: the labelled cases the metric scored, in run order (the figures are computed on these).
    - ``unlabelled``: how many of the run's cases have no human score.
    - ``unknown``: the first :data:`.report.UNKNOWN_KEPT` ids of human scores that are not among the run's
      cases, in the labels' order; ``unknown_count`` counts them all (at least ``len(unknown)``).
    - ``unscored``: labelled cases the metric did not score (error, timeout, invalid), in run order.
    """

    cases: tuple[LabelledCase, ...]
    unlabelled: int
    unknown: tuple[str, ...] = ()
    unscored: tuple[str, ...] = ()
    unknown_count: int = 0

    @property
    def n(self) -> int:
        return len(self.cases)


class PairingBuilder:
    """Builds a :class:`Pairing` from results fed one at a time, keeping only the labelled ones (so the
    command line's streamed runs do not grow with the number of cases). A repeated case id counts once."""

    def __init__(self, humans: Mapping[str, float]) -> None:
        self.humans = humans
        self.cases: list[LabelledCase] = []
        self.unscored: list[str] = []
        self.seen: set[str] = set()
        self.unlabelled = 0

    def add(self, result: CaseResult) -> None:
        human = self.humans.get(result.id)
        if human is None:
            self.unlabelled += 1
            return
        if result.id in self.seen:
            return
        self.seen.add(result.id)
        if result.ok and result.score is not None:
            self.cases.append(LabelledCase(result.id, float(result.score), float(human), dict(result.scores)))
        else:
            self.unscored.append(result.id)

    def build(self, unknown: Sequence[str] = (), unknown_count: int = 0) -> Pairing:
        """The pairing; ``unknown`` ids (``unknown_count`` of them) of labels read but not kept come first."""
        count = unknown_count
        sample = list(unknown[:UNKNOWN_KEPT])
        for case_id in self.humans:
            if case_id not in self.seen:
                count += 1
                if len(sample) < UNKNOWN_KEPT:
                    sample.append(case_id)
        return Pairing(tuple(self.cases), self.unlabelled, tuple(sample), tuple(self.unscored), max(count, len(sample)))


def pair_results(results: Iterable[CaseResult], humans: Mapping[str, float]) -> Pairing:
    """Join one candidate's ``results`` to ``humans`` (human scores by case id, see :func:`.human_values`)."""
    builder = PairingBuilder(humans)
    for result in results:
        builder.add(result)
    return builder.build()
