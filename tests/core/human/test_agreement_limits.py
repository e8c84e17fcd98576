"""Agreement figures at their limits: a gate needs at least 10 labelled cases and fails below it, an interval on so
few cases is not shown as a point, scores of ±1e308 give their true correlation (never 0 for an overflow), and
two raters with one shared case have no α."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from skynet_core.human import (
    Undefined,
    estimate_text,
    measure_agreement,
    pair_results,
    rater_agreement,
)
from skynet_core.human.report import MIN_LABELLED
from skynet_core.results import CaseResult
from tests.core.command_line import cli_completed as cli


def results(scores: dict[str, float]) -> list[CaseResult]:
    return [CaseResult(id=case_id, score=value) for case_id, value in scores.items()]


@pytest.fixture(scope="module")
def two_labelled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("gate")
    (folder / "metric.py").write_text(
        "def score(input, output, expected=None):\n    return float(input['n'] % 2), {'feedback': 'ok'}\n"
    )
    (folder / "cases.jsonl").write_text(
        "".join(json.dumps({"id": f"c{n}", "input": {"n": n}, "output": "x"}) + "\n" for n in range(12))
    )
    (folder / "labels.csv").write_text("id,human\nc0,fail\nc1,pass\n")
    return {"metric": folder / "metric.py", "data": folder / "cases.jsonl", "labels": folder / "labels.csv"}


def test_a_gate_on_two_labelled_cases_fails_and_says_it_needs_ten(two_labelled: dict[str, Path]) -> None:
    done = cli(
        "score", str(two_labelled["metric"]), "--data", str(two_labelled["data"]), "--labels",
        str(two_labelled["labels"]), "--min-kappa", "0.99", "--min-spearman", "0.99",
    )  # fmt: skip
    assert done.returncode == 1, done.stdout + done.stderr
    assert f"at least {MIN_LABELLED} labelled cases" in done.stderr
    assert "only 2" in done.stderr
    assert "1.000 [1.000, 1.000]" not in done.stdout


def test_a_gate_on_two_labelled_cases_fails_in_json_too(two_labelled: dict[str, Path]) -> None:
    done = cli(
        "score", str(two_labelled["metric"]), "--data", str(two_labelled["data"]), "--labels",
        str(two_labelled["labels"]), "--min-kappa", "0.5", "--json",
    )  # fmt: skip
    assert done.returncode == 1
    kappa = json.loads(done.stdout)["agreement"]["kappa"]
    assert (kappa["value"], kappa["low"], kappa["high"]) == (1.0, None, None)


def test_an_interval_on_fewer_than_ten_cases_is_not_a_point() -> None:
    pairing = pair_results(results({"a": 0.0, "b": 1.0}), {"a": 0.0, "b": 1.0})
    found = measure_agreement(pairing)
    for estimate in (found.spearman, found.kappa, found.mae):
        assert estimate.low is None and estimate.high is None
    assert "no interval" in estimate_text(found.kappa) and "[" not in estimate_text(found.kappa)


def test_enough_cases_still_have_their_interval() -> None:
    scores = {f"c{n}": n / 11 for n in range(12)}
    humans = {f"c{n}": float(n >= 6) for n in range(12)}
    found = measure_agreement(pair_results(results(scores), humans))
    assert found.spearman.low is not None and found.spearman.low < found.spearman.high  # type: ignore[operator]


def test_scores_of_1e308_in_perfect_order_correlate_perfectly() -> None:
    values = [-1e308, -5e307, -1e307, 1e307, 5e307, 1e308]
    scores = {f"c{n}": value for n, value in enumerate(values)}
    humans = {f"c{n}": n / 5 for n in range(6)}
    found = measure_agreement(pair_results(results(scores), humans))
    assert found.pearson.value == pytest.approx(stats.pearsonr(np.array(values) / 1e308, list(humans.values()))[0])
    assert found.pearson.value > 0.9  # type: ignore[operator]
    assert found.spearman.value == pytest.approx(1.0)
    gaps = [abs(value - human) for value, human in zip(values, humans.values(), strict=True)]
    assert found.mae.value == pytest.approx(sum(gap / len(gaps) for gap in gaps), rel=1e-9)


def test_a_gap_too_large_to_hold_says_so_never_too_few() -> None:
    scores = {f"c{n}": (1e308 if n % 2 else -1e308) for n in range(6)}
    humans = {f"c{n}": (-1e308 if n % 2 else 1e308) for n in range(6)}
    found = measure_agreement(pair_results(results(scores), humans))
    assert found.mae.reason is Undefined.TOO_LARGE
    assert "too large" in estimate_text(found.mae)


def test_two_raters_with_one_shared_case_have_no_alpha() -> None:
    found = rater_agreement({"a": 1.0, "b": 0.5}, {"a": 0.0, "c": 1.0})
    assert found.n == 1
    assert found.alpha.value is None and found.alpha.reason is Undefined.TOO_FEW


def test_two_raters_with_huge_scores_get_alpha_from_rescaled_values() -> None:
    first = {f"c{n}": n * 1e307 for n in range(12)}
    second = {f"c{n}": n * 1e307 for n in range(12)}
    found = rater_agreement(first, second)
    assert found.alpha.value == pytest.approx(1.0)
