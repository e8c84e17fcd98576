"""Rater names: any name is a label of the two raters' table, never one of its columns (``id``, ``gap``); the names
the studio gives to other scores are refused, and an import follows Settings' rules for names."""

from __future__ import annotations

import pytest

from skynet_core.human import FILE_RATER, LabelError, labels_from_bytes, rater_agreement, raters_table
from skynet_core.human.tables import RATER_COLUMNS


@pytest.mark.parametrize("names", [("id", "gap"), ("gap", "id"), ("id", "id"), ("case", "first")])
def test_raters_named_like_the_tables_columns_keep_every_column(names: tuple[str, str]) -> None:
    found = rater_agreement({"a": 1.0, "b": 0.0}, {"a": 0.0, "b": 0.0}, names=names)
    table = raters_table(found)
    assert list(table.columns) == list(RATER_COLUMNS)
    assert table.columns.is_unique
    assert table.to_dict("records") == [{"id": "a", "first": 1.0, "second": 0.0, "gap": 1.0}]


@pytest.mark.parametrize(
    ("rater", "words"),
    [
        (FILE_RATER, "name the studio gives"),
        ("the data file's human column", "name the studio gives"),
        ("The Data File's Human Column", "name the studio gives"),
        ("every rater (the mean)", "name the studio gives"),
        ("数据文件的人工评分列", "name the studio gives"),
        ("x" * 101, "at most 100 characters"),
    ],
)
def test_an_import_refuses_a_rater_name_settings_would_refuse_naming_the_line(rater: str, words: str) -> None:
    text = f"id,human,rater\nt1,1,ana\nt2,0,{rater}\n"
    with pytest.raises(LabelError, match=r"labels\.csv, line 3: .*" + words):
        labels_from_bytes(text.encode(), "labels.csv", dataset="d", rater="me")


def test_a_rater_name_with_a_line_break_in_a_jsonl_file_is_refused() -> None:
    text = '{"id": "t1", "human": 1, "rater": "ana\\nbo"}\n'
    with pytest.raises(LabelError, match=r"labels\.jsonl, line 1: .*one line"):
        labels_from_bytes(text.encode(), "labels.jsonl", dataset="d", rater="me")


def test_the_name_given_for_rows_without_a_rater_follows_the_same_rules() -> None:
    with pytest.raises(LabelError, match="name the studio gives"):
        labels_from_bytes(b"id,human\nt1,1\n", "labels.csv", dataset="d", rater=FILE_RATER)
