"""The compact JSON Lines reader for scoring very many cases: the same cases as load_dataset, or none."""

from __future__ import annotations

import codecs
import json
from pathlib import Path

import pytest

from skynet_core.datasets import EXAMPLE_PATH, CaseLines, load_dataset, read_case_lines


def write_lines(path: Path, objects: list[object], *, bom: bool = False) -> Path:
    text = "\n".join(json.dumps(obj) if not isinstance(obj, str) else obj for obj in objects) + "\n"
    path.write_bytes((codecs.BOM_UTF8 if bom else b"") + text.encode())
    return path


def case(n: int, **more: object) -> dict[str, object]:
    return {"input": {"q": f"question {n}"}, "output": n % 3, "expected": {"label": n % 2} if n % 5 else None, **more}


def test_case_lines_are_the_cases_load_dataset_reads(tmp_path):
    objects: list[object] = [case(n, id=n if n % 2 else f"c{n}") for n in range(400)]
    objects[7] = case(7, observation={"latency_ms": 850, "cost_usd": None})
    objects[8] = case(8, id="  spaced  ")
    objects[9] = case(9, id="")  # an empty id is the line number
    objects.insert(20, "   ")  # a blank line still counts for line numbers and ids
    path = write_lines(tmp_path / "cases.jsonl", objects, bom=True)
    lines = read_case_lines(path)
    assert isinstance(lines, CaseLines)
    assert list(lines) == load_dataset(path).cases
    assert lines[5:9] == load_dataset(path).cases[5:9]
    assert lines.split_counts() == {"train": 240, "val": 80, "test": 80}


def test_a_split_column_is_kept_and_a_split_can_be_taken(tmp_path):
    path = write_lines(tmp_path / "cases.jsonl", [case(n, split="test" if n % 4 == 0 else "train") for n in range(40)])
    lines = read_case_lines(path)
    assert lines is not None
    expected = [item for item in load_dataset(path).cases if item.split == "test"]
    assert list(lines.in_split("test")) == expected
    assert len(lines.in_split("val")) == 0


@pytest.mark.parametrize(
    "objects",
    [
        [case(1), '{"input": '],  # not JSON
        [case(1, id="a"), case(2, id="a")],  # a duplicate id
        [case(1), {"output": 1}],  # no input
        [case(1, split="train"), case(2)],  # splits for some lines only
        [case(1, candidate="a"), case(1, candidate="b")],  # candidates: load_dataset's job
        [],  # no cases
    ],
)
def test_anything_unusual_is_left_to_load_dataset(tmp_path, objects):
    assert read_case_lines(write_lines(tmp_path / "cases.jsonl", objects)) is None


def test_other_files_are_left_to_load_dataset(tmp_path):
    bad = tmp_path / "latin1.jsonl"
    bad.write_bytes(b'{"input": {"q": "caf\xe9"}, "output": 1}\n')
    assert read_case_lines(bad) is None
    assert read_case_lines(tmp_path / "missing.jsonl") is None
    assert read_case_lines(EXAMPLE_PATH) is None  # three candidates
