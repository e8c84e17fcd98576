"""A labels file full of ids the data does not have: only the rows of the data's cases are kept, the rest are
counted with a few examples (in the import's message, the page and the command line's report, text and JSON),
and the labels of one import or one rater can be deleted."""

from __future__ import annotations

import io
import json
import subprocess
from pathlib import Path

import pytest

from skynet_core.human.label_words import matched_text
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobBoard
from tests.core.command_line import cli_completed as cli

IDS = [f"c{n}" for n in range(10)]
GHOSTS = 5_000


@pytest.fixture
def ws_with_cases(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(tmp_path))
    workspace = Workspace(tmp_path, jobs=JobBoard(grace_s=60), env={})
    rows = "".join(f'{{"id": "{case_id}", "input": {{"n": {n}}}, "output": "x"}}\n' for n, case_id in enumerate(IDS))
    workspace.data.save_choice(str(workspace.data.save_upload("cases.jsonl", io.BytesIO(rows.encode()))))
    workspace.human.set_rater("ana")
    return workspace


def labels(known: int = len(IDS), ghosts: int = GHOSTS) -> bytes:
    rows = [f"{case_id},{n % 2}" for n, case_id in enumerate(IDS[:known])]
    rows += [f"ghost{n},1" for n in range(ghosts)]
    return ("id,human\n" + "\n".join(rows) + "\n").encode()


def test_only_the_rows_of_the_datas_cases_are_kept_and_the_rest_are_counted_with_examples(
    ws_with_cases: Workspace,
) -> None:
    found = ws_with_cases.human.import_scores("big.csv", labels())
    assert (found.count, found.unknown_rows) == (10, GHOSTS)
    assert found.unknown_sample == tuple(f"ghost{n}" for n in range(20))  # the first ones, never all
    assert len(ws_with_cases.human.store.scores(ws_with_cases.human.labels().label_set)) == 10
    again = ws_with_cases.human.labels()
    assert len(again.values("")) == 10 and again.elsewhere == 0


def test_the_labels_of_one_import_or_one_rater_can_be_deleted(ws_with_cases: Workspace) -> None:
    ws_with_cases.human.set_score("c0", 0.5)  # ana's own, by hand
    first = ws_with_cases.human.import_scores("bo.csv", labels(known=5, ghosts=0), rater="bo")
    second = ws_with_cases.human.import_scores("cy.csv", labels(known=10, ghosts=3), rater="cy")
    imports = ws_with_cases.human.label_imports()
    assert [(item.id, item.file, item.kept, item.unknown_rows) for item in imports] == [
        (second.import_id, "cy.csv", 10, 3),
        (first.import_id, "bo.csv", 5, 0),
    ]
    assert ws_with_cases.human.delete_label_import(second.import_id) == 10
    assert ws_with_cases.human.labels().raters() == ["bo", "ana"]
    assert [item.id for item in ws_with_cases.human.label_imports()] == [first.import_id]
    assert ws_with_cases.human.delete_rater_labels("bo") == 5
    assert ws_with_cases.human.labels().raters() == ["ana"] and not ws_with_cases.human.label_imports()


@pytest.fixture(scope="module")
def cli_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("unknown_cli")
    (folder / "metric.py").write_text(
        "def score(input, output, expected=None):\n    return input['n'] / 10, {'feedback': 'ok'}\n"
    )
    (folder / "cases.jsonl").write_text(
        "".join(json.dumps({"id": case_id, "input": {"n": n}, "output": "x"}) + "\n" for n, case_id in enumerate(IDS))
    )
    (folder / "labels.csv").write_bytes(labels())
    return {"metric": folder / "metric.py", "data": folder / "cases.jsonl", "labels": folder / "labels.csv"}


def score(files: dict[str, Path], *extra: str) -> subprocess.CompletedProcess[str]:
    return cli("score", str(files["metric"]), "--data", str(files["data"]), "--labels", str(files["labels"]), *extra)


def test_the_command_lines_json_caps_the_unknown_ids_and_counts_them(cli_files: dict[str, Path]) -> None:
    done = score(cli_files, "--json")
    assert done.returncode == 0, done.stderr
    agreement = json.loads(done.stdout)["agreement"]
    assert agreement["unknown_count"] == GHOSTS
    assert agreement["unknown"] == [f"ghost{n}" for n in range(20)]
    assert len(done.stdout) < 20_000


def test_the_command_lines_text_says_how_many_rows_name_other_cases(cli_files: dict[str, Path]) -> None:
    done = score(cli_files)
    assert done.returncode == 0, done.stderr
    assert "5,000 labels not in the data" in done.stdout
    assert "labels not in the data: ghost0, ghost1, ghost2, ghost3, ghost4, …" in done.stdout
    assert len(done.stdout) < 10_000


def test_a_store_that_kept_rows_of_other_cases_before_shows_the_datas_and_counts_the_rest(
    ws_with_cases: Workspace,
) -> None:
    from skynet_core.human import HumanScore

    label_set = ws_with_cases.human.labels().label_set
    ws_with_cases.human.store.set_many([HumanScore(label_set, f"ghost{n}", "", 1.0, "old") for n in range(GHOSTS)])
    ws_with_cases.human.import_scores("bo.csv", labels(ghosts=0), rater="bo")
    found = ws_with_cases.human.labels()
    assert (len(found.stored()), found.elsewhere, found.raters()) == (10, GHOSTS, ["bo"])
    assert "5,000 more name cases this data does not have." in matched_text(found)
    assert ws_with_cases.human.stored_raters() == ["old", "bo"]  # whose labels can be deleted, those of other cases too
    assert ws_with_cases.human.delete_rater_labels("old") == GHOSTS
    assert ws_with_cases.human.labels().elsewhere == 0
