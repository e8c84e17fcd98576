"""Agreement kept with each scored run and compared across versions; the report's figures and the human column role."""

from __future__ import annotations

import json

import numpy as np
import pytest

from skynet_core.datasets import DatasetError, Role, infer_roles, load_dataset
from skynet_core.human import (
    HumanScore,
    Movement,
    agreement_scatter,
    compare_agreement,
    confusion_figure,
    confusion_table,
    measure_agreement,
    pair_results,
    record_run_agreement,
    scores_from_cases,
)
from skynet_core.human.report import Confusion
from skynet_core.results import CaseResult
from skynet_core.runs import KEEP_RUNS, RunKey
from skynet_core.store.human import HumanScores, RunAgreements
from skynet_core.store.runs import RunStore

HUMANS = {"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.0}


def results(scores: dict[str, float]) -> list[CaseResult]:
    return [CaseResult(id=case_id, score=value) for case_id, value in scores.items()]


def test_a_saved_run_keeps_its_agreement_with_the_scores_that_existed_then(tmp_path):
    runs, humans, kept = RunStore(tmp_path), HumanScores(tmp_path), RunAgreements(tmp_path)
    key = RunKey("cases.jsonl", "", None, "abc", "cases")
    first = runs.get(runs.save(key, results({"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.1})))
    assert first is not None
    assert record_run_agreement(first.id, first.results, humans.values("cases.jsonl", ""), kept) is None
    assert kept.get(first.id) is None  # nobody scored anything yet
    humans.set_many([HumanScore("cases.jsonl", case_id, "", value, "ana") for case_id, value in HUMANS.items()])
    agreement = record_run_agreement(first.id, first.results, humans.values("cases.jsonl", ""), kept)
    assert agreement is not None and agreement.n == 4 and agreement.confusion.fp == 1
    humans.set(HumanScore("cases.jsonl", "b", "", 1.0, "ana"))  # later labels do not rewrite the past
    assert RunAgreements(tmp_path).get(first.id) == agreement
    assert RunAgreements(tmp_path).of_runs([first.id, 999]) == {first.id: agreement}


def test_the_agreement_of_a_dropped_run_goes_with_it(tmp_path):
    runs, humans, kept = RunStore(tmp_path), HumanScores(tmp_path), RunAgreements(tmp_path)
    humans.set_many([HumanScore("cases.jsonl", case_id, "", value, "ana") for case_id, value in HUMANS.items()])
    key = RunKey("cases.jsonl", "", None, "abc", "cases")
    ids = []
    for _ in range(KEEP_RUNS + 1):
        run = runs.get(runs.save(key, results({"a": 0.9, "b": 0.2, "c": 0.7, "d": 0.1})))
        assert run is not None
        record_run_agreement(run.id, run.results, humans.values("cases.jsonl", ""), kept)
        ids.append(run.id)
    assert kept.get(ids[0]) is None
    assert kept.get(ids[-1]) is not None


def test_comparing_two_runs_shows_agreement_a_against_b_and_the_cases_that_moved():
    before = results({"a": 0.9, "b": 0.8, "c": 0.3, "d": 0.1, "e": 0.5})
    after = results({"a": 0.9, "b": 0.2, "c": 0.4, "d": 0.3, "e": 0.9})
    found = compare_agreement(before, after, HUMANS)
    assert found.a == measure_agreement(pair_results(before, HUMANS))
    assert found.b == measure_agreement(pair_results(after, HUMANS))
    assert [(move.id, move.movement) for move in found.moves] == [
        ("b", Movement.TOWARD),
        ("d", Movement.AWAY),
        ("c", Movement.TOWARD),
    ]
    assert found.moves[0].change == pytest.approx(-0.6)
    assert [move.id for move in found.toward] == ["b", "c"] and [move.id for move in found.away] == ["d"]
    assert found.change("kappa") == pytest.approx(found.b.kappa.value - found.a.kappa.value)
    assert found.change("mae") < 0
    assert set(found.changes()) >= {"spearman", "kendall", "pearson", "mae", "kappa"}


def test_the_scatter_puts_case_ids_in_customdata_and_jitters_only_ties():
    report_cases = results({"a": 0.9, "b": 0.9, "c": 0.3, "d": 0.1, "<b>x</b>": 0.6})
    humans = {"a": 1.0, "b": 1.0, "c": 1.0, "d": 0.0, "<b>x</b>": 0.0}
    pairing = pair_results(report_cases, humans)
    figure = agreement_scatter(pairing, 0.5)
    points = {
        row[0]: (x, y) for trace in figure.data for row, x, y in zip(trace.customdata, trace.x, trace.y, strict=True)
    }
    assert set(points) == set(humans)
    assert points["c"] == (0.3, 1.0) and points["d"] == (0.1, 0.0)  # alone at their place: shown exactly
    assert points["a"] != points["b"] and points["a"] != (0.9, 1.0)  # tied: spread apart, near their place
    assert abs(points["a"][0] - 0.9) < 0.02 and abs(points["b"][1] - 1.0) < 0.02
    names = {trace.name: [row[0] for row in trace.customdata] for trace in figure.data}
    assert names["false pass"] == ["<b>x</b>"] and names["false fail"] == ["c"]
    assert "&lt;b&gt;" in json.dumps([trace.text for trace in figure.data])  # ids shown literally, not as HTML
    again = agreement_scatter(pairing, 0.5)
    assert [list(trace.x) for trace in again.data] == [list(trace.x) for trace in figure.data]


def test_the_confusion_table_and_figure():
    table = confusion_table(Confusion(tp=5, fp=2, fn=1, tn=7))
    assert table.to_numpy().tolist() == [[5, 1], [2, 7]]
    assert list(table.index) == ["person passes", "person fails"]
    figure = confusion_figure(Confusion(tp=5, fp=2, fn=1, tn=7), 0.6)
    assert np.asarray(figure.data[0].z).tolist() == [[5, 1], [2, 7]]
    assert "0.6" in figure.layout.title.text


def test_a_human_column_is_guessed_and_carried_on_the_case(tmp_path):
    assert infer_roles(["input.q", "output", "human_score"])["human_score"] == (Role.HUMAN, "")
    assert infer_roles(["input.q", "output", "rating", "gold_score"])["gold_score"] == (Role.IGNORED, "")
    assert infer_roles(["input.q", "output", "human"])["human"] == (Role.HUMAN, "")
    path = tmp_path / "cases.csv"
    path.write_text("id,input.q,output,rating\nt1,hi,hello,0.8\nt2,yo,bye,fail\nt3,ok,ok,\n")
    cases = load_dataset(path).cases
    assert [case.human for case in cases] == [0.8, 0.0, None]
    kept = scores_from_cases(cases, "cases.csv", "data file")
    assert [(s.case_id, s.value, s.rater) for s in kept] == [("t1", 0.8, "data file"), ("t2", 0.0, "data file")]
    path.write_text("id,input.q,output,rating\nt1,hi,hello,great\n")
    with pytest.raises(DatasetError, match=r"cases.csv, column 'rating', row 1: the human score is 'great'"):
        load_dataset(path)


def test_a_human_key_in_json_lines_is_read_and_checked(tmp_path):
    path = tmp_path / "cases.jsonl"
    path.write_text('{"id": "t1", "input": {"q": 1}, "output": "x", "human": "pass"}\n{"input": {}, "output": 1}\n')
    assert [case.human for case in load_dataset(path).cases] == [1.0, None]
    path.write_text('{"id": "t1", "input": {"q": 1}, "output": "x", "human": {"v": 1}}\n')
    with pytest.raises(DatasetError, match="cases.jsonl, line 1: the human score"):
        load_dataset(path)


def test_two_human_columns_are_refused(tmp_path):
    path = tmp_path / "cases.csv"
    path.write_text("input.q,output,human,rating\nhi,hello,1,0\n")
    with pytest.raises(DatasetError, match="both have the human role"):
        load_dataset(path, roles={"rating": (Role.HUMAN, "")})
