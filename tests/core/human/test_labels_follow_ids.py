"""Human scores belong to case ids (and candidates), not to a file's bytes: a data file that keeps the ids keeps
the labels and says how many matched; a database from before keeps its labels readable; column roles are
remembered per set of columns, and common names of expected columns are guessed."""

from __future__ import annotations

import io
import sqlite3
from pathlib import Path

import pytest

from skynet_core.datasets import Role, infer_roles
from skynet_core.store.human import HumanScores
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobBoard

IDS = [f"t{n:02d}" for n in range(60)]


@pytest.fixture
def ws_rater_ana(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(tmp_path))
    workspace = Workspace(tmp_path, jobs=JobBoard(grace_s=60), env={})
    workspace.human.set_rater("ana")
    return workspace


def support(ids: list[str], extra: str = "") -> bytes:
    rows = "".join(f"{case_id},question {case_id},answer {case_id}{extra}\n" for case_id in ids)
    return ("id,question,response\n" + rows).encode()


def use(ws_rater_ana: Workspace, name: str, data: bytes) -> str:
    path = str(ws_rater_ana.data.save_upload(name, io.BytesIO(data)))
    ws_rater_ana.data.save_choice(path)
    assert ws_rater_ana.data.in_use().problem is None
    return path


def test_a_file_with_the_same_ids_and_twenty_new_ones_keeps_the_sixty_labels_and_says_how_many(
    ws_rater_ana: Workspace,
) -> None:
    first = use(ws_rater_ana, "support.csv", support(IDS))
    for n, case_id in enumerate(IDS):
        ws_rater_ana.human.set_score(case_id, float(n % 2))
    grown = use(ws_rater_ana, "support80.csv", support(IDS + [f"new{n}" for n in range(20)], " (edited)"))
    assert grown != first
    labels = ws_rater_ana.human.labels()
    assert len(labels.values("")) == 60 and len(labels.stored()) == 60
    assert (labels.label_set, labels.origin, labels.elsewhere) == (first, "support.csv", 0)
    ws_rater_ana.human.set_score("new0", 1.0)  # labelling the new file adds to the same scores
    use(ws_rater_ana, "support.csv", support(IDS))
    again = ws_rater_ana.human.labels()
    assert len(again.values("")) == 60 and again.elsewhere == 1  # new0 is not a case of the first file


def test_an_unrelated_file_does_not_take_the_labels(ws_rater_ana: Workspace) -> None:
    use(ws_rater_ana, "support.csv", support(IDS))
    ws_rater_ana.human.set_score(IDS[0], 1.0)
    use(ws_rater_ana, "other.csv", support([f"q{n}" for n in range(30)]))
    assert not ws_rater_ana.human.labels() and ws_rater_ana.human.labels().origin is None


def test_a_database_from_before_keeps_its_labels_readable_and_gains_imports(
    ws_rater_ana: Workspace, tmp_path: Path
) -> None:
    path = use(ws_rater_ana, "support.csv", support(IDS))
    old = tmp_path / "old"
    old.mkdir()
    with sqlite3.connect(old / "studio.sqlite3") as db:  # the schema of the third wave
        db.executescript(
            "CREATE TABLE human_scores (dataset TEXT NOT NULL, case_id TEXT NOT NULL, candidate TEXT NOT NULL, "
            "rater TEXT NOT NULL, value REAL NOT NULL, note TEXT NOT NULL DEFAULT '', labelled_at REAL NOT NULL, "
            "PRIMARY KEY (dataset, case_id, candidate, rater));"
        )
        db.execute("INSERT INTO human_scores VALUES (?, ?, '', 'ana', 0.5, 'old note', 1.0)", (path, IDS[0]))
    store = HumanScores(old)
    assert [(s.case_id, s.value, s.note) for s in store.scores(path)] == [(IDS[0], 0.5, "old note")]
    legacy = Workspace(old, env={})
    legacy.data.save_choice(path)
    found = legacy.human.import_scores("bo.csv", f"id,human\n{IDS[1]},1\n".encode(), rater="bo")
    assert found.import_id > 0 and len(legacy.human.labels().values("")) == 2


def test_roles_come_back_for_the_same_columns_by_path_or_in_another_file(
    ws_rater_ana: Workspace, tmp_path: Path
) -> None:
    first = tmp_path / "support.csv"
    first.write_bytes(support(IDS))
    roles = {"question": (Role.INPUT, "question"), "response": (Role.OUTPUT, ""), "id": (Role.ID, "")}
    ws_rater_ana.data.save_choice(str(first), roles, columns=["id", "question", "response"])
    assert ws_rater_ana.data.remembered_roles(["id", "question", "response"]) == roles
    assert (
        ws_rater_ana.data.remembered_roles(["response", "id", "question"]) == roles
    )  # the order of the columns does not count
    assert ws_rater_ana.data.remembered_roles(["id", "question", "response", "extra"]) is None
    ws_rater_ana.data.save_choice(str(first), None, columns=["id", "question", "response"])  # the guess, used again
    assert ws_rater_ana.data.remembered_roles(["id", "question", "response"]) is None


@pytest.mark.parametrize(
    ("column", "field"),
    [
        ("reference_answer", "reference_answer"),
        ("key_fact", "key_fact"),
        ("expected_label", "expected_label"),
        ("Expected Priority", "Expected Priority"),
        ("gold", "gold"),
        ("target", "target"),
    ],
)
def test_common_names_of_expected_columns_are_guessed_as_expected(column: str, field: str) -> None:
    roles = infer_roles(["id", "question", "response", column])
    assert roles[column] == (Role.EXPECTED, field)
