"""Datasets, the Data page's loading paths: uploads kept on disk, roles as JSON, one file per candidate
joined by id, mixed types, wide files, and every error a user can hit on them."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from skynet_core import datasets
from skynet_core.cases import Observation
from skynet_core.datasets import (
    CandidateFile,
    DatasetError,
    Role,
    check_size,
    join_candidates,
    load_dataset,
    read_table,
    roles_from_json,
    roles_to_json,
    save_upload,
)


def _write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _jsonl(tmp_path: Path, name: str, records: list[Any]) -> Path:
    return _write(tmp_path, name, "".join(json.dumps(record) + "\n" for record in records))


@pytest.fixture
def main_csv(tmp_path: Path) -> Path:
    return _write(
        tmp_path,
        "small.csv",
        "id,input.q,expected.label,output,observation.latency_ms\na,first?,x,x,100\nb,second?,y,z,120\nc,third?,,x,\n",
    )


def _error(path: Path, **kwargs: Any) -> DatasetError:
    with pytest.raises(DatasetError) as caught:
        load_dataset(path, **kwargs)
    return caught.value


# Uploads


def test_upload_is_kept_under_its_content_hash_and_reused(tmp_path: Path) -> None:
    uploads = tmp_path / "uploads"
    first = save_upload("cases.csv", io.BytesIO(b"input.q,output\nx,y\n"), uploads)
    again = save_upload("cases.csv", io.BytesIO(b"input.q,output\nx,y\n"), uploads)
    other = save_upload("cases.csv", io.BytesIO(b"input.q,output\nz,w\n"), uploads)
    assert first == again and first.name == "cases.csv" and first.parent.parent == uploads
    assert other != first and other.name == "cases.csv"
    assert first.read_bytes() == b"input.q,output\nx,y\n" and other.read_bytes() == b"input.q,output\nz,w\n"
    assert [path.name for path in uploads.rglob(".upload-*")] == []
    assert load_dataset(first).cases[0].input == {"q": "x"}


def test_upload_name_is_reduced_to_a_plain_file_name(tmp_path: Path) -> None:
    path = save_upload("../../etc/My cases?.jsonl", io.BytesIO(b'{"input": {}, "output": 1}\n'), tmp_path)
    assert path.parent.parent == tmp_path and path.name == "My cases_.jsonl"
    windows = save_upload("C:\\Users\\me\\cases.parquet", io.BytesIO(b"PAR1"), tmp_path)
    assert windows.name == "cases.parquet"


def test_upload_of_an_unsupported_type_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match=r"cases.xlsx: .xlsx files are not supported"):
        save_upload("cases.xlsx", io.BytesIO(b"x"), tmp_path / "uploads")
    assert not (tmp_path / "uploads").exists()


def test_upload_over_the_size_limit_gets_the_size_message(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(datasets.disk, "MAX_FILE_BYTES", 1_000_000)
    with pytest.raises(DatasetError) as caught:
        save_upload("big.csv", io.BytesIO(b"x" * 1_500_000), tmp_path)
    assert "big.csv is 1.5 MB, over the 1 MB limit" in str(caught.value) and "Keep a sample" in str(caught.value)
    assert list(tmp_path.iterdir()) == []


def test_empty_upload_says_add_a_case(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="empty.jsonl is empty. Add at least one case"):
        save_upload("empty.jsonl", io.BytesIO(b""), tmp_path)


def test_size_limit_is_at_least_200_mb_and_the_check_names_the_file() -> None:
    check_size("cases.csv", 200_000_000)
    with pytest.raises(DatasetError, match=r"cases.csv is 300.0 MB, over the 250 MB limit"):
        check_size("cases.csv", 300_000_000)


# Roles as JSON (the store and `score --roles`)


def test_roles_round_trip_through_json() -> None:
    roles = {"question": (Role.INPUT, "question"), "gold": (Role.EXPECTED, "label"), "answer": (Role.OUTPUT, "")}
    as_json = roles_to_json(roles)
    assert as_json == {"question": ["input", "question"], "gold": ["expected", "label"], "answer": ["output", ""]}
    assert roles_from_json(json.loads(json.dumps(as_json))) == roles


def test_roles_json_accepts_a_bare_role_name() -> None:
    assert roles_from_json({"answer": "Output", "row": ["id"]}) == {"answer": (Role.OUTPUT, ""), "row": (Role.ID, "")}


@pytest.mark.parametrize(
    ("value", "words"),
    [
        (["input"], "must map each column to [role, field]"),
        ({"q": ["question", "q"]}, "column 'q' has the role 'question', which does not exist. Use one of input"),
        ({"q": 3}, "the role of column 'q' is the number 3. Write it as [role, field]"),
        ({"q": ["input", "q", "extra"]}, "the role of column 'q' is a list"),
    ],
)
def test_bad_roles_json_names_the_column_and_the_fix(value: Any, words: str) -> None:
    with pytest.raises(DatasetError) as caught:
        roles_from_json(value, "roles.json")
    assert str(caught.value).startswith("roles.json") and words in str(caught.value)


def test_stored_roles_load_a_file_with_unprefixed_columns(tmp_path: Path) -> None:
    path = _write(tmp_path, "plain.csv", "question,gold,prediction\nWhere?,shipping,refund\n")
    roles = roles_from_json({"question": ["input", "question"], "gold": ["expected", "label"], "prediction": "output"})
    case = load_dataset(path, roles=roles).cases[0]
    assert (case.input, case.expected, case.output) == ({"question": "Where?"}, {"label": "shipping"}, "refund")


# One file per candidate, joined by id


def test_candidate_file_joins_by_id_whatever_its_row_order(tmp_path: Path, main_csv: Path) -> None:
    large = _write(
        tmp_path,
        "large.csv",
        "id,output,observation.latency_ms,observation.cost_usd\nc,x,900,0.01\na,x,800,0.02\nb,y,,0.03\n",
    )
    dataset = load_dataset(main_csv, candidate_files=[CandidateFile("large", str(large))])
    assert dataset.candidates == ["small", "large"]
    small_cases = {case.id: case for case in dataset.for_candidate("small")}
    large_cases = {case.id: case for case in dataset.for_candidate("large")}
    assert [case.id for case in dataset.for_candidate("large")] == ["c", "a", "b"]
    assert large_cases["b"].output == "y" and small_cases["b"].output == "z"
    assert large_cases["b"].observation == Observation(latency_ms=None, cost_usd=0.03)
    assert small_cases["a"].observation == Observation(latency_ms=100.0)
    for case_id in "abc":
        assert large_cases[case_id].input == small_cases[case_id].input
        assert large_cases[case_id].expected == small_cases[case_id].expected
        assert large_cases[case_id].split == small_cases[case_id].split
    assert large_cases["c"].expected is None
    assert dataset.split_counts() == {"train": 3, "val": 0, "test": 0}


def test_main_candidate_gets_the_given_name(tmp_path: Path, main_csv: Path) -> None:
    other = _write(tmp_path, "other.csv", "id,output\na,1\nb,2\nc,3\n")
    dataset = load_dataset(main_csv, candidate_files=[CandidateFile("other", str(other))], main_candidate=" base ")
    assert dataset.candidates == ["base", "other"]
    assert {case.candidate for case in dataset.cases} == {"base", "other"}


def test_candidate_file_may_repeat_matching_input_expected_and_split(tmp_path: Path) -> None:
    main = _write(tmp_path, "main.csv", "id,split,input.q,expected.label,output\na,test,x,l,o\nb,train,y,,p\n")
    other = _write(tmp_path, "other.csv", "id,split,input.q,expected.label,output\nb,train,y,,q\na,test,x,l,r\n")
    dataset = load_dataset(main, candidate_files=[CandidateFile("other", str(other))])
    assert [(case.id, case.split, case.output) for case in dataset.for_candidate("other")] == [
        ("b", "train", "q"),
        ("a", "test", "r"),
    ]


def test_candidate_file_columns_take_the_main_files_roles(tmp_path: Path) -> None:
    main = _write(tmp_path, "main.csv", "key,question,prediction\n1,x,a\n2,y,b\n")
    other = _write(tmp_path, "other.jsonl", '{"key": 2, "prediction": "B"}\n{"key": 1, "prediction": "A"}\n')
    roles = {"key": (Role.ID, ""), "question": (Role.INPUT, "question"), "prediction": (Role.OUTPUT, "")}
    dataset = load_dataset(main, roles=roles, candidate_files=[CandidateFile("other", str(other))])
    assert {case.id: case.output for case in dataset.for_candidate("other")} == {"1": "A", "2": "B"}


def test_candidate_files_own_roles_win(tmp_path: Path, main_csv: Path) -> None:
    other = _write(tmp_path, "other.csv", "case,answer\na,1\nb,2\nc,3\n")
    extra = CandidateFile("other", str(other), roles={"case": (Role.ID, ""), "answer": (Role.OUTPUT, "")})
    dataset = load_dataset(main_csv, candidate_files=[extra])
    assert [case.output for case in dataset.for_candidate("other")] == ["1", "2", "3"]


def test_candidate_file_adds_to_a_candidate_column(tmp_path: Path) -> None:
    main = _jsonl(
        tmp_path,
        "main.jsonl",
        [
            {"id": "a", "candidate": "one", "input": {"q": 1}, "output": 1},
            {"id": "a", "candidate": "two", "input": {"q": 1}, "output": 2},
        ],
    )
    third = _jsonl(tmp_path, "third.jsonl", [{"id": "a", "output": 3}])
    dataset = load_dataset(main, candidate_files=[CandidateFile("three", str(third))])
    assert dataset.candidates == ["one", "two", "three"]
    assert dataset.for_candidate("three")[0].input == {"q": 1}


def test_join_without_files_returns_the_dataset_unchanged(main_csv: Path) -> None:
    dataset = load_dataset(main_csv)
    assert join_candidates(dataset, [], main_candidate="x") is dataset


def test_candidate_file_round_trips_through_json(tmp_path: Path) -> None:
    item = CandidateFile("large", str(tmp_path / "large.csv"), roles={"answer": (Role.OUTPUT, "")})
    assert CandidateFile.from_json(json.loads(json.dumps(item.to_json()))) == item
    with pytest.raises(DatasetError, match="A candidate file is written as"):
        CandidateFile.from_json(["large", "large.csv"])


REFUSED_CANDIDATE_FILES = {  # what other.csv holds (the main file small.csv has the cases a, b, c), and what is said
    "missing_a_case": (
        "id,output\na,1\nc,3\n",
        (
            "other.csv has no row for case 'b' of small.csv (candidate 'other': 2 of 3 cases)",
            "Every candidate needs the same case ids",
        ),
    ),
    "id_twice": (
        "id,output\na,1\nb,2\na,3\nc,4\n",
        ("other.csv: id 'a' appears twice (rows 1 and 3). A candidate file has one row per case.",),
    ),
    "no_id_column": (
        "output\n1\n2\n3\n",
        ("other.csv has no id column. A candidate file is joined to the cases of small.csv by id",),
    ),
    "row_without_an_id": (
        "id,output\na,1\n,2\nc,3\n",
        ("other.csv, row 2 has no id. Every row of a candidate file needs the id of the case it answers.",),
    ),
    "candidate_column": (
        "id,candidate,output\na,big,1\nb,big,2\nc,big,3\n",
        ("column 'candidate' has the candidate role, but a candidate file holds the outputs of one",),
    ),
    "different_split_for_an_id": (
        "id,split,output\na,train,1\nb,test,2\nc,train,3\n",
        ("case 'b' is in split 'test' here but 'train' in small.csv",),
    ),
}


@pytest.mark.parametrize(("table", "words"), REFUSED_CANDIDATE_FILES.values(), ids=REFUSED_CANDIDATE_FILES.keys())
def test_a_candidate_file_that_does_not_fit_the_cases_says_what_is_wrong(
    tmp_path: Path, main_csv: Path, table: str, words: tuple[str, ...]
) -> None:
    other = _write(tmp_path, "other.csv", table)
    message = str(_error(main_csv, candidate_files=[CandidateFile("other", str(other))]))
    assert [word for word in words if word not in message] == [], message


def test_candidate_file_with_an_unknown_id_names_the_row(tmp_path: Path, main_csv: Path) -> None:
    other = _write(tmp_path, "other.csv", "id,output\na,1\nb,2\nc,3\nd,4\n")
    error = _error(main_csv, candidate_files=[CandidateFile("other", str(other))])
    assert "other.csv, row 4: id 'd' is not a case of small.csv" in str(error) and error.line == 4


def test_candidate_file_without_an_output_column_is_refused(tmp_path: Path, main_csv: Path) -> None:
    other = _write(tmp_path, "other.csv", "id,answer\na,1\nb,2\nc,3\n")
    assert "other.csv has no output column" in str(_error(main_csv, candidate_files=[CandidateFile("o", str(other))]))


def test_candidate_file_with_a_different_input_for_an_id_is_refused(tmp_path: Path, main_csv: Path) -> None:
    other = _write(tmp_path, "other.csv", "id,input.q,output\na,first?,1\nb,third?,2\nc,second?,3\n")
    error = _error(main_csv, candidate_files=[CandidateFile("other", str(other))])
    assert "other.csv, row 2: case 'b' has a different input than in small.csv" in str(error)
    assert "check that the ids match the right rows" in str(error) and error.line == 2


@pytest.mark.parametrize(
    ("name", "words"),
    [
        ("small", "the candidate name 'small' is already used"),
        ("  ", "name the candidate whose outputs this file holds"),
    ],
)
def test_candidate_names_must_be_given_and_new(tmp_path: Path, main_csv: Path, name: str, words: str) -> None:
    other = _write(tmp_path, "other.csv", "id,output\na,1\nb,2\nc,3\n")
    assert words in str(_error(main_csv, candidate_files=[CandidateFile(name, str(other))]))


def test_two_candidate_files_may_not_share_a_name(tmp_path: Path, main_csv: Path) -> None:
    other = _write(tmp_path, "other.csv", "id,output\na,1\nb,2\nc,3\n")
    files = [CandidateFile("big", str(other)), CandidateFile("big", str(other))]
    assert "the candidate name 'big' is already used" in str(_error(main_csv, candidate_files=files))


def test_unreadable_candidate_file_is_named(tmp_path: Path, main_csv: Path) -> None:
    other = tmp_path / "other.csv"
    other.write_bytes("id,output\na,caf\u00e9\n".encode("latin-1"))
    message = str(_error(main_csv, candidate_files=[CandidateFile("other", str(other))]))
    assert "other.csv is not UTF-8 text" in message
    missing = str(_error(main_csv, candidate_files=[CandidateFile("gone", str(tmp_path / "gone.csv"))]))
    assert "gone.csv was not found" in missing


# Mixed types in a role column


def test_measurement_column_mixing_numbers_and_text_is_refused_as_a_whole(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        "cases.jsonl",
        [
            {"input": {"q": 1}, "output": 1, "observation": {"latency_ms": 850}},
            {"input": {"q": 2}, "output": 2, "observation": {"latency_ms": "900"}},
        ],
    )
    error = _error(path, roles={})
    assert "cases.jsonl: the measurement column 'observation.latency_ms' mixes numbers and text" in str(error)
    assert "(line 1 has the number 850, line 2 has the text '900')" in str(error)
    assert (error.line, error.column) == (2, "observation.latency_ms")


def test_whole_input_column_mixing_objects_and_text_names_the_line(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, "cases.jsonl", [{"input": {"q": 1}, "output": 1}, {"input": "two", "output": 2}])
    error = _error(path)
    assert "cases.jsonl, line 2: \"input\" is the text 'two', not an object" in str(error) and error.line == 2
    table_error = _error(path, roles={})
    assert "column 'input', line 2: the column holds the whole input but this cell is the text 'two'" in str(
        table_error
    )
    assert "give the column a field name" in str(table_error)


def test_id_column_holding_objects_or_fractions_is_refused(tmp_path: Path) -> None:
    records = [{"input": {}, "output": 1, "id": "a"}, {"input": {}, "output": 2, "id": 2.5}]
    path = _jsonl(tmp_path, "cases.jsonl", records)
    assert "line 2: id is the number 2.5. Write the id as text or a whole number." in str(_error(path))
    parquet = tmp_path / "cases.parquet"
    pd.DataFrame({"input.q": ["x", "y"], "output": ["a", "b"], "meta": [{"k": 1}, {"k": 2}]}).to_parquet(parquet)
    error = _error(parquet, roles={"meta": (Role.SPLIT, "")})
    assert "column 'meta', row 1: split is an object. Write the split as text or a whole number." in str(error)


def test_input_fields_may_mix_kinds_as_written(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        "cases.jsonl",
        [
            {"id": 1, "input": {"age": 5}, "output": 1},
            {"id": "b", "input": {"age": "five"}, "output": {"x": 1}},
        ],
    )
    for dataset in (load_dataset(path), load_dataset(path, roles={})):
        assert [case.input["age"] for case in dataset.cases] == [5, "five"]
        assert [case.id for case in dataset.cases] == ["1", "b"]


# Wide files


def test_file_with_hundreds_of_columns_loads(tmp_path: Path) -> None:
    header = ["id", "input.q", "output", *[f"extra{i}" for i in range(400)]]
    path = _write(tmp_path, "wide.csv", ",".join(header) + "\n" + ",".join(["a", "x", "y", *["0"] * 400]) + "\n")
    assert len(read_table(path).columns) == 403
    assert load_dataset(path).cases[0].input == {"q": "x"}


def test_jsonl_with_too_many_keys_is_refused_before_the_table_is_built(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(datasets.disk, "MAX_COLUMNS", 10)
    path = _jsonl(
        tmp_path, "cases.jsonl", [{"input": {f"k{line}_{i}": i for i in range(4)}, "output": 1} for line in range(5)]
    )
    # Each line adds 4 keys: the third line passes the limit (13 columns), before all 21 are collected.
    with pytest.raises(DatasetError, match=r"cases.jsonl has 13 columns; at most 10 are supported"):
        read_table(path)
