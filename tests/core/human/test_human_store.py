"""Human scores kept in SQLite, read and written as CSV / JSON Lines, the labelling order, scales and settings."""

from __future__ import annotations

import json
import os

import pytest

from skynet_core.human import (
    HumanScore,
    LabelError,
    LabelOrder,
    LabelScale,
    ScaleKind,
    labelling_order,
    labels_csv,
    labels_jsonl,
    pass_threshold,
    progress,
    rater_name,
    read_labels,
    set_pass_threshold,
    set_rater_name,
    step,
    write_labels,
)
from skynet_core.store import Store
from skynet_core.store.human import HumanScores


def score(case_id: str, value: float, rater: str = "ana", candidate: str = "", note: str = "") -> HumanScore:
    return HumanScore("cases.jsonl", case_id, candidate, value, rater, note)


def test_scores_survive_a_new_store_on_the_same_folder_and_a_second_score_replaces_the_first(tmp_path):
    HumanScores(tmp_path).set(score("t1", 0.5, note="half right"))
    HumanScores(tmp_path).set(score("t1", 1.0, note="right after all"))
    kept = HumanScores(tmp_path).scores("cases.jsonl")
    assert [(s.case_id, s.value, s.note) for s in kept] == [("t1", 1.0, "right after all")]
    assert kept[0].labelled_at > 0
    assert (tmp_path / "studio.sqlite3").exists()


def test_the_store_shares_the_studios_database_with_the_drafts(tmp_path):
    Store(tmp_path).save_draft("def score(input, output, expected=None):\n    return 1.0, {'feedback': ''}\n")
    HumanScores(tmp_path).set(score("t1", 1.0))
    assert Store(tmp_path).draft() is not None
    assert HumanScores(tmp_path).values("cases.jsonl", "") == {"t1": 1.0}


def test_values_take_the_mean_of_raters_or_one_rater_of_that_candidates_outputs_only(tmp_path):
    store = HumanScores(tmp_path)
    store.set_many(
        [
            score("t1", 1.0, "ana"),
            score("t1", 0.0, "bo"),
            score("t2", 0.2, "ana"),
            score("t2", 0.9, "ana", candidate="large"),
            score("t3", 0.4, "ana", candidate="small"),
        ]
    )
    assert store.values("cases.jsonl", "") == {"t1": 0.5, "t2": 0.2}
    assert store.values("cases.jsonl", "large") == {"t2": 0.9}  # a score of another output is not this one's
    assert store.values("cases.jsonl", "", rater="bo") == {"t1": 0.0}
    assert store.values("other.jsonl", "") == {}
    assert store.raters("cases.jsonl") == ["ana", "bo"]
    store.clear("cases.jsonl", "t1", "", "bo")
    assert store.values("cases.jsonl", "")["t1"] == 1.0


def test_notes_by_case(tmp_path):
    store = HumanScores(tmp_path)
    store.set_many([score("t1", 1.0, "ana", note="fine"), score("t1", 0.0, "bo", note="wrong label"), score("t2", 1)])
    assert store.notes("cases.jsonl", "") == {"t1": "fine\nwrong label"}


def test_a_human_score_checks_its_invariants():
    with pytest.raises(ValueError):
        HumanScore("d", "", "", 1.0, "ana")
    with pytest.raises(ValueError):
        HumanScore("d", "t1", "", float("nan"), "ana")
    with pytest.raises(ValueError):
        HumanScore("d", "t1", "", True, "ana")  # type: ignore[arg-type]


def test_csv_and_jsonl_labels_read_numbers_pass_and_fail(tmp_path):
    (tmp_path / "labels.csv").write_text(
        "id,human,note,rater,extra\nt1,0.8,close,bo,x\nt2,PASS,,,\nt3, fail ,,,\nt4,,not yet,,\n"
    )
    found = read_labels(tmp_path / "labels.csv", dataset="d", rater="me")
    assert [(s.case_id, s.value, s.rater, s.note) for s in found] == [
        ("t1", 0.8, "bo", "close"),
        ("t2", 1.0, "me", ""),
        ("t3", 0.0, "me", ""),
    ]
    lines = [{"id": 7, "human": "pass", "candidate": "large"}, {"id": "t8", "human": 0.25, "note": None}, {}]
    (tmp_path / "labels.jsonl").write_text("\n".join(json.dumps(line) for line in lines[:2]) + "\n\n")
    found = read_labels(tmp_path / "labels.jsonl", dataset="d", rater="me")
    assert [(s.case_id, s.value, s.candidate) for s in found] == [("7", 1.0, "large"), ("t8", 0.25, "")]


@pytest.mark.parametrize(
    ("name", "text", "where"),
    [
        ("bad.csv", "id,human\nt1,1\nt2,good\n", "bad.csv, line 3"),
        ("bad.jsonl", '{"id": "t1", "human": 1}\n\n{"id": "t2", "human": "great"}\n', "bad.jsonl, line 3"),
        ("bool.jsonl", '{"id": "t1", "human": true}\n', "bool.jsonl, line 1"),
        ("nan.csv", "id,human\nt1,nan\n", "nan.csv, line 2"),
        ("list.jsonl", '{"id": "t1", "human": [1]}\n', "list.jsonl, line 1"),
    ],
)
def test_a_label_that_is_neither_a_number_nor_pass_fail_is_refused_naming_file_and_line(tmp_path, name, text, where):
    (tmp_path / name).write_text(text)
    with pytest.raises(LabelError) as error:
        read_labels(tmp_path / name, dataset="d", rater="me")
    assert str(error.value).startswith(where + ":")
    assert "pass or fail" in str(error.value)
    assert error.value.line == int(where.rsplit(" ", 1)[1])


@pytest.mark.parametrize(
    ("name", "text", "words"),
    [
        ("noid.csv", "id,human\n,1\n", "noid.csv, line 2: the score has no id"),
        ("nohuman.csv", "id,score\nt1,1\n", "nohuman.csv, line 1: the header has no human column"),
        ("twice.csv", "id,human\nt1,1\nt1,0\n", "twice.csv, lines 2 and 3: case 't1' has two scores"),
        ("notjson.jsonl", "{oops\n", "notjson.jsonl, line 1: not valid JSON"),
        ("array.jsonl", "[1, 2]\n", "array.jsonl, line 1: write an object"),
        ("labels.txt", "id,human\n", "labels.txt: human scores are read from a .csv or .jsonl file"),
    ],
)
def test_other_broken_label_files_say_where_and_what(tmp_path, name, text, words):
    (tmp_path / name).write_text(text)
    with pytest.raises(LabelError, match=words.replace("(", r"\(")):
        read_labels(tmp_path / name, dataset="d", rater="me")


def test_a_missing_file_and_a_fifo_are_refused(tmp_path):
    with pytest.raises(LabelError, match="cannot read"):
        read_labels(tmp_path / "gone.csv", dataset="d", rater="me")
    os.mkfifo(tmp_path / "pipe.csv")
    with pytest.raises(LabelError, match="named pipe"):
        read_labels(tmp_path / "pipe.csv", dataset="d", rater="me")


def test_an_export_reads_back_as_it_was_even_with_formula_like_text(tmp_path):
    scores = [
        score("=cmd", 0.75, "ana", candidate="large", note="+1 looks fine, 'quoted', \"x\""),
        score("t2", 1.0, "bo", note="line\nbreak"),
    ]
    assert labels_csv(scores).splitlines()[1].startswith(b"'=cmd,0.75,large,\"'+1")
    for suffix in (".csv", ".jsonl"):
        path = write_labels(tmp_path / f"out{suffix}", scores)
        again = read_labels(path, dataset="cases.jsonl", rater="me")
        assert [(s.case_id, s.value, s.candidate, s.note, s.rater) for s in again] == [
            (s.case_id, s.value, s.candidate, s.note, s.rater) for s in scores
        ]
    assert json.loads(labels_jsonl(scores).splitlines()[0]) == {
        "id": "=cmd",
        "human": 0.75,
        "candidate": "large",
        "note": "+1 looks fine, 'quoted', \"x\"",
        "rater": "ana",
    }
    with pytest.raises(ValueError):
        write_labels(tmp_path / "out.xlsx", scores)


def test_labelling_order_puts_unlabelled_first_in_the_chosen_order():
    ids = ["a", "b", "c", "d", "e"]
    assert labelling_order(ids, {"b", "d"}) == ["a", "c", "e", "b", "d"]
    scores = {"a": 0.9, "b": 0.45, "c": 0.52, "e": 0.1}
    assert labelling_order(ids, set(), LabelOrder.LEAST_SURE, scores=scores) == ["c", "b", "a", "e", "d"]
    assert labelling_order(ids, {"c"}, LabelOrder.LEAST_SURE, scores=scores, threshold=0.9) == [
        "a",
        "b",
        "e",
        "d",
        "c",
    ]
    shuffled = labelling_order(ids, set(), LabelOrder.RANDOM, seed=3)
    assert shuffled == labelling_order(ids, set(), LabelOrder.RANDOM, seed=3)
    assert sorted(shuffled) == ids and shuffled != ids
    assert labelling_order(ids, set(), LabelOrder.RANDOM, seed=4) != shuffled


def test_progress_and_moving_through_the_order():
    done = progress([f"c{i}" for i in range(72)], {f"c{i}" for i in range(34)} | {"elsewhere"})
    assert (done.labelled, done.total, done.text) == (34, 72, "34 of 72 labelled")
    assert step(["a", "b", "c"], "b", 1) == "c"
    assert step(["a", "b", "c"], "c", 1) == "c"
    assert step(["a", "b", "c"], "a", -1) == "a"
    assert step(["a", "b", "c"], None, 1) == "a"
    assert step([], "a", 1) is None


def test_scales_map_labels_onto_the_metric_scale_and_keys_onto_labels():
    unit = LabelScale()
    assert unit.levels == (0.0, 0.25, 0.5, 0.75, 1.0)
    assert [unit.value_for_key(key) for key in "0134"] == [0.0, 0.25, 0.75, 1.0]
    assert unit.value_for_key("5") is None and unit.value_for_key("x") is None
    five = LabelScale(ScaleKind.FIVE)
    assert [five.value_for_key(key) for key in "12345"] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert five.value_for_key("0") is None and five.label_text(0.75) == "4"
    binary = LabelScale(ScaleKind.PASS_FAIL)
    assert (binary.value_for_key("p"), binary.value_for_key("f"), binary.value_for_key("1")) == (1.0, 0.0, 1.0)
    assert binary.label_text(1.0) == "pass" and binary.label_text(0.1) == "fail"
    ten = LabelScale(ScaleKind.FIVE, metric_low=0, metric_high=10)
    assert ten.to_metric(4) == 7.5 and ten.from_metric(7.4) == 4
    with pytest.raises(ValueError):
        LabelScale(step=0.3)
    with pytest.raises(ValueError):
        LabelScale(step=0.1)  # 11 levels: more than the digit keys
    with pytest.raises(ValueError):
        LabelScale(metric_low=1, metric_high=1)


def test_rater_name_and_threshold_settings(tmp_path, monkeypatch):
    monkeypatch.setenv("USER", "ana")
    monkeypatch.setenv("LOGNAME", "ana")
    store = Store(tmp_path)
    assert rater_name(store) == "ana"
    assert set_rater_name(store, "  Bo Chen ") == "Bo Chen"
    assert rater_name(Store(tmp_path)) == "Bo Chen"
    assert set_rater_name(store, "") == "ana"
    with pytest.raises(ValueError):
        set_rater_name(store, "two\nlines")
    assert pass_threshold(store) == 0.5
    set_pass_threshold(store, 0.7)
    assert pass_threshold(Store(tmp_path)) == 0.7
    with pytest.raises(ValueError):
        set_pass_threshold(store, float("inf"))
