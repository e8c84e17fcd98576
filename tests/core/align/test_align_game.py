"""The stress test's game family beside an alignment, without a sandbox: when the aligned judge counts as easier
to fool than the starting one, and the words that say so."""

from __future__ import annotations

from skynet_core.align.game import GameCheck
from skynet_core.cases import Case
from skynet_core.results import CaseResult
from skynet_core.stress import Family, StressReport
from skynet_core.stress.verdict import verdict_of
from skynet_core.stress.violations import Pair, measure


def report(rises: dict[str, int], cases: int = 10) -> StressReport:
    """A game-family report on ``cases`` cases in which each perturbation raised the score of ``rises[id]`` cases."""
    measured = []
    for perturbation, risen in rises.items():
        pairs = [
            Pair(
                Case(id=f"c{index}", input={}, output=f"out {index}"),
                f"{perturbation} {index}",
                CaseResult(id=f"c{index}", score=0.0, feedback="f"),
                CaseResult(id=f"c{index}~{perturbation}", score=1.0 if index < risen else 0.0, feedback="f"),
            )
            for index in range(cases)
        ]
        measured.append(measure(perturbation, Family.GAME, pairs, 0))
    return StressReport(cases, cases, cases, 0, tuple(measured), verdict_of(measured))


def test_a_perturbation_that_fools_the_aligned_judge_ten_points_more_often_makes_it_easier_to_fool() -> None:
    check = GameCheck(report({"null": 1, "claims_correct": 0}), report({"null": 4, "claims_correct": 2}))
    assert check.easier == ("null", "claims_correct")  # the larger rise first
    assert "easier to fool than the starting one (null, claims_correct)" in check.lines()[-1]


def test_a_judge_fooled_as_often_as_before_or_below_the_hackable_share_is_not_easier_to_fool() -> None:
    same = GameCheck(report({"null": 3}), report({"null": 3}))
    below = GameCheck(report({"padding": 0}, cases=20), report({"padding": 1}, cases=20))  # 5%: not hackable
    assert same.easier == () and below.easier == ()
    assert same.lines()[-1] == "The aligned judge is no easier to fool than the starting one."


def test_its_json_has_both_reports_and_the_perturbations_behind_the_flag() -> None:
    found = GameCheck(report({"null": 0}), report({"null": 5})).to_json()
    assert found["family"] == "game" and found["easier_to_fool"] == ["null"]
    assert not found["before"]["verdict"]["hackable"] and found["after"]["verdict"]["why"]["hackable"] == ["null"]
