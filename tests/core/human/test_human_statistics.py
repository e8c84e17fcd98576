"""The agreement figures against scipy and scikit-learn: random data, heavy ties, constant scores, n = 2 and
missing labels."""

from __future__ import annotations

import math
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import cohen_kappa_score, confusion_matrix, mean_absolute_error, recall_score

from skynet_core.human import (
    Estimate,
    LabelledCase,
    Pairing,
    Undefined,
    measure_agreement,
    pair_results,
)
from skynet_core.human.statistics import _codes, _constant_rows, _kendall_rows, _pearson_rows, _ranks, _spearman_rows
from skynet_core.results import CaseResult, CaseStatus


def pairing_of(score, human, named=None) -> Pairing:
    named = named or {}
    return Pairing(
        tuple(
            LabelledCase(f"c{i}", float(s), float(h), {name: float(values[i]) for name, values in named.items()})
            for i, (s, h) in enumerate(zip(score, human, strict=True))
        ),
        unlabelled=0,
    )


def random_data(n: int, seed: int, ties: bool = False) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    score = rng.random(n)
    human = np.clip(score + rng.normal(0, 0.3, n), 0, 1)
    if ties:  # a 0-1 metric in quarter steps against a 1-5 label
        score, human = np.round(score * 4) / 4, np.round(human * 4) / 4
    return score, human


def sklearn_reference(score, human, threshold):
    metric_pass, human_pass = score >= threshold, human >= threshold
    tn, fp, fn, tp = confusion_matrix(human_pass, metric_pass, labels=[False, True]).ravel()
    return {
        "spearman": stats.spearmanr(score, human).statistic,
        "kendall": stats.kendalltau(score, human, variant="b").statistic,
        "pearson": stats.pearsonr(score, human).statistic,
        "mae": mean_absolute_error(human, score),
        "kappa": cohen_kappa_score(human_pass, metric_pass),
        "true_pass_rate": recall_score(human_pass, metric_pass),
        "true_fail_rate": recall_score(~human_pass, ~metric_pass),
        "confusion": (tp, fp, fn, tn),
    }


@pytest.mark.parametrize(
    ("n", "seed", "ties", "threshold"), [(200, 1, False, 0.5), (150, 2, True, 0.5), (60, 3, True, 0.75)]
)
def test_every_figure_equals_scipy_and_sklearn(n, seed, ties, threshold):
    score, human = random_data(n, seed, ties)
    report = measure_agreement(pairing_of(score, human), threshold=threshold)
    expected = sklearn_reference(score, human, threshold)
    for name in ("spearman", "kendall", "pearson", "mae", "kappa", "true_pass_rate", "true_fail_rate"):
        assert report.figure(name).value == pytest.approx(expected[name], abs=1e-12), name
    c = report.confusion
    assert (c.tp, c.fp, c.fn, c.tn) == expected["confusion"]
    assert report.n == n


def test_intervals_are_scipy_bootstraps_percentile_intervals_with_the_same_seed():
    score, human = random_data(120, 4, ties=True)
    report = measure_agreement(pairing_of(score, human), resamples=1000, seed=7)
    reference = {
        "pearson": lambda x, y, axis: stats.pearsonr(x, y, axis=axis).statistic,
        "mae": lambda x, y, axis: np.mean(np.abs(x - y), axis=axis),
    }
    for name, statistic in reference.items():
        found = stats.bootstrap(
            (score, human),
            statistic,
            paired=True,
            vectorized=True,
            n_resamples=1000,
            method="percentile",
            rng=np.random.default_rng(7),
        ).confidence_interval
        estimate = report.figure(name)
        assert (estimate.low, estimate.high) == pytest.approx((found.low, found.high), abs=1e-12), name


def test_each_resamples_r_rho_and_tau_b_equal_scipys_on_that_resample():
    score, human = random_data(80, 5, ties=True)
    draws = np.random.default_rng(0).integers(0, 80, (40, 80))
    codes_x, codes_y = _codes(score), _codes(human)
    cy = codes_y[draws]
    rho = _spearman_rows(codes_x[draws], _constant_rows(cy), _ranks(cy))
    tau = _kendall_rows(draws, score, human, codes_x, codes_y)
    r = _pearson_rows(score[draws], human[draws])
    assert r == pytest.approx(stats.pearsonr(score[draws], human[draws], axis=1).statistic, abs=1e-12)
    for row in range(40):
        x, y = score[draws[row]], human[draws[row]]
        assert rho[row] == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-12)
        assert tau[row] == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-12)


def test_the_same_data_gives_the_same_figures_and_another_seed_other_intervals():
    score, human = random_data(50, 6)
    first = measure_agreement(pairing_of(score, human))
    again = measure_agreement(pairing_of(score, human))
    other = measure_agreement(pairing_of(score, human), seed=1)
    assert first == again
    assert first.spearman.value == other.spearman.value
    assert first.spearman.low != other.spearman.low


def test_interval_brackets_are_ordered_and_count_1000_resamples():
    score, human = random_data(40, 8)
    report = measure_agreement(pairing_of(score, human))
    assert report.resamples == 1000
    for name in ("spearman", "kendall", "pearson", "mae", "kappa"):
        estimate = report.figure(name)
        assert estimate.low is not None and estimate.high is not None
        assert estimate.low <= estimate.high


def test_constant_metric_scores_make_the_correlations_undefined_with_a_reason():
    human = np.array([0.0, 1.0, 0.5, 1.0, 0.0])
    report = measure_agreement(pairing_of([0.7] * 5, human))
    for name in ("spearman", "kendall", "pearson"):
        assert report.figure(name) == Estimate.undefined(Undefined.CONSTANT_SCORES)
        assert report.figure(name).to_json() == {
            "value": None,
            "low": None,
            "high": None,
            "reason": "constant_scores",
        }
    # scipy agrees that they are undefined
    with pytest.warns(stats.ConstantInputWarning):
        assert math.isnan(stats.spearmanr([0.7] * 5, human).statistic)
    assert report.mae.value == pytest.approx(mean_absolute_error(human, [0.7] * 5))
    # every case passes on the metric's side: kappa is 0 (sklearn says so too), the rates are defined
    assert report.kappa.value == pytest.approx(cohen_kappa_score(human >= 0.5, np.full(5, True)))


def test_constant_human_scores_say_so():
    report = measure_agreement(pairing_of([0.1, 0.5, 0.9], [1, 1, 1]))
    assert report.spearman.reason is Undefined.CONSTANT_HUMAN
    assert report.true_fail_rate.reason is Undefined.NO_HUMAN_FAILS
    assert report.true_pass_rate.value == pytest.approx(2 / 3)


def test_one_class_on_both_sides_makes_kappa_undefined_as_sklearn_does():
    score, human = [0.8, 0.9, 0.6], [1.0, 0.7, 0.9]
    report = measure_agreement(pairing_of(score, human))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sklearn says it is undefined, and returns NaN
        assert math.isnan(cohen_kappa_score([True] * 3, [True] * 3))
    assert report.kappa == Estimate.undefined(Undefined.ONE_CLASS)
    assert report.spearman.value == pytest.approx(stats.spearmanr(score, human).statistic)


def test_two_cases_give_scipys_values_and_no_interval():
    report = measure_agreement(pairing_of([0.2, 0.9], [0.0, 1.0]))
    assert report.spearman.value == pytest.approx(1.0)
    assert report.kendall.value == pytest.approx(stats.kendalltau([0.2, 0.9], [0.0, 1.0]).statistic)
    assert report.pearson.value == pytest.approx(1.0)
    # half the resamples repeat one case (undefined), the others all give 1: a point, not an interval
    assert (report.spearman.low, report.spearman.high) == (None, None)
    assert report.kappa.value == pytest.approx(1.0)


def test_one_and_zero_cases_are_too_few():
    one = measure_agreement(pairing_of([0.2], [1.0]))
    assert one.spearman.reason is Undefined.TOO_FEW
    assert one.mae == Estimate(0.8, None, None)  # defined, but one case cannot be resampled into an interval
    none = measure_agreement(pairing_of([], []))
    assert none.n == 0
    assert all(none.figure(name).reason is Undefined.TOO_FEW for name in ("spearman", "mae", "kappa"))
    assert none.to_json()["disagreements"] == []


def test_missing_labels_are_counted_not_scored():
    results = [CaseResult(id=f"c{i}", score=i / 10, scores={"a": i % 2}) for i in range(6)]
    results.append(CaseResult(id="broken", status=CaseStatus.ERROR, error="boom"))
    humans = {"c0": 0.0, "c2": 0.0, "c4": 1.0, "c5": 1.0, "broken": 1.0, "gone": 0.5, "also-gone": 1.0}
    pairing = pair_results(results, humans)
    assert [case.id for case in pairing.cases] == ["c0", "c2", "c4", "c5"]
    assert pairing.unlabelled == 2  # c1 and c3
    assert pairing.unknown == ("gone", "also-gone")
    assert pairing.unscored == ("broken",)
    report = measure_agreement(pairing)
    assert (report.n, report.unlabelled, report.unknown) == (4, 2, ("gone", "also-gone"))
    score, human = np.array([0.0, 0.2, 0.4, 0.5]), np.array([0.0, 0.0, 1.0, 1.0])
    assert report.spearman.value == pytest.approx(stats.spearmanr(score, human).statistic)


def test_named_scores_have_their_own_spearman_over_the_cases_that_have_them():
    score, human = random_data(60, 9)
    noise = np.random.default_rng(3).random(60)
    pairing = pairing_of(score, human, {"format": np.round(score), "noise": noise})
    cases = list(pairing.cases)
    cases[0] = LabelledCase(cases[0].id, cases[0].score, cases[0].human, {"format": 1.0})  # no "noise" here
    report = measure_agreement(Pairing(tuple(cases), 0))
    named = report.named_spearman()
    assert list(named) == ["format", "noise"]
    assert named["format"].value == pytest.approx(stats.spearmanr(np.round(score), human).statistic)
    assert named["noise"].value == pytest.approx(stats.spearmanr(noise[1:], human[1:]).statistic)
    assert named["format"].low is not None


def test_disagreements_put_false_passes_first_and_the_json_largest_gap_first():
    score = [0.9, 0.55, 0.1, 0.4, 0.5]
    human = [0.0, 0.4, 1.0, 0.4, 0.5]
    report = measure_agreement(pairing_of(score, human))
    assert [item.id for item in report.disagreements] == ["c0", "c1", "c2"]
    assert report.disagreements[1].false_pass and report.disagreements[2].false_fail
    assert [item["id"] for item in report.to_json()["disagreements"]] == ["c0", "c2", "c1"]
    assert report.to_json()["disagreements"][0] == {"id": "c0", "score": 0.9, "human": 0.0, "gap": 0.9}
    assert report.confusion.fp == 2  # c0 and c1: the metric passes, the person fails


def test_the_json_keeps_at_most_20_disagreements():
    score, human = random_data(100, 10)
    data = measure_agreement(pairing_of(score, human)).to_json()
    assert len(data["disagreements"]) == 20
    gaps = [item["gap"] for item in data["disagreements"]]
    assert gaps == sorted(gaps, reverse=True)
    assert set(data) == {
        "n", "unlabelled", "unknown", "unknown_count", "threshold", "spearman", "kendall", "pearson", "mae", "kappa",
        "confusion", "disagreements",
    }  # fmt: skip


def test_a_record_reads_back_as_the_same_agreement():
    score, human = random_data(35, 11, ties=True)
    pairing = pairing_of(score, human, {"x": score})
    report = measure_agreement(pairing)
    from skynet_core.human import Agreement

    assert Agreement.from_record(report.to_record()) == report
    assert not report.few
    assert measure_agreement(pairing_of(score[:29], human[:29])).few


def test_a_non_finite_threshold_is_refused():
    with pytest.raises(ValueError):
        measure_agreement(pairing_of([0.1, 0.2], [0.0, 1.0]), threshold=float("nan"))
