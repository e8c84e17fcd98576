"""The workspace's human scores: labels of the data in use, the rater and threshold, label files, the agreement of a
run (recorded when it is kept), two runs and two raters, and forgetting them."""

from __future__ import annotations

import io
from pathlib import Path

import orjson
import pytest

from skynet_core.datasets import CandidateFile
from skynet_core.human import (
    FILE_RATER,
    LabelError,
    LabelOrder,
    labelling_order,
    measure_agreement,
    next_unlabelled,
    pair_results,
    read_labels,
)
from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobBoard

METRIC = MetricSource.of("def score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n")
LABELLED = {"a": 1.0, "b": 0.0, "c": 1.0, "d": 0.0, "e": 0.5}


@pytest.fixture
def ws_in_data_roots(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(tmp_path))
    return Workspace(tmp_path, jobs=JobBoard(grace_s=60), env={})


def data_file(folder: Path, name: str = "cases.jsonl", human: bool = False) -> Path:
    rows = [
        {"id": case_id, "input": {"q": case_id}, "output": f"answer {case_id}", **({"human": value} if human else {})}
        for case_id, value in LABELLED.items()
    ]
    path = folder / name
    path.write_bytes(b"".join(orjson.dumps(row) + b"\n" for row in rows))
    return path


def results(scores: dict[str, float]) -> list[CaseResult]:
    return [CaseResult(id=case_id, score=value, feedback=f"fb {case_id}") for case_id, value in scores.items()]


def label_all(ws_in_data_roots: Workspace, values: dict[str, float] = LABELLED) -> None:
    for case_id, value in values.items():
        ws_in_data_roots.human.set_score(case_id, value)


def test_the_rater_and_the_threshold_are_settings_with_defaults(ws_in_data_roots: Workspace) -> None:
    assert ws_in_data_roots.human.rater()  # the OS user
    assert ws_in_data_roots.human.set_rater("  ana ") == "ana" and ws_in_data_roots.human.rater() == "ana"
    with pytest.raises(ValueError, match="data file"):
        ws_in_data_roots.human.set_rater(FILE_RATER)
    assert ws_in_data_roots.human.pass_threshold() == 0.5
    ws_in_data_roots.human.set_pass_threshold(0.7)
    assert Workspace(ws_in_data_roots.directory, env={}).human.pass_threshold() == 0.7


def test_a_label_is_the_raters_for_the_candidate_in_use_and_survives_a_new_workspace(
    ws_in_data_roots: Workspace,
) -> None:
    ws_in_data_roots.human.set_rater("ana")
    in_use = ws_in_data_roots.data.in_use()
    first = in_use.cases[0].id
    ws_in_data_roots.human.set_score(first, 0.75, "too long")
    labels = Workspace(ws_in_data_roots.directory, env={}).human.labels()
    mine = labels.of_rater("ana", in_use.candidate)
    assert (mine[first].value, mine[first].note, mine[first].dataset) == (0.75, "too long", "example")
    ws_in_data_roots.data.choose_cases(in_use.data.candidates[1], None)  # another candidate's output is another label
    assert ws_in_data_roots.human.labels().of_rater("ana", ws_in_data_roots.data.in_use().candidate) == {}
    ws_in_data_roots.data.choose_cases(in_use.candidate, None)
    ws_in_data_roots.human.clear_score(first)
    assert ws_in_data_roots.human.labels().of_rater("ana", in_use.candidate) == {}


def test_labels_survive_a_reupload_of_the_same_file_and_a_change_of_candidate_files(
    ws_in_data_roots: Workspace, tmp_path
) -> None:
    original = data_file(tmp_path, "original.jsonl")
    upload = ws_in_data_roots.data.save_upload("cases.jsonl", io.BytesIO(original.read_bytes()))
    ws_in_data_roots.data.save_choice(str(upload))
    label_all(ws_in_data_roots)
    again = ws_in_data_roots.data.save_upload("cases.jsonl", io.BytesIO(original.read_bytes()))
    other = tmp_path / "large.jsonl"
    other.write_bytes(b"".join(orjson.dumps({"id": k, "output": "x"}) + b"\n" for k in LABELLED))
    ws_in_data_roots.data.save_choice(
        str(again), candidate_files=[CandidateFile("large", str(other))], main_candidate="small"
    )
    in_use = ws_in_data_roots.data.in_use()
    assert in_use.problem is None and in_use.data.candidates == ["small", "large"]
    # The labels were given to the file's one output, which had no name: now that it is "small", they say so and
    # are kept for it when asked (they might have been meant for either).
    assert ws_in_data_roots.human.labels().values("small") == {}
    assert len(ws_in_data_roots.human.labels().without_candidate(in_use.data.candidates)) == len(LABELLED)
    assert ws_in_data_roots.human.assign_candidate("small") == len(LABELLED)
    assert ws_in_data_roots.human.labels().values("small") == LABELLED


def test_the_data_files_human_column_is_read_live_as_one_more_rater_and_never_exported(
    ws_in_data_roots, tmp_path
) -> None:
    ws_in_data_roots.data.save_choice(str(data_file(tmp_path, human=True)))
    ws_in_data_roots.human.set_rater("ana")
    ws_in_data_roots.human.set_score("a", 0.0)
    labels = ws_in_data_roots.human.labels()
    assert labels.raters() == [FILE_RATER, "ana"]
    assert labels.values("", FILE_RATER) == LABELLED
    assert labels.values("")["a"] == 0.5  # the mean of the file's 1.0 and ana's 0.0
    exported = tmp_path / "out.jsonl"
    exported.write_bytes(ws_in_data_roots.human.export_scores("jsonl"))
    assert [(s.case_id, s.rater) for s in read_labels(exported, dataset="x", rater="y")] == [("a", "ana")]


def test_an_import_keeps_all_or_nothing_and_says_which_ids_are_not_in_the_data(ws_in_data_roots: Workspace) -> None:
    known = ws_in_data_roots.data.in_use().cases[0].id
    bad = f"id,human\n{known},0.5\nzz,maybe\n".encode()
    with pytest.raises(LabelError, match=r"labels\.csv, line 3"):
        ws_in_data_roots.human.import_scores("../labels.csv", bad, rater="bo")
    assert not ws_in_data_roots.human.labels()
    found = ws_in_data_roots.human.import_scores(
        "labels.csv", f"id,human,rater\n{known},pass,\nzz,0,cy\n".encode(), rater="bo"
    )
    assert (found.count, found.raters, found.unknown_rows, found.unknown_sample) == (1, ("bo",), 1, ("zz",))
    assert ws_in_data_roots.human.labels().values(ws_in_data_roots.data.in_use().candidate, "bo") == {known: 1.0}


def test_an_export_reads_back_as_it_was(ws_in_data_roots: Workspace, tmp_path) -> None:
    ws_in_data_roots.human.set_rater("ana")
    ws_in_data_roots.human.set_score(ws_in_data_roots.data.in_use().cases[0].id, 0.25, "=cmd note, with a comma")
    for form in ("csv", "jsonl"):
        path = tmp_path / f"labels.{form}"
        path.write_bytes(ws_in_data_roots.human.export_scores(form))
        assert [(s.value, s.note, s.rater) for s in read_labels(path, dataset="example", rater="x")] == [
            (0.25, "=cmd note, with a comma", "ana")
        ]


def test_the_agreement_of_results_is_the_reports_and_is_computed_once(ws_in_data_roots: Workspace, tmp_path) -> None:
    ws_in_data_roots.data.save_choice(str(data_file(tmp_path)))
    run = results({"a": 0.9, "b": 0.8, "c": 0.7, "d": 0.1, "e": 0.6})
    assert ws_in_data_roots.human.agreement(run, ws_in_data_roots.data.in_use().data.source, "") is None
    label_all(ws_in_data_roots)
    found = ws_in_data_roots.human.agreement(run, ws_in_data_roots.data.in_use().data.source, "")
    assert found == measure_agreement(pair_results(run, LABELLED), threshold=0.5)
    assert (
        ws_in_data_roots.human.agreement(run, ws_in_data_roots.data.in_use().data.source, "") is found
    )  # the same results and labels: kept
    ws_in_data_roots.human.set_pass_threshold(0.75)
    assert ws_in_data_roots.human.agreement(run, ws_in_data_roots.data.in_use().data.source, "").threshold == 0.75  # type: ignore[union-attr]


def test_a_kept_run_records_its_agreement_with_the_labels_that_exist_then(
    ws_in_data_roots: Workspace, tmp_path
) -> None:
    ws_in_data_roots.data.save_choice(str(data_file(tmp_path)))
    made_by = ws_in_data_roots.settings.provenance(METRIC)
    unlabelled = ws_in_data_roots.runs.keep(METRIC, results({"a": 1.0, "b": 1.0}), made_by)
    assert ws_in_data_roots.human.recorded_agreement(unlabelled) is None
    label_all(ws_in_data_roots)
    run_id = ws_in_data_roots.runs.keep(METRIC, results({"a": 1.0, "b": 1.0, "c": 0.0}), made_by)
    recorded = ws_in_data_roots.human.recorded_agreement(run_id)
    assert recorded is not None and (recorded.n, recorded.confusion.fp, recorded.unknown) == (3, 1, ("d", "e"))
    ws_in_data_roots.human.set_score("b", 1.0)  # later labels change the agreement now, not the one recorded
    saved = ws_in_data_roots.runs.get(run_id)
    assert saved is not None and ws_in_data_roots.human.run_agreement(saved).confusion.fp == 0  # type: ignore[union-attr]
    assert ws_in_data_roots.human.recorded_agreement(run_id) == recorded


def test_two_runs_and_two_raters_are_compared_on_the_same_labels(ws_in_data_roots: Workspace, tmp_path) -> None:
    ws_in_data_roots.data.save_choice(str(data_file(tmp_path, human=True)))
    before, after = results({"a": 0.2, "b": 0.9, "c": 0.5}), results({"a": 0.9, "b": 0.1, "c": 0.5})
    assert (
        ws_in_data_roots.human.compare_agreement(
            before, after, ws_in_data_roots.data.in_use().data.source, "", rater="nobody"
        )
        is None
    )
    found = ws_in_data_roots.human.compare_agreement(before, after, ws_in_data_roots.data.in_use().data.source, "")
    assert found is not None and [move.id for move in found.toward] == ["b", "a"] and not found.away
    ws_in_data_roots.human.set_rater("ana")
    label_all(ws_in_data_roots, {"a": 1.0, "b": 0.0, "c": 0.0})
    pair = ws_in_data_roots.human.rater_agreement(FILE_RATER, "ana", "", ws_in_data_roots.human.labels())
    assert (pair.n, pair.only_first, [item.id for item in pair.disagreements]) == (3, 2, ["c"])


def test_clear_forgets_the_labels_and_the_recorded_agreements(ws_in_data_roots: Workspace) -> None:
    label_all(ws_in_data_roots, {ws_in_data_roots.data.in_use().cases[0].id: 1.0})
    run_id = ws_in_data_roots.runs.keep(
        METRIC, results({ws_in_data_roots.data.in_use().cases[0].id: 1.0}), ws_in_data_roots.settings.provenance(METRIC)
    )
    ws_in_data_roots.clear()
    fresh = Workspace(ws_in_data_roots.directory, env={})
    assert not fresh.human.labels() and fresh.human.recorded_agreement(run_id) is None


def test_the_next_unlabelled_case_goes_round_and_the_order_keeps_every_case() -> None:
    order = labelling_order(["a", "b", "c", "d"], [], LabelOrder.LISTED)
    assert next_unlabelled(order, {"a", "c"}, "b") == "d"
    assert next_unlabelled(order, {"b", "c", "d"}, "c") == "a"
    assert next_unlabelled(order, {"a", "b", "c", "d"}, "a") is None
    assert next_unlabelled(order, set(), None) == "a"
