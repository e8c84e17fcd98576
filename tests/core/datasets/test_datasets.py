"""Datasets: loading each format, role inference, every error a user can hit, splits, sampling,
and the bundled example with its metrics."""

from __future__ import annotations

import ast
import hashlib
import importlib.util
import json
import math
import numbers
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from skynet_core import datasets
from skynet_core.cases import Case, Observation
from skynet_core.datasets import (
    EXAMPLE_PATH,
    DatasetError,
    Role,
    assign_splits,
    cases_from_frame,
    infer_roles,
    load_dataset,
    load_example,
    read_table,
    sample_for_check,
    split_plan,
)
from skynet_core.examples import EXAMPLE_METRICS


def _jsonl(tmp_path: Path, records: list[Any], name: str = "cases.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path


def _csv(tmp_path: Path, text: str, name: str = "cases.csv") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def _case(number: int, **extra: Any) -> dict[str, Any]:
    return {"input": {"question": f"q{number}"}, "output": f"a{number}", "expected": {"answer": f"a{number}"}, **extra}


def _error(path: Path, **kwargs: Any) -> str:
    with pytest.raises(DatasetError) as caught:
        load_dataset(path, **kwargs)
    return str(caught.value)


# Loading paths


def test_jsonl_keeps_every_field_as_written(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        [
            {
                "id": "a",
                "input": {"question": "2+2?", "context": {"lang": "en"}},
                "output": {"answer": 4},
                "expected": {"answer": 4},
                "split": "test",
                "observation": {"latency_ms": 850, "cost_usd": 0.002, "tokens": 12},
            },
            {
                "id": 7,
                "input": {"question": "capital of France?"},
                "output": "Paris",
                "expected": None,
                "split": "train",
            },
            {"input": {"question": "hi"}, "output": None, "split": "train"},
        ],
    )
    dataset = load_dataset(path)
    first, second, third = dataset.cases
    assert dataset.name == "cases" and dataset.source == str(path) and dataset.candidates == [""]
    assert first == Case(
        id="a",
        input={"question": "2+2?", "context": {"lang": "en"}},
        output={"answer": 4},
        expected={"answer": 4},
        split="test",
        observation=Observation(latency_ms=850.0, cost_usd=0.002),
    )
    assert (second.id, second.output, second.expected) == ("7", "Paris", None)
    assert (third.id, third.output, third.expected, third.observation) == ("3", None, None, Observation())


def test_json_extension_is_read_as_json_lines(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [_case(1), _case(2)], name="cases.json")
    assert [case.output for case in load_dataset(path).cases] == ["a1", "a2"]


def test_blank_jsonl_lines_are_skipped_but_counted_for_ids(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(_case(1)) + "\n\n" + json.dumps(_case(2)) + "\n", encoding="utf-8")
    assert [case.id for case in load_dataset(path).cases] == ["1", "3"]


def test_utf8_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    path.write_bytes("input.question,output\nCafé?,oui\n".encode("utf-8-sig"))
    assert load_dataset(path).cases[0].input == {"question": "Café?"}


def test_csv_prefixed_columns_become_cases(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        "id,split,input.question,expected.label,output,observation.latency_ms,observation.cost_usd,notes\n"
        "q1,train,Where is my order?,shipping,shipping,850,0.002,first\n"
        "q2,val,Charged twice,billing,refund,,,second\n",
    )
    dataset = load_dataset(path)
    first, second = dataset.cases
    assert first == Case(
        id="q1",
        input={"question": "Where is my order?"},
        output="shipping",
        expected={"label": "shipping"},
        split="train",
        observation=Observation(latency_ms=850.0, cost_usd=0.002),
    )
    assert second.observation == Observation() and second.split == "val"
    assert dataset.splits_from_column


def test_csv_cells_stay_text_so_codes_keep_leading_zeros(tmp_path: Path) -> None:
    path = _csv(tmp_path, "input.zip,expected.count,output\n02134,3,3\n")
    case = load_dataset(path).cases[0]
    assert case.input == {"zip": "02134"} and case.expected == {"count": "3"} and case.output == "3"


def test_csv_json_cells_become_objects_and_lists(tmp_path: Path) -> None:
    path = _csv(
        tmp_path,
        'input.meta,expected.fields,output.tags,output.note\n"{""lang"": ""en""}","[""label"", ""reply""]",'
        '"[1, 2]","{not json"\n',
    )
    case = load_dataset(path).cases[0]
    assert case.input == {"meta": {"lang": "en"}}
    assert case.expected == {"fields": ["label", "reply"]}
    assert case.output == {"tags": [1, 2], "note": "{not json"}


def test_csv_whole_output_column_is_passed_exactly_as_written(tmp_path: Path) -> None:
    path = _csv(tmp_path, 'input.q,output\nx,"{""label"": ""billing""}"\ny,\n')
    first, second = load_dataset(path).cases
    assert first.output == '{"label": "billing"}'
    assert second.output == ""


def test_csv_row_with_all_expected_cells_empty_has_no_expected(tmp_path: Path) -> None:
    path = _csv(tmp_path, "input.q,expected.label,expected.priority,output\nx,billing,,a\ny,,,b\n")
    first, second = load_dataset(path).cases
    assert first.expected == {"label": "billing", "priority": None}
    assert second.expected is None


def test_whole_object_columns_hold_json_objects(tmp_path: Path) -> None:
    path = _csv(tmp_path, 'input,expected,output\n"{""q"": 1}","{""label"": ""x""}",y\n"{""q"": 2}",,z\n')
    first, second = load_dataset(path).cases
    assert (first.input, first.expected) == ({"q": 1}, {"label": "x"})
    assert (second.input, second.expected) == ({"q": 2}, None)


def test_parquet_keeps_native_types(tmp_path: Path) -> None:
    path = tmp_path / "cases.parquet"
    pd.DataFrame(
        {
            "id": [1, 2],
            "input.question": ["a", "b"],
            "expected.fields": [["label"], ["label", "reply"]],
            "output": ['{"label": "x"}', "plain"],
            "observation.latency_ms": [120.5, None],
        }
    ).to_parquet(path)
    first, second = load_dataset(path).cases
    assert first.id == "1" and first.expected == {"fields": ["label"]} and first.output == '{"label": "x"}'
    assert second.expected == {"fields": ["label", "reply"]}
    assert (first.observation.latency_ms, second.observation.latency_ms) == (120.5, None)


def test_roles_override_inference_for_unprefixed_columns(tmp_path: Path) -> None:
    path = _csv(tmp_path, "question,gold,prediction,id\nWhere?,shipping,refund,k1\n")
    roles = {
        "question": (Role.INPUT, "question"),
        "gold": (Role.EXPECTED, "label"),
        "prediction": (Role.OUTPUT, ""),
    }
    case = load_dataset(path, roles=roles).cases[0]
    assert case == Case(id="k1", input={"question": "Where?"}, output="refund", expected={"label": "shipping"})


def test_jsonl_with_roles_goes_through_the_table(tmp_path: Path) -> None:
    path = _jsonl(tmp_path, [{"input": {"q": "x"}, "answer": "y", "output": "ignored"}])
    case = load_dataset(path, roles={"answer": (Role.OUTPUT, ""), "output": (Role.IGNORED, "")}).cases[0]
    assert (case.id, case.input, case.output) == ("1", {"q": "x"}, "y")


def test_read_table_flattens_jsonl_with_role_prefixes(tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path,
        [
            {"input": {"q": "x"}, "output": {"a": 1}, "expected": None, "observation": {"latency_ms": 5}},
            {"input": {"q": "y"}, "output": "text", "expected": {"label": "b"}},
        ],
    )
    frame = read_table(path)
    assert list(frame.columns) == ["input.q", "output", "observation.latency_ms", "expected.label"]
    assert frame.index.name == "line" and list(frame.index) == [1, 2]
    assert frame["output"].tolist() == [{"a": 1}, "text"]


def test_read_table_numbers_csv_rows_from_one_and_keeps_text(tmp_path: Path) -> None:
    frame = read_table(_csv(tmp_path, "input.q,output\n007,\n"))
    assert frame.index.name == "row" and list(frame.index) == [1]
    assert frame.iloc[0].tolist() == ["007", ""]


def test_cases_from_frame_infers_roles_when_none_are_given() -> None:
    frame = pd.DataFrame({"input.q": ["a", "b"], "output": ["x", "y"]})
    dataset = cases_from_frame(frame, None, "upload.parquet")
    assert [case.id for case in dataset.cases] == ["1", "2"] and dataset.name == "upload"


# Role inference


@pytest.mark.parametrize(
    ("column", "role", "field"),
    [
        ("input.question", Role.INPUT, "question"),
        ("Input.Question", Role.INPUT, "Question"),
        ("input.a.b", Role.INPUT, "a.b"),
        ("expected.label", Role.EXPECTED, "label"),
        ("output", Role.OUTPUT, ""),
        ("output.label", Role.OUTPUT, "label"),
        ("observation.latency_ms", Role.OBSERVATION, "latency_ms"),
        ("observation.cost_usd", Role.OBSERVATION, "cost_usd"),
        ("observation.tokens", Role.IGNORED, ""),
        ("input", Role.INPUT, ""),
        ("id", Role.ID, ""),
        (" ID ", Role.ID, ""),
        ("split", Role.SPLIT, ""),
        ("candidate", Role.CANDIDATE, ""),
        ("question", Role.INPUT, "question"),
        ("text", Role.IGNORED, ""),
        ("input.", Role.IGNORED, ""),
    ],
)
def test_infer_roles_reads_prefixes_and_names(column: str, role: Role, field: str) -> None:
    assert infer_roles([column]) == {column: (role, field)}


# Errors a user can hit


def test_missing_file_names_the_path(tmp_path: Path) -> None:
    message = _error(tmp_path / "nope.jsonl")
    assert "nope.jsonl was not found" in message and "Check the path" in message


def test_folder_instead_of_file_is_refused(tmp_path: Path) -> None:
    folder = tmp_path / "cases.csv"
    folder.mkdir()
    assert "is a folder, not a case file" in _error(folder)


def test_unsupported_extension_lists_the_formats(tmp_path: Path) -> None:
    path = tmp_path / "cases.xlsx"
    path.write_bytes(b"x")
    message = _error(path)
    assert "cases.xlsx: .xlsx files are not supported" in message and ".jsonl" in message and ".parquet" in message


def test_non_utf8_file_names_the_byte_offset_line_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "cases.csv"
    path.write_bytes(b"input.q,output\nok,fine\n" + "café,x\n".encode("latin-1"))
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    message = str(caught.value)
    assert "cases.csv is not UTF-8" in message and "byte 0xE9 at byte offset 26 (line 3)" in message
    assert "Save it as UTF-8" in message and caught.value.line == 3


@pytest.mark.parametrize("content", [b"", b"\n\n  \n"])
def test_empty_file_says_add_a_case(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_bytes(content)
    message = _error(path)
    assert "cases.jsonl is empty" in message and "Add at least one case" in message


REFUSED_TABLES = {  # what the file holds, and what its refusal says
    "header_but_no_rows": ("input.q,output\n", ("has column names but no rows",)),
    "no_input_column": ("text,output\nx,y\n", ("cases.csv has no input column", "input.question")),
    "no_output_column": ("input.q,answer\nx,y\n", ("cases.csv has no output column", "output.<field>")),
    "whole_output_and_its_fields": (
        "input.q,output,output.label\nx,y,z\n",
        ("'output' holds the whole output but 'output.label'",),
    ),
    "id_twice": ("id,input.q,output\n5,x,y\n6,x,y\n5,x,y\n", ("cases.csv: id '5' appears twice (rows 1 and 3)",)),
    "column_name_twice": (
        "input.q,output,input.q\nx,y,z\n",
        ("the column name 'input.q' appears twice (columns 1 and 3)", "Rename one"),
    ),
    "ragged_rows": ("input.q,output\nx,y\na,b,c,d\n", ("could not be read as CSV", "as many fields as the header")),
    "whole_input_cell_not_an_object": (
        "input,output\nplain text,y\n",
        ("column 'input', row 1: the column holds the whole input but this cell is the text",),
    ),
}


@pytest.mark.parametrize(("table", "words"), REFUSED_TABLES.values(), ids=REFUSED_TABLES.keys())
def test_a_table_that_cannot_be_read_as_cases_says_what_is_wrong_and_how_to_fix_it(
    tmp_path: Path, table: str, words: tuple[str, ...]
) -> None:
    message = _error(_csv(tmp_path, table))
    assert [word for word in words if word not in message] == [], message


def test_invalid_json_line_names_the_line_and_common_causes(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text(json.dumps(_case(1)) + '\n{"input": {"q": 1}, "output": 2,}\n', encoding="utf-8")
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    message = str(caught.value)
    assert "cases.jsonl, line 2 is not valid JSON" in message and "trailing comma" in message
    assert caught.value.line == 2


def test_nan_in_jsonl_is_not_json(tmp_path: Path) -> None:
    path = tmp_path / "cases.jsonl"
    path.write_text('{"input": {"q": 1}, "output": NaN}\n', encoding="utf-8")
    message = _error(path)
    assert "line 1 is not valid JSON" in message and "NaN is not allowed" in message


def test_json_array_file_is_told_to_use_one_object_per_line(tmp_path: Path) -> None:
    single = _jsonl(tmp_path, [[_case(1), _case(2)]], name="one.json")
    assert "line 1 is a list, not a JSON object" in _error(single) and "its own line" in _error(single)
    pretty = tmp_path / "pretty.json"
    pretty.write_text(json.dumps([_case(1)], indent=2), encoding="utf-8")
    assert "line 1 is not valid JSON" in _error(pretty) and "its own line" in _error(pretty)


REFUSED_LINES = {  # the lines of the file, and what its refusal says
    "line_not_an_object": ([_case(1), "just text"], ("line 2 is the text 'just text', not a JSON object", '{"input"')),
    "input_not_an_object": (
        [{"input": "What is 2+2?", "output": "4"}],
        ("line 1: \"input\" is the text 'What is 2+2?', not an object", "Write the input fields as an object"),
    ),
    "expected_not_an_object": (
        [{"input": {}, "output": "4", "expected": "4"}],
        ("line 1: \"expected\" is the text '4', not an object", '{"label": "billing"}'),
    ),
    "no_output": ([_case(1), {"input": {"q": 2}}], ('line 2 has no "output"', "Add the output")),
    "id_twice": (
        [_case(1, id="a"), _case(2, id="b"), _case(3, id="a")],
        ("id 'a' appears twice (lines 1 and 3)", "its own id"),
    ),
    "measurement_as_text": (
        [_case(1, observation={"cost_usd": "0.1"})],
        ("observation.cost_usd is the text '0.1', not a number",),
    ),
    "observation_not_an_object": (
        [_case(1, observation=850)],
        ("observation is the number 850, not an object", '"latency_ms": 850'),
    ),
    "id_a_list": ([_case(1, id=["a"])], ("line 1: id is a list. Write the id as text or a whole number.",)),
    "candidate_missing_a_case": (
        [_case(1, id="a", candidate="big"), _case(2, id="b", candidate="big"), _case(1, id="a", candidate="small")],
        ("candidate 'small' has no case with id 'b', which candidate 'big' has (line 2)", "same case ids"),
    ),
    "candidates_differ_on_an_input": (
        [_case(1, candidate="big"), _case(2, candidate="small")],
        ("case '1' has a different input for candidate 'small' (line 2) than for 'big' (line 1)",),
    ),
    "some_lines_without_a_candidate": (
        [_case(1, candidate="big"), _case(1)],
        ("line 2 has no candidate, but other lines do",),
    ),
}


@pytest.mark.parametrize(("records", "words"), REFUSED_LINES.values(), ids=REFUSED_LINES.keys())
def test_jsonl_that_cannot_be_read_as_cases_says_what_is_wrong_and_how_to_fix_it(
    tmp_path: Path, records: list[Any], words: tuple[str, ...]
) -> None:
    message = _error(_jsonl(tmp_path, records))
    assert [word for word in words if word not in message] == [], message


def test_missing_input_names_the_line_and_shows_the_shape(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as caught:
        load_dataset(_jsonl(tmp_path, [_case(1), {"output": "x"}]))
    assert 'cases.jsonl, line 2 has no "input"' in str(caught.value) and '"input": {' in str(caught.value)
    assert caught.value.line == 2


def test_two_columns_for_one_field_are_refused(tmp_path: Path) -> None:
    path = _csv(tmp_path, "input.q,question,output\nx,y,z\n")
    message = _error(path, roles={"question": (Role.INPUT, "q")})
    assert "columns 'input.q' and 'question' are both input field 'q'" in message


def test_role_for_a_column_that_is_not_there_is_refused(tmp_path: Path) -> None:
    message = _error(_csv(tmp_path, "input.q,output\nx,y\n"), roles={"gold": (Role.EXPECTED, "label")})
    assert "cases.csv has no column 'gold'" in message and "input.q, output" in message


def test_observation_text_in_jsonl_is_not_a_number(tmp_path: Path) -> None:
    with pytest.raises(DatasetError) as caught:
        load_dataset(_jsonl(tmp_path, [_case(1, observation={"latency_ms": "fast", "cost_usd": 0.1})]))
    message = str(caught.value)
    assert "line 1: observation.latency_ms is the text 'fast', not a number" in message
    assert "as a number (e.g. 850)" in message and caught.value.line == 1


def test_observation_column_with_text_names_the_column_and_row(tmp_path: Path) -> None:
    path = _csv(tmp_path, "input.q,output,observation.latency_ms\nx,y,850\nx,y,n/a\n")
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    message = str(caught.value)
    assert "cases.csv, column 'observation.latency_ms', row 2" in message and "'n/a', not a number" in message
    assert "leave it empty" in message
    assert (caught.value.column, caught.value.line) == ("observation.latency_ms", 2)


def test_negative_or_boolean_measurements_are_refused(tmp_path: Path) -> None:
    negative = _error(_jsonl(tmp_path, [_case(1, observation={"latency_ms": -5})]))
    assert "observation.latency_ms is -5.0" in negative and "0 or more" in negative
    boolean = _error(_jsonl(tmp_path, [_case(1, observation={"cost_usd": True})], name="b.jsonl"))
    assert "observation.cost_usd is true/false, not a number" in boolean


def test_candidate_with_an_extra_case_is_refused(tmp_path: Path) -> None:
    records = [
        _case(1, id="a", candidate="big"),
        _case(1, id="a", candidate="small"),
        _case(3, id="c", candidate="small"),
    ]
    assert "candidate 'big' has no case with id 'c', which candidate 'small' has (line 3)" in _error(
        _jsonl(tmp_path, records)
    )


def test_over_size_limit_says_the_limit(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert datasets.MAX_FILE_BYTES >= 200_000_000
    monkeypatch.setattr(datasets.disk, "MAX_FILE_BYTES", 2_000_000)
    path = tmp_path / "big.jsonl"
    path.write_bytes(b" " * 2_500_000)
    message = _error(path)
    assert "big.jsonl is 2.5 MB, over the 2 MB limit" in message and "Keep a sample" in message


def test_more_than_a_thousand_columns_is_refused(tmp_path: Path) -> None:
    header = ",".join(["input.q", "output", *[f"extra{i}" for i in range(1000)]])
    message = _error(_csv(tmp_path, header + "\n" + "," * 1001 + "\n"))
    assert "cases.csv has 1,002 columns; at most 1,000 are supported" in message and "Keep only the columns" in message


def test_corrupt_parquet_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "cases.parquet"
    path.write_bytes(b"this is not parquet")
    message = _error(path)
    assert "cases.parquet could not be read as Parquet" in message and "save the cases as CSV" in message


# Ids


def test_ids_default_to_row_numbers(tmp_path: Path) -> None:
    dataset = load_dataset(_csv(tmp_path, "input.q,output\nx,1\ny,2\n"))
    assert [case.id for case in dataset.cases] == ["1", "2"]


def test_candidates_without_ids_line_up_by_order(tmp_path: Path) -> None:
    records = [
        _case(1, candidate="big"),
        _case(2, candidate="big"),
        _case(1, candidate="small"),
        _case(2, candidate="small"),
    ]
    dataset = load_dataset(_jsonl(tmp_path, records))
    assert [(case.candidate, case.id) for case in dataset.cases] == [
        ("big", "1"),
        ("big", "2"),
        ("small", "1"),
        ("small", "2"),
    ]
    assert dataset.candidates == ["big", "small"]
    assert [case.output for case in dataset.for_candidate("small")] == ["a1", "a2"]
    with pytest.raises(ValueError, match="no candidate 'huge'"):
        dataset.for_candidate("huge")


# Splits


@pytest.mark.parametrize(
    ("n", "plan"),
    [
        (0, {"train": 0, "val": 0, "test": 0}),
        (29, {"train": 29, "val": 0, "test": 0}),
        (30, {"train": 24, "val": 6, "test": 0}),
        (79, {"train": 63, "val": 16, "test": 0}),
        (80, {"train": 48, "val": 16, "test": 16}),
        (299, {"train": 179, "val": 60, "test": 60}),
        (300, {"train": 180, "val": 60, "test": 60}),
        (1000, {"train": 600, "val": 200, "test": 200}),
        (5000, {"train": 4300, "val": 200, "test": 500}),
    ],
)
def test_split_plan_follows_the_skynet_planner(n: int, plan: dict[str, int]) -> None:
    assert split_plan(n) == plan
    assert sum(plan.values()) == n


def test_assign_splits_depends_on_ids_not_their_order() -> None:
    ids = [f"case-{i}" for i in range(100)]
    forward = assign_splits(ids)
    assert forward == assign_splits(list(reversed(ids)))
    assert Counter(forward.values()) == Counter({"train": 60, "val": 20, "test": 20})
    # Not simply file order: the first 60 ids are not all train.
    assert {forward[case_id] for case_id in ids[:60]} != {"train"}


def test_planned_splits_are_the_same_for_every_candidate(tmp_path: Path) -> None:
    records = [_case(i, id=f"c{i}", candidate=name) for name in ("a", "b") for i in range(40)]
    dataset = load_dataset(_jsonl(tmp_path, records))
    by_candidate = {name: {case.id: case.split for case in dataset.for_candidate(name)} for name in ("a", "b")}
    assert by_candidate["a"] == by_candidate["b"] == assign_splits([f"c{i}" for i in range(40)])
    assert dataset.split_counts() == split_plan(40) == {"train": 32, "val": 8, "test": 0}
    assert not dataset.splits_from_column
    assert len(dataset.by_split("val")) == 16 and len(dataset.by_split(None)) == 80


def test_split_column_overrides_the_plan(tmp_path: Path) -> None:
    dataset = load_dataset(_csv(tmp_path, "split,input.q,output\ndev,x,1\ntrain,y,2\ndev,z,3\n"))
    assert [case.split for case in dataset.cases] == ["dev", "train", "dev"]
    assert dataset.splits_from_column
    assert dataset.split_counts() == {"train": 1, "dev": 2}


def test_split_column_must_cover_every_row(tmp_path: Path) -> None:
    message = _error(_csv(tmp_path, "split,input.q,output\ntrain,x,1\n,y,2\n"))
    assert "cases.csv, row 2 has no split, but other rows do" in message and "remove all splits" in message


def test_split_column_must_agree_across_candidates(tmp_path: Path) -> None:
    records = [_case(1, candidate="a", split="train"), _case(1, candidate="b", split="test")]
    message = _error(_jsonl(tmp_path, records))
    assert "case '1' is in split 'test' at line 2 but 'train' at line 1" in message


# Sampling


def _cases(n: int, *, unlabelled: set[int] = frozenset()) -> list[Case]:
    return [Case(id=str(i), input={"q": i}, output=i, expected=None if i in unlabelled else {"a": i}) for i in range(n)]


def test_sample_is_deterministic_and_independent_of_order() -> None:
    cases = _cases(50)
    sample = sample_for_check(cases)
    assert len(sample) == 3
    assert sample == sample_for_check(list(reversed(cases)))
    assert [case.id for case in sample] != ["0", "1", "2"]


def test_sample_takes_every_case_of_a_small_dataset() -> None:
    assert sorted(case.id for case in sample_for_check(_cases(2))) == ["0", "1"]
    assert sample_for_check([]) == []
    assert len(sample_for_check(_cases(10), k=1)) == 1


def test_sample_includes_cases_with_and_without_expected_when_both_exist() -> None:
    for missing in range(20):
        sample = sample_for_check(_cases(20, unlabelled={missing}))
        assert any(case.expected is None for case in sample), missing
        assert any(case.expected is not None for case in sample), missing
    mostly_unlabelled = sample_for_check(_cases(20, unlabelled=set(range(19))))
    assert any(case.expected is not None for case in mostly_unlabelled)


def test_sample_of_only_labelled_cases_is_plain_hash_order() -> None:
    sample = sample_for_check(_cases(30), k=5)
    assert len(sample) == 5 and all(case.expected is not None for case in sample)


# The bundled example


def test_example_has_three_candidates_of_72_cases_that_line_up() -> None:
    dataset = load_example()
    assert dataset.source == "example" and dataset.candidates == ["fast-small", "balanced", "large-careful"]
    assert len(dataset.cases) == 216
    per_candidate = [dataset.for_candidate(name) for name in dataset.candidates]
    assert all(len(cases) == 72 for cases in per_candidate)
    ids = [sorted(case.id for case in cases) for cases in per_candidate]
    assert ids[0] == ids[1] == ids[2]
    assert dataset.split_counts() == split_plan(72)


def test_example_has_unlabelled_cases_and_gaps_in_measurements() -> None:
    cases = load_example().for_candidate("balanced")
    unlabelled = [case for case in cases if case.expected is None]
    assert 8 <= len(unlabelled) <= 12
    labelled = [case.expected for case in cases if case.expected is not None]
    assert all(expected["fields"] == ["label", "priority", "reply"] for expected in labelled)
    all_cases = load_example().cases
    assert any(case.observation.latency_ms is None for case in all_cases)
    assert any(case.observation.cost_usd is None for case in all_cases)


def test_example_candidates_trade_accuracy_for_speed_and_cost() -> None:
    dataset = load_example()

    def label(output: str) -> str | None:
        try:
            data = json.loads(output)
        except ValueError:
            return None
        return data.get("label") if isinstance(data, dict) else None

    accuracy, latency, cost = {}, {}, {}
    for name in dataset.candidates:
        cases = dataset.for_candidate(name)
        labelled = [case for case in cases if case.expected is not None]
        accuracy[name] = sum(label(case.output) == case.expected["label"] for case in labelled) / len(labelled)
        latencies = [case.observation.latency_ms for case in cases if case.observation.latency_ms is not None]
        costs = [case.observation.cost_usd for case in cases if case.observation.cost_usd is not None]
        latency[name], cost[name] = sum(latencies) / len(latencies), sum(costs) / len(costs)
    assert accuracy["fast-small"] < accuracy["balanced"] < accuracy["large-careful"]
    assert latency["fast-small"] < latency["balanced"] < latency["large-careful"]
    assert cost["fast-small"] < cost["balanced"] < cost["large-careful"]


def _load_script(name: str) -> Any:
    """A script from scripts/ as a module (scripts are not a package)."""
    path = Path(__file__).resolve().parents[3] / "scripts" / f"{name}.py"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up while the class is built
    spec.loader.exec_module(module)
    return module


def test_example_file_is_what_make_tickets_writes(tmp_path: Path) -> None:
    make_tickets = _load_script("make_tickets")
    regenerated = tmp_path / "tickets.jsonl"
    make_tickets.write(regenerated)
    assert regenerated.read_bytes() == EXAMPLE_PATH.read_bytes()


# The example metrics


def _assert_valid_pair(result: Any) -> None:
    assert isinstance(result, (tuple, list)) and len(result) == 2, result
    value, side = result
    assert isinstance(value, numbers.Real) and not isinstance(value, bool) and math.isfinite(value), result
    assert isinstance(side, dict) and isinstance(side.get("feedback"), str) and side["feedback"], result
    for name, named in side.get("scores", {}).items():
        assert isinstance(name, str) and name, result
        assert isinstance(named, numbers.Real) and not isinstance(named, bool) and math.isfinite(named), result


def _score_function(title: str) -> Any:
    spec = importlib.util.spec_from_file_location(
        f"example_metric_{EXAMPLE_METRICS[title].stem}", EXAMPLE_METRICS[title]
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.score


def test_example_metrics_map_titles_to_existing_files() -> None:
    assert list(EXAMPLE_METRICS) == [
        "Exact match",
        "Several checks (JSON)",
        "Model as judge",
        "Accuracy, speed and cost",
    ]
    for path in EXAMPLE_METRICS.values():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        score = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "score")
        assert [arg.arg for arg in score.args.args] == ["input", "output", "expected"]


@pytest.mark.parametrize("title", ["Exact match", "Several checks (JSON)"])
def test_example_metric_returns_a_valid_pair_on_every_example_case(title: str) -> None:
    score = _score_function(title)
    for case in load_example().cases:
        _assert_valid_pair(score(case.input, case.output, case.expected))


def test_exact_match_feedback_says_expected_and_got() -> None:
    score = _score_function("Exact match")
    value, side = score({}, '{"label": "other"}', {"label": "billing"})
    assert value == 0.0 and side["feedback"] == "Expected 'billing', got 'other'."
    value, side = score({}, '{"label": "x",}', {"label": "x"})
    assert value == 0.0 and "not valid JSON" in side["feedback"]
    value, side = score({}, '{"label": "x"}', None)
    assert value == 1.0 and "no expected label" in side["feedback"]


def test_json_checks_reports_missing_fields_and_format() -> None:
    score = _score_function("Several checks (JSON)")
    value, side = score({}, '{"label": "x"}', {"fields": ["label", "priority", "reply"]})
    assert value == pytest.approx(0.5 + 0.5 / 3)
    assert side["feedback"] == "Missing fields: priority, reply." and side["scores"]["format"] == 1.0
    value, side = score({}, "```json\n{}\n```", None)
    assert value == 0.0 and side["scores"] == {"format": 0.0, "fields": 0.0}


def _sample_by_full_sort(cases: list[Case], k: int = 3) -> list[Case]:
    """Contract Part B rule 7 read literally: sort every case by SHA-256 of its id, take the first k, then swap the
    last pick for the first case of a missing kind (with or without ``expected``)."""
    ordered = sorted(cases, key=lambda case: (hashlib.sha256(case.id.encode()).hexdigest(), case.id, case.candidate))
    picked = ordered[:k]
    if len(picked) >= 2:
        for labelled in (True, False):
            if not any((case.expected is not None) == labelled for case in picked):
                missing = next((case for case in ordered if (case.expected is not None) == labelled), None)
                if missing is not None:
                    picked[-1] = missing
    return picked


@pytest.mark.parametrize("seed", range(40))
def test_sample_is_the_first_cases_of_a_full_sort_by_id_hash(seed: int) -> None:
    rng = random.Random(seed)
    n = rng.randint(0, 60)
    unlabelled = {i for i in range(n) if rng.random() < rng.choice((0.0, 0.05, 0.5, 0.95, 1.0))}
    cases = _cases(n, unlabelled=unlabelled)
    cases += [Case(id=case.id, input=case.input, output=0, expected=case.expected, candidate="b") for case in cases]
    rng.shuffle(cases)
    for k in (0, 1, 2, 3, 5):
        assert sample_for_check(cases, k=k) == _sample_by_full_sort(cases, k), (seed, k)


def test_a_dataset_keeps_its_candidate_lists_split_counts_and_check_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    """A script run asks for these several times, and a dataset never changes once loaded: on 900,000 cases each
    was a pass over every case (the check's sample hashed every id), 13 s per run of the Author page."""
    from skynet_core.datasets import splits

    data = load_example()
    hashed: list[str] = []
    real = splits._stable_digest
    monkeypatch.setattr(splits, "_stable_digest", lambda text: hashed.append(text) or real(text))
    train = [case for case in data.for_candidate("balanced") if case.split == "train"]
    assert data.check_sample("balanced", "train", 3) == sample_for_check(train)
    asked = len(hashed)
    assert asked >= len(train)  # the dataset's sample and the test's own
    assert data.check_sample("balanced", "train", 3) == sample_for_check(train)
    assert len(hashed) == asked + asked // 2  # only the test's own call hashed again
    hashed.clear()
    data.check_sample("balanced", None, 3)
    assert len(hashed) >= 72
    hashed.clear()
    data.check_sample("balanced", None, 3)
    assert hashed == []

    mine = data.for_candidate("fast-small")
    mine.clear()  # a caller's copy: the dataset's own list is untouched
    assert len(data.for_candidate("fast-small")) == 72
    counts = data.split_counts()
    counts["train"] = 0
    assert data.split_counts() == split_plan(72)
