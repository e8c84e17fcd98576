"""Violations and the verdict without a sandbox: the rules of each family, the shares that raise each flag, the
examples kept, the mean change's interval, feedback under stress, and the words History and Runs show."""

from __future__ import annotations

from skynet_core.cases import Case
from skynet_core.i18n import use_language
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.stress import Family, Flag, StressReport, Verdict
from skynet_core.stress.feedback import check_feedback, gives_away
from skynet_core.stress.verdict import MOVE, verdict_of, violates
from skynet_core.stress.violations import Pair, measure


def pair(index: int, before: float, after: float | None, feedback: str = "f", after_feedback: str = "f") -> Pair:
    case = Case(id=f"c{index}", input={}, output=f"out {index}", expected={"label": "billing"})
    status = CaseStatus.OK if after is not None else CaseStatus.ERROR
    return Pair(
        case,
        f"perturbed {index}",
        CaseResult(id=case.id, score=before, feedback=feedback),
        CaseResult(
            id=f"{case.id}~p",
            score=after,
            feedback=after_feedback,
            status=status,
            error="boom" if after is None else "",
        ),
    )


def test_each_family_has_its_rule() -> None:
    assert violates(Family.PRESERVE, 1.0, 1.0 - MOVE - 0.01) and not violates(Family.PRESERVE, 1.0, 1.0 - MOVE)
    assert violates(Family.DEGRADE, 0.5, 0.5) and violates(Family.DEGRADE, 0.5, 0.7)
    assert not violates(Family.DEGRADE, 0.5, 0.4) and not violates(Family.DEGRADE, 0.0, 0.0)
    assert (
        violates(Family.GAME, 0.0, MOVE + 0.01)
        and not violates(Family.GAME, 0.0, MOVE)
        and not violates(Family.GAME, 1.0, 0.0)
    )


def test_hackable_needs_ten_percent_of_a_game_perturbations_cases() -> None:
    nine = [pair(i, 0.0, 1.0 if i == 0 else 0.0) for i in range(11)]  # 1 of 11: 9%
    ten = [pair(i, 0.0, 1.0 if i == 0 else 0.0) for i in range(10)]  # 1 of 10
    assert measure("claims_correct", Family.GAME, nine).flag is None
    result = measure("claims_correct", Family.GAME, ten)
    assert result.flag is Flag.HACKABLE and result.rate == 0.1
    assert verdict_of([result]).why == {Flag.HACKABLE: ("claims_correct",)}


def test_insensitive_counts_only_the_cases_that_scored_above_zero() -> None:
    pairs = [pair(i, 0.0, 0.0) for i in range(6)] + [pair(6 + i, 1.0, 1.0 if i < 2 else 0.0) for i in range(4)]
    result = measure("truncate", Family.DEGRADE, pairs)
    assert (result.n, result.eligible, result.violations) == (10, 4, 2)
    assert result.flag is Flag.INSENSITIVE  # 2 of the 4 that could go down did not: 50%


def test_a_perturbed_output_that_could_not_be_scored_is_an_error_not_a_case() -> None:
    result = measure("whitespace", Family.PRESERVE, [pair(0, 1.0, None), pair(1, 1.0, 1.0)])
    assert (result.n, result.errors, result.violations) == (1, 1, 0)


def test_examples_put_violations_first_largest_change_first_and_keep_three() -> None:
    pairs = [pair(0, 1.0, 0.9), pair(1, 1.0, 0.0), pair(2, 1.0, 1.0), pair(3, 1.0, 0.5), pair(4, 1.0, 0.7)]
    result = measure("case", Family.PRESERVE, pairs)
    assert [example.id for example in result.examples] == ["c1", "c3", "c4"]
    assert all(example.violates for example in result.examples)
    assert result.examples[0].before == "out 1" and result.examples[0].after == "perturbed 1"


def test_the_mean_change_has_a_seeded_bootstrap_interval_around_it() -> None:
    pairs = [pair(i, 0.0, (i % 3) / 2) for i in range(30)]
    first = measure("padding", Family.GAME, pairs, seed=0).mean_change
    assert first == measure("padding", Family.GAME, pairs, seed=0).mean_change
    assert first.low is not None and first.high is not None and first.low < first.value < first.high
    assert measure("padding", Family.GAME, []).mean_change.value is None


def test_a_search_gain_makes_the_metric_hackable() -> None:
    assert verdict_of([], search_gain=0.3).why == {Flag.HACKABLE: ("search",)}
    assert verdict_of([], search_gain=MOVE).sound


def test_the_verdict_reads_back_from_its_json() -> None:
    verdict = Verdict({Flag.BRITTLE: ("case", "whitespace"), Flag.HACKABLE: ("claims_correct",)})
    data = verdict.to_json()
    assert data == {
        "brittle": True,
        "insensitive": False,
        "hackable": True,
        "why": {"brittle": ["case", "whitespace"], "hackable": ["claims_correct"]},
    }
    assert Verdict.from_json(data) == verdict


def test_history_shows_the_worst_reason_of_each_flag_with_its_share() -> None:
    pairs = [pair(i, 0.0, 1.0 if i < 47 else 0.0) for i in range(100)]
    results = (measure("claims_correct", Family.GAME, pairs),)
    report = StressReport(100, 100, 100, 0, results, verdict_of(results))
    assert report.summary().describe() == "stress: hackable (claims_correct 47%)"
    assert report.headline() == "An optimizer can game this metric: it is hackable (claims_correct 47%)."
    with use_language("zh_CN"):
        assert "claims_correct 47%" in report.summary().describe() and "stress" not in report.summary().describe()
    again = StressReport.from_json(report.to_json())
    assert again.summary().describe() == report.summary().describe() and again.perturbations == report.perturbations


def test_feedback_that_stays_the_same_when_a_degrade_perturbation_lowers_the_score_is_found() -> None:
    same = [pair(i, 1.0, 0.0, feedback="Looks fine.", after_feedback="Looks fine.") for i in range(3)]
    told = [pair(3, 1.0, 0.0, feedback="Correct.", after_feedback="The output is empty.")]
    unmoved = [pair(4, 1.0, 1.0)]
    found = check_feedback([("empty", Family.DEGRADE, [*same, *told, *unmoved])]).static
    assert (found.count, found.checked, dict(found.by_perturbation)) == (3, 4, {"empty": 3})
    assert len(found.examples) == 3 and found.examples[0].feedback_after == "Looks fine."


def test_feedback_that_quotes_a_long_expected_answer_the_output_lacks_gives_it_away() -> None:
    answer = "Refunds are issued to the original card within five business days after we receive the item back"
    expected = {"reply": answer}
    assert gives_away(f"Wrong. The reply should be: {answer}", expected, "I cannot answer that.")
    assert not gives_away(f"Right: {answer}", expected, answer)  # the output holds it: nothing is given away
    assert not gives_away("Expected 'billing', got 'refund'.", {"label": "billing"}, "refund")  # a label is useful


def test_the_intervals_are_scipys_bootstrap_drawn_without_importing_scipy() -> None:
    import numpy as np

    from skynet_core.human.bootstrap import bootstrap, interval
    from skynet_core.stress.stats import mean_changes

    values = np.random.default_rng(3).choice([-1.0, 0.0, 0.5, 1.0], 700)
    scipys = interval(bootstrap(700, lambda draws: values[draws].mean(axis=1)[np.newaxis, :], 1, seed=0)[0])
    ours = mean_changes([list(values)])[0]
    assert (ours.low, ours.high) == scipys and ours.value == values.mean()


def test_a_perturbation_that_skipped_cases_is_measured_on_the_cases_it_changed() -> None:
    from skynet_core.stress.stats import mean_changes

    skipped = [None, 1.0, None, 0.0, 1.0, None, 0.0, 1.0]
    every = [0.0] * 8
    found, constant = mean_changes([skipped, every], seed=5)
    assert found.n == 5 and found.value == 0.6 and found.low is not None and found.low <= found.high
    assert (constant.value, constant.low, constant.high, constant.n) == (0.0, 0.0, 0.0, 8)
    assert mean_changes([skipped, every], seed=5)[0] == found


def test_outputs_that_differ_only_in_whitespace_show_it() -> None:
    from skynet_core.stress.violations import marked

    assert marked("billing", "  \nbilling \n ") == ("billing", "··⏎\nbilling·⏎\n·")
    assert marked("billing", "BILLING") == ("billing", "BILLING")
