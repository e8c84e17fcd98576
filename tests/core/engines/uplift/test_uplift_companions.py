"""The uplift experiment's two cheap companions: the "Gives the answer away" feedback rule, and the noise GEPA
would accept from a judge's consistency runs."""

from __future__ import annotations

from typing import Any

import pytest

from skynet_core.cases import Case
from skynet_core.feedback import Thresholds, review, rules
from skynet_core.i18n import use_language
from skynet_core.judge import CaseSpread, Consistency
from skynet_core.judge.noise import noise_acceptance
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.views.feedback import threshold_fields

# 20 words
ANSWER = "The refund was issued on March 3 to the original card and should appear within five to seven business days"


def pair(case_id: str, feedback: str, expected: dict[str, Any] | None, score: float = 0.0) -> tuple[Case, CaseResult]:
    case = Case(id=case_id, input={"message": "Where is my refund?"}, output="Soon.", expected=expected)
    return case, CaseResult(id=case_id, status=CaseStatus.OK, score=score, feedback=feedback)


def gives_answer(pairs: list[tuple[Case, CaseResult]], thresholds: Thresholds | None = None) -> list[str]:
    return [flag.case_id for flag in review(pairs, thresholds).flags if flag.rule == "gives_answer"]


# --- Gives the answer away ----------------------------------------------------------------------------------


def test_feedback_that_pastes_a_long_expected_answer_is_flagged() -> None:
    pasted = pair("pasted", f"Wrong. The answer should have been: {ANSWER}.", {"answer": ANSWER})
    (flag,) = [flag for flag in review([pasted]).flags if flag.rule == "gives_answer"]
    assert flag.detail == "The feedback quotes 20 of the expected answer's 20 words."
    assert "without pasting the expected answer" in flag.suggestion


def test_the_documents_own_useful_feedback_and_class_labels_are_never_flagged() -> None:
    label = pair("label", "Expected 'billing', got 'other'. The message mentions a charge.", {"label": "billing"})
    short = pair("short", "Expected 'March 3', got 'soon'.", {"date": "March 3"})
    assert gives_answer([label, short], Thresholds(answer_quote=0.0)) == []


def test_most_of_the_answer_counts_and_too_little_does_not() -> None:
    words = ANSWER.split()
    most = pair("most", "Expected: " + " ".join(words[:16]) + ".", {"answer": ANSWER})  # 16 of 20 words, 80%
    some = pair("some", "Expected: " + " ".join(words[:15]) + ".", {"answer": ANSWER})  # 75%
    assert gives_answer([most, some]) == ["most"]
    assert gives_answer([most, some], Thresholds(answer_quote=0.7)) == ["most", "some"]


def test_a_short_answer_quoted_whole_is_below_twelve_words_and_not_flagged() -> None:
    eleven = " ".join(ANSWER.split()[:11])
    assert gives_answer([pair("eleven", f"The answer is {eleven}.", {"answer": eleven})]) == []
    twelve = " ".join(ANSWER.split()[:12])
    assert gives_answer([pair("twelve", f"The answer is {twelve}.", {"answer": twelve})]) == ["twelve"]


def test_shared_words_out_of_order_are_not_a_quote() -> None:
    scattered = " ".join(reversed(ANSWER.split()))
    assert gives_answer([pair("scattered", scattered, {"answer": ANSWER})]) == []


def test_the_rule_has_its_threshold_field_and_speaks_chinese() -> None:
    (rule,) = [rule for rule in rules() if rule.name == "gives_answer"]
    assert rule.title == "Gives the answer away" and rule.threshold == 0.8
    assert "answer_quote" in [field.setting for field in threshold_fields()]
    with pytest.raises(ValueError, match="between 0 and 1"):
        Thresholds(answer_quote=1.5)
    with use_language("zh_CN"):
        (rule,) = [rule for rule in rules() if rule.name == "gives_answer"]
        assert rule.title != "Gives the answer away" and rule.explanation.isascii() is False


# --- noise GEPA would accept --------------------------------------------------------------------------------


def consistency(*scores: tuple[float, ...]) -> Consistency:
    return Consistency(len(scores[0]), [CaseSpread(f"c{i}", case, (), ()) for i, case in enumerate(scores)])


def test_a_judge_that_always_agrees_lets_no_noise_through() -> None:
    found = noise_acceptance(consistency((1.0, 1.0, 1.0), (0.0, 0.0, 0.0), (0.5, 0.5, 0.5), (1.0, 1.0, 1.0)))
    assert found.rate == 0.0 and found.voted_rate == 0.0 and found.cases == 4
    assert "never accept" in found.describe()


def test_a_coin_flip_judge_lets_an_unchanged_candidate_win_about_a_third_of_the_time() -> None:
    # Each case passes half the time. The copy's three verdicts beat the parent's strictly in
    # (1 - P(tie)) / 2 of tries, P(tie) = sum over k of (C(3,k) / 8)^2 = 20/64.
    found = noise_acceptance(consistency(*[(0.0, 1.0, 1.0, 0.0)] * 5))
    assert found.rate == pytest.approx((1 - 20 / 64) / 2) and found.minibatch == 3
    assert found.voted_rate == pytest.approx(found.rate)  # a majority of fair coins is a fair coin
    assert "34.4%" in found.describe() and "temperature 0" in found.describe()


def test_a_majority_of_votes_lowers_the_noise_of_a_mostly_stable_judge() -> None:
    found = noise_acceptance(consistency(*[(1.0, 1.0, 1.0, 0.0)] * 4, *[(0.0, 0.0, 0.0, 1.0)] * 2))
    assert 0 < found.voted_rate < found.rate < 0.5
    # One case passing with p = 3/4: the copy wins when it passes and the parent fails.
    assert noise_acceptance(consistency((1.0, 1.0, 1.0, 0.0)), minibatch=3).rate == pytest.approx(3 / 16)
    assert noise_acceptance(consistency((1.0, 1.0, 1.0, 0.0))).minibatch == 1


def test_without_repeated_scores_there_is_no_estimate() -> None:
    found = noise_acceptance(Consistency(3, [CaseSpread("c0", (1.0,), (), ("Timeout",) * 2)]))
    assert found.rate is None and "cannot be estimated" in found.describe()


def test_many_cases_are_sampled_by_seed() -> None:
    judged = consistency(*[(0.0, 0.5, 1.0) if i % 2 else (1.0, 1.0, 0.5) for i in range(40)])
    first = noise_acceptance(judged)
    assert first == noise_acceptance(judged) and 0 < first.rate < 0.5
