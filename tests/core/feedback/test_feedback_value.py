"""Which saved experiment speaks for a metric version's feedback value (skynet_core.engines.uplift.standing)."""

from __future__ import annotations

from skynet_core.engines.uplift.result import Outcome
from skynet_core.engines.uplift.saved import UpliftSummary
from skynet_core.engines.uplift.standing import most_complete, partial_note
from skynet_core.engines.uplift.stats import Interval
from skynet_core.provenance import Provenance

MADE_BY = Provenance("digest", "example", "Support tickets", "small", None)


def experiment(id: int, outcome: Outcome, seeds: int, value: float | None = 0.4) -> UpliftSummary:
    """Experiment ``id``, saved at time ``id`` (a larger id is newer)."""
    interval = Interval(value, None, None, seeds) if value is not None else Interval(None, None, None, 0)
    return UpliftSummary(id, float(id), "digest", MADE_BY, outcome, seeds, interval)


def test_a_complete_experiment_speaks_before_a_newer_partial_one() -> None:
    complete, cancelled = experiment(1, Outcome.COMPLETE, 3), experiment(2, Outcome.CANCELLED, 1)
    assert most_complete([cancelled, complete]) == complete
    assert partial_note(complete) is None and partial_note(cancelled) == "partial: cancelled"


def test_more_seeds_speak_before_fewer_then_the_newest() -> None:
    three, five, newer_five = (
        experiment(1, Outcome.COMPLETE, 3),
        experiment(2, Outcome.COMPLETE, 5),
        experiment(3, Outcome.COMPLETE, 5),
    )
    assert most_complete([three, five]) == five
    assert most_complete([three, five, newer_five]) == newer_five
    budget, cancelled = experiment(4, Outcome.BUDGET, 2), experiment(5, Outcome.CANCELLED, 1)
    assert most_complete([cancelled, budget]) == budget  # only partial ones: the one with more seeds


def test_an_experiment_without_a_value_never_speaks() -> None:
    assert most_complete([experiment(1, Outcome.METRIC_FAILED, 0, value=None)]) is None
    assert most_complete([]) is None
