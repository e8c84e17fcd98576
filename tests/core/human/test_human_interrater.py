"""Two raters' agreement (Krippendorff's alpha, interval) against the krippendorff package, and the rules against marks
against scikit-learn's precision and recall."""

from __future__ import annotations

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import precision_score, recall_score

from skynet_core.cases import Case
from skynet_core.feedback import Mark, MarkValue, review
from skynet_core.human import Undefined, rater_agreement, rules_against_marks
from skynet_core.results import CaseResult


def package_alpha(first: dict[str, float], second: dict[str, float]) -> float:
    ids = sorted(set(first) | set(second))
    data = np.array([[first.get(i, np.nan) for i in ids], [second.get(i, np.nan) for i in ids]], dtype=float)
    return float(krippendorff.alpha(reliability_data=data, level_of_measurement="interval"))


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_alpha_equals_the_krippendorff_package_on_random_scores(seed):
    rng = np.random.default_rng(seed)
    truth = rng.random(80)
    first = {f"c{i}": float(v) for i, v in enumerate(np.clip(truth + rng.normal(0, 0.2, 80), 0, 1))}
    second = {f"c{i}": float(v) for i, v in enumerate(np.clip(truth + rng.normal(0, 0.2, 80), 0, 1))}
    found = rater_agreement(first, second, names=("ana", "bo"))
    assert found.alpha.value == pytest.approx(package_alpha(first, second), abs=1e-12)
    assert found.alpha.low is not None and found.alpha.low <= found.alpha.high
    assert (found.first, found.second, found.n) == ("ana", "bo", 80)


def test_alpha_with_heavy_ties_and_cases_only_one_rater_scored():
    first = {f"c{i}": float(i % 5 + 1) for i in range(40)}
    second = {f"c{i}": float((i + (i % 3 == 0)) % 5 + 1) for i in range(10, 50)}
    found = rater_agreement(first, second)
    shared_first = {k: v for k, v in first.items() if k in second}
    assert found.alpha.value == pytest.approx(package_alpha(first, second), abs=1e-12)
    assert found.alpha.value == pytest.approx(package_alpha(shared_first, second), abs=1e-12)
    assert (found.n, found.only_first, found.only_second) == (30, 10, 10)
    gaps = [item.gap for item in found.disagreements]
    assert gaps == sorted(gaps, reverse=True) and all(gap > 0 for gap in gaps)


def test_two_cases_and_identical_raters():
    assert rater_agreement({"a": 0.0, "b": 1.0}, {"a": 0.0, "b": 1.0}).alpha.value == pytest.approx(1.0)
    two = rater_agreement({"a": 0.0, "b": 1.0}, {"a": 0.5, "b": 1.0})
    assert two.alpha.value == pytest.approx(package_alpha({"a": 0.0, "b": 1.0}, {"a": 0.5, "b": 1.0}))
    assert [item.id for item in two.disagreements] == ["a"]


def test_alpha_is_undefined_for_constant_ratings_and_no_shared_case():
    same = rater_agreement({"a": 1.0, "b": 1.0}, {"a": 1.0, "b": 1.0})
    assert same.alpha.reason is Undefined.CONSTANT_RATINGS
    with pytest.raises(ValueError):  # the package refuses it too
        package_alpha({"a": 1.0, "b": 1.0}, {"a": 1.0, "b": 1.0})
    apart = rater_agreement({"a": 1.0}, {"b": 0.0})
    assert apart.alpha.reason is Undefined.TOO_FEW
    assert (apart.n, apart.only_first, apart.only_second) == (0, 1, 1)


def scored_run():
    feedbacks = ["Wrong.", "Expected 'billing', got 'other'. The message mentions a charge.", "Bad.", "ok", ""]
    pairs = []
    for index in range(30):
        feedback = feedbacks[index % len(feedbacks)]
        case = Case(id=f"t{index}", input={"q": f"question {index}"}, output="other", expected={"label": "billing"})
        pairs.append((case, CaseResult(id=case.id, score=(index % 3) / 2, feedback=feedback)))
    return pairs


def test_each_rules_precision_and_recall_equal_sklearns():
    pairs = scored_run()
    verdict = review(pairs)
    rng = np.random.default_rng(4)
    marks = {}
    for case, result in pairs[:26]:  # four cases stay unmarked
        weak = len(result.feedback.split()) < 3 if rng.random() < 0.8 else rng.random() < 0.5
        marks[case.id] = Mark(case.id, MarkValue.WEAK if weak else MarkValue.USEFUL, "", "2026-01-01T00:00:00+00:00")
    found = rules_against_marks(verdict, marks)
    assert [item.rule for item in found] == [rule.name for rule in verdict.rules]
    marked = [case.id for case, _result in pairs[:26]]
    weak = [marks[case_id].value is MarkValue.WEAK for case_id in marked]
    checked = 0
    for item in found:
        flagged = [item.rule in verdict.rules_broken.get(case_id, []) for case_id in marked]
        if any(flagged):
            assert item.precision.value == pytest.approx(precision_score(weak, flagged))
            checked += 1
        else:
            assert item.precision.reason is Undefined.NO_FLAGS
        assert item.recall.value == pytest.approx(recall_score(weak, flagged))
        assert item.confusion.total == 26
    assert checked >= 1


def test_recall_is_undefined_without_weak_marks():
    pairs = scored_run()
    marks = {case.id: Mark(case.id, MarkValue.USEFUL, "", "") for case, _result in pairs}
    found = rules_against_marks(review(pairs), marks)
    assert all(item.recall.reason is Undefined.NO_WEAK_MARKS for item in found)
