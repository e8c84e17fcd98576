"""The objective GEPA maximizes and the figures reported: agreement minus the absolute mean bias; κ, ρ, accuracy and
bias with seeded intervals (κ as the agreement report computes it); the paired gain of κ."""

from __future__ import annotations

import pytest

from skynet_core.align.labelled import Scale
from skynet_core.align.measures import figures, objective, paired_gain, per_case
from skynet_core.human import measure_agreement
from skynet_core.human.pairing import LabelledCase, Pairing

PASS_FAIL = Scale(True, 0.5)
IDS = [f"c{i}" for i in range(10)]
HUMANS = {case_id: float(i % 2) for i, case_id in enumerate(IDS)}


def test_the_objective_is_the_agreement_minus_the_absolute_mean_bias() -> None:
    lenient = {case_id: 1.0 for case_id in IDS}  # passes everything: half agree, bias +0.5
    assert objective(lenient, HUMANS, PASS_FAIL, IDS) == pytest.approx(0.5 - 0.5)
    balanced = {case_id: 1.0 - HUMANS[case_id] if i < 2 else HUMANS[case_id] for i, case_id in enumerate(IDS)}
    assert objective(balanced, HUMANS, PASS_FAIL, IDS) == pytest.approx(0.8)  # a false pass and a false fail cancel
    assert sum(per_case(lenient, HUMANS, PASS_FAIL, IDS)) / len(IDS) == objective(lenient, HUMANS, PASS_FAIL, IDS)


def test_a_numeric_scale_agrees_by_distance_and_an_unscored_case_counts_as_none() -> None:
    scale = Scale(False, 3.0, 1.0, 5.0)
    humans = {"a": 1.0, "b": 5.0}
    assert objective({"a": 2.0, "b": 4.0}, humans, scale, ["a", "b"]) == pytest.approx(0.75)
    assert objective({"a": 1.0}, humans, scale, ["a", "b"]) == pytest.approx(0.5)


def test_kappa_is_the_agreement_reports_and_the_intervals_are_seeded() -> None:
    judged = {case_id: 1.0 if i < 7 else 0.0 for i, case_id in enumerate(IDS)}
    found = figures(judged, HUMANS, PASS_FAIL, IDS, seed=4)
    report = measure_agreement(Pairing(tuple(LabelledCase(i, judged[i], HUMANS[i]) for i in IDS), 0), seed=4)
    assert found.kappa.value == pytest.approx(report.kappa.value)
    assert found.spearman == report.spearman
    assert found.accuracy.value == pytest.approx(0.4) and found.bias.value == pytest.approx(0.2)
    assert found.n == 10 and found == figures(judged, HUMANS, PASS_FAIL, IDS, seed=4)
    assert found.kappa.low is not None and found.kappa.low <= found.kappa.value <= found.kappa.high


def test_the_paired_gain_is_zero_for_the_same_judge_and_positive_when_it_mends_cases() -> None:
    start = {case_id: 1.0 for case_id in IDS}
    same = paired_gain(start, start, HUMANS, PASS_FAIL, IDS)
    assert (same.value, same.low, same.high) == (pytest.approx(0.0), 0.0, 0.0) or same.value is None
    mended = paired_gain({i: 1.0 if HUMANS[i] or j < 2 else 0.0 for j, i in enumerate(IDS)}, HUMANS, HUMANS,
                         PASS_FAIL, IDS, seed=1)  # fmt: skip
    assert mended.value is not None and mended.value > 0 and mended.low is not None and mended.low >= 0


def test_no_case_scored_gives_undefined_figures() -> None:
    found = figures({}, HUMANS, PASS_FAIL, IDS)
    assert found.n == 0 and found.kappa.value is None and found.to_json()["kappa"]["reason"] == "too_few"
