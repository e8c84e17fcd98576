"""The Data page's decisions in skynet_core: role guesses from common names, problems found in the preview,
a folder given for a file, and the upload cap agreeing with the server's config."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pandas as pd
import pytest

from skynet_core.datasets import MAX_FILE_BYTES, DatasetError, Role, infer_roles, load_dataset, read_table
from skynet_core.views.data.preview import preview_problems

ROOT = Path(__file__).resolve().parents[3]


@pytest.mark.parametrize(
    ("column", "role", "field"),
    [
        ("question", Role.INPUT, "question"),
        ("Prompt", Role.INPUT, "Prompt"),
        ("query", Role.INPUT, "query"),
        ("answer", Role.EXPECTED, "answer"),
        ("label", Role.EXPECTED, "label"),
        ("target", Role.EXPECTED, "target"),
        ("gold", Role.EXPECTED, "gold"),
        ("reference", Role.EXPECTED, "reference"),
        ("ground_truth", Role.EXPECTED, "ground_truth"),
        ("Ground Truth", Role.EXPECTED, "Ground Truth"),
        ("ground-truth", Role.EXPECTED, "ground-truth"),
        ("response", Role.OUTPUT, ""),
        ("completion", Role.OUTPUT, ""),
        ("prediction", Role.OUTPUT, ""),
        ("notes", Role.IGNORED, ""),
    ],
)
def test_common_names_get_a_role_guess(column: str, role: Role, field: str) -> None:
    assert infer_roles([column]) == {column: (role, field)}


def test_question_answer_label_file_gets_input_expected_and_the_first_output() -> None:
    roles = infer_roles(["id", "question", "answer", "label", "response", "prediction"])
    assert roles == {
        "id": (Role.ID, ""),
        "question": (Role.INPUT, "question"),
        "answer": (Role.EXPECTED, "answer"),
        "label": (Role.EXPECTED, "label"),
        "response": (Role.OUTPUT, ""),
        "prediction": (Role.IGNORED, ""),  # one column holds the whole output
    }


def test_a_prefix_wins_over_a_name_guess() -> None:
    roles = infer_roles(["input.q", "question", "expected.label", "label", "output", "response"])
    assert roles["question"] == roles["label"] == roles["response"] == (Role.IGNORED, "")


def test_a_csv_with_common_names_loads_without_roles(tmp_path: Path) -> None:
    path = tmp_path / "qa.csv"
    path.write_text("question,answer,prediction\n2+2?,4,4\n3+3?,6,5\n", encoding="utf-8")
    data = load_dataset(path)
    case = data.cases[0]
    assert case.input == {"question": "2+2?"} and case.expected == {"answer": "4"} and case.output == "4"


def frame(columns: dict[str, list[object]]) -> pd.DataFrame:
    table = pd.DataFrame(columns)
    table.index = pd.Index(range(1, len(table) + 1), name="row")
    return table


def test_preview_finds_repeated_ids_before_loading() -> None:
    table = frame({"id": ["a", "b", "a"], "question": ["1", "2", "3"], "response": ["x", "y", "z"]})
    assert preview_problems(table, None, "/d/cases.csv") == [
        "cases.csv: id “a” appears more than once (rows 1 and 3). Give every case its own id."
    ]


def test_preview_counts_every_repeated_id_and_reads_numbers_as_ids() -> None:
    table = frame({"id": [1.0, 2.0, 1.0, 2.0, 3.0], "input.q": list("abcde"), "output": list("vwxyz")})
    assert preview_problems(table, None, "c.csv") == [
        "c.csv: 2 ids appear more than once, e.g. “1” (rows 1 and 3). Give every case its own id."
    ]


def test_the_same_id_for_two_candidates_is_not_repeated() -> None:
    table = frame(
        {"id": ["a", "a", "b", "b"], "candidate": ["x", "y", "x", "y"], "input.q": list("1122"), "output": list("pqrs")}
    )
    assert preview_problems(table, None, "c.csv") == []
    table.loc[4, "candidate"] = "x"
    assert preview_problems(table, None, "c.csv")[0].startswith("c.csv: id “b” appears more than once (rows 3 and 4)")


def test_empty_ids_are_numbered_not_repeated() -> None:
    assert preview_problems(frame({"id": ["", ""], "input.q": ["1", "2"], "output": ["a", "b"]}), None, "c.csv") == []


def test_preview_says_a_role_is_missing_and_the_ids_repeat_at_once() -> None:
    table = frame({"key": ["a", "a"], "ask": ["1", "2"], "said": ["x", "y"]})
    problems = preview_problems(table, {"key": (Role.ID, ""), "ask": (Role.INPUT, "ask")}, "c.csv")
    assert problems[0].startswith("c.csv has no output column.")
    assert problems[1].startswith("c.csv: id “a” appears more than once")
    assert preview_problems(table, {"key": (Role.ID, ""), "said": (Role.OUTPUT, "")}, "c.csv")[0].startswith(
        "c.csv has no input column."
    )


def test_preview_problems_are_what_loading_refuses(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    path.write_text("id,question,response\na,1,x\na,2,y\n", encoding="utf-8")
    [problem] = preview_problems(read_table(path), None, str(path))
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    assert "id 'a' appears twice" in str(caught.value) and "id “a” appears more than once" in problem


def test_a_folder_says_it_is_a_folder_and_names_the_case_files_inside(tmp_path: Path) -> None:
    (tmp_path / "cases.csv").write_text("input.q,output\n1,2\n", encoding="utf-8")
    (tmp_path / "notes.txt").write_text("x", encoding="utf-8")
    for reader in (read_table, load_dataset):
        with pytest.raises(DatasetError) as caught:
            reader(tmp_path)
        message = str(caught.value)
        assert "is a folder, not a case file" in message and "cases.csv" in message and "notes.txt" not in message
        assert "without an extension" not in message


def test_an_empty_folder_says_what_to_give_instead(tmp_path: Path) -> None:
    folder = tmp_path / "empty"
    folder.mkdir()
    with pytest.raises(DatasetError) as caught:
        read_table(folder)
    assert "is a folder, not a case file, and it holds no .jsonl, .csv or .parquet file" in str(caught.value)


def test_the_server_upload_cap_is_the_size_the_studio_reads() -> None:
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert config["server"]["maxUploadSize"] * 1_000_000 == MAX_FILE_BYTES
