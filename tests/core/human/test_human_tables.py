"""The report's tables and words, as the pages will show them."""

from __future__ import annotations

import pandas as pd
import pytest

from skynet_core.cases import Case
from skynet_core.feedback import Mark, MarkValue, review
from skynet_core.human import (
    HumanScore,
    agreement_of,
    agreement_summary,
    compare_agreement,
    comparison_table,
    disagreements_table,
    estimate_text,
    figures_table,
    measure_agreement,
    moves_table,
    named_table,
    pair_results,
    rater_agreement,
    raters_table,
    rules_against_marks,
    rules_table,
)
from skynet_core.i18n import use_language
from skynet_core.lazy import face_homes
from skynet_core.results import CaseResult
from skynet_core.store.human import HumanScores

SCORES = {"a": 0.9, "b": 0.8, "c": 0.3, "d": 0.2, "e": 0.6}
HUMANS = {"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.0}


def run(scores: dict[str, float]) -> list[CaseResult]:
    return [
        CaseResult(id=case_id, score=value, feedback=f"feedback {case_id}", scores={"fmt": 1.0 if value > 0.5 else 0.0})
        for case_id, value in scores.items()
    ]


def test_the_figures_table_gives_values_intervals_and_why_undefined():
    table = figures_table(measure_agreement(pair_results(run(SCORES), HUMANS)))
    assert list(table["figure"]) == [
        "Spearman ρ", "Kendall τ-b", "Pearson r", "mean gap", "Cohen's κ", "true-pass rate", "true-fail rate",
    ]  # fmt: skip
    assert table.loc[3, "value"] == pytest.approx((0.1 + 0.8 + 0.7 + 0.2) / 4)
    constant = figures_table(measure_agreement(pair_results(run(dict.fromkeys(HUMANS, 0.5)), HUMANS)))
    assert pd.isna(constant.loc[0, "value"])
    assert constant.loc[0, "note"] == "the metric gave every labelled case the same score"


def test_disagreements_sit_beside_the_case_its_feedback_and_the_note():
    results = run(SCORES)
    report = measure_agreement(pair_results(results, HUMANS))
    cases = {case_id: Case(case_id, {"q": case_id}, f"out {case_id}", {"label": "x"}) for case_id in SCORES}
    table = disagreements_table(report, cases, {r.id: r for r in results}, {"b": "says billing, is spam"})
    assert list(table["id"]) == ["b", "c", "d", "a"]  # the false pass first, then the largest gap
    first = table.iloc[0].to_dict()
    assert first["false_pass"] and first["note"] == "says billing, is spam" and first["feedback"] == "feedback b"
    assert first["input"] == {"q": "b"} and first["output"] == "out b" and first["expected"] == {"label": "x"}
    by_gap = disagreements_table(report, cases, {}, largest_gap_first=True, limit=2)
    assert list(by_gap["id"]) == ["b", "c"] and list(by_gap["feedback"]) == ["", ""]


def test_named_scores_rules_comparison_moves_and_raters_tables():
    report = measure_agreement(pair_results(run(SCORES), HUMANS))
    assert list(named_table(report)["name"]) == ["fmt"]
    compared = compare_agreement(run(SCORES), run({**SCORES, "b": 0.1}), HUMANS)
    table = comparison_table(compared)
    assert table.loc[3, "change"] == pytest.approx(-0.7 / 4)
    moves = moves_table(compared)
    assert moves.iloc[0].to_dict() == {
        "id": "b", "human": 0.0, "score_a": 0.8, "score_b": 0.1, "change": pytest.approx(-0.7),
        "movement": "toward the person's score",
    }  # fmt: skip
    raters = raters_table(rater_agreement({"a": 1.0, "b": 0.0}, {"a": 0.5, "b": 0.0}, names=("ana", "bo")))
    assert raters.to_dict("records") == [{"id": "a", "first": 1.0, "second": 0.5, "gap": 0.5}]
    pairs = [(Case(f"t{i}", {"q": "x"}, "y"), CaseResult(id=f"t{i}", score=0.2, feedback="Wrong.")) for i in range(3)]
    marks = {f"t{i}": Mark(f"t{i}", MarkValue.WEAK, "", "") for i in range(3)}
    rules = rules_table(rules_against_marks(review(pairs), marks))
    assert {"rule", "precision", "recall", "precision_low", "recall_high"} <= set(rules.columns)
    assert rules["flagged_weak"].max() == 3


def test_the_summary_line_and_the_agreement_with_the_stored_scores(tmp_path):
    store = HumanScores(tmp_path)
    assert agreement_of(run(SCORES), store.values("cases.jsonl", "")) is None
    store.set_many([HumanScore("cases.jsonl", case_id, "", value, "ana") for case_id, value in HUMANS.items()])
    found = agreement_of(run(SCORES), store.values("cases.jsonl", ""))
    assert found is not None and found.n == 4
    line = agreement_summary(found)
    assert line.startswith("Agreement with 4 human scores: Spearman ρ ")
    assert line.endswith(", 1 false passes")
    with use_language("zh_CN"):
        assert agreement_summary(found).startswith("与 4 个人工评分的一致性")
        assert estimate_text(found.true_fail_rate).startswith("0.500")


def test_an_undefined_estimate_reads_as_its_reason():
    found = measure_agreement(pair_results(run(dict.fromkeys(HUMANS, 0.5)), HUMANS))
    assert estimate_text(found.spearman) == "undefined: the metric gave every labelled case the same score"
    with use_language("zh_CN"):
        assert estimate_text(found.spearman) == "无定义：指标给所有已标注用例的分数都相同"


def test_every_public_name_of_the_package_resolves_and_the_cli_loads_no_scipy():
    import subprocess
    import sys

    import skynet_core.human as human

    assert sorted(human.__all__) == sorted(face_homes(human.__file__))
    assert all(getattr(human, name) is not None for name in human.__all__)
    probe = "import sys, skynet_core.cli; print('scipy' in sys.modules, 'plotly' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["False", "False"], done.stderr
