"""The Data page's role editors as data (issue 23 item 5): a candidate file's editor starts from the roles loading
would give its columns, and what it changes is what the file's ``roles`` keep."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from skynet_core.datasets import CandidateFile, Role, candidate_file_roles, load_dataset, read_table
from skynet_core.views.data.role_editor import changed_roles, editor_rows, with_default_fields
from tests.review_data import large_csv, reviews_csv

COLUMNS = ["id", "out_large", "latency_large_ms", "cost_large_usd"]


def test_a_candidate_files_columns_named_for_it_start_as_its_output_latency_and_cost() -> None:
    roles = candidate_file_roles(COLUMNS, "large")
    assert roles == {
        "id": (Role.ID, ""),
        "out_large": (Role.CANDIDATE_OUTPUT, "large"),
        "latency_large_ms": (Role.CANDIDATE_LATENCY, "large"),
        "cost_large_usd": (Role.CANDIDATE_COST, "large"),
    }
    assert candidate_file_roles(COLUMNS, "big")["out_large"] == (Role.IGNORED, "")  # named for another candidate


def test_a_candidate_file_takes_the_roles_set_by_hand_on_the_main_file() -> None:
    main = {"out_large": (Role.OUTPUT, ""), "not_here": (Role.INPUT, "x")}
    roles = candidate_file_roles(COLUMNS, "big", main)
    assert roles["out_large"] == (Role.OUTPUT, "") and "not_here" not in roles


def choose(rows: pd.DataFrame, column: str, role: str) -> pd.DataFrame:
    edited = rows.copy()
    edited.loc[edited["column"] == column, "role"] = role
    return edited


def test_what_a_candidate_files_editor_changes_loads_that_file(tmp_path: Path) -> None:
    main, large = reviews_csv(tmp_path), large_csv(tmp_path)
    frame = read_table(str(large))
    start = candidate_file_roles(list(frame.columns), "big")
    edited = choose(editor_rows(frame, start), "out_large", "output of a candidate")
    edited = choose(edited, "latency_large_ms", "latency_ms of a candidate")
    filled = with_default_fields(edited)
    assert filled.set_index("column")["field"]["out_large"] == "large"  # the name the column gives, not a blank
    roles = changed_roles(filled, list(frame.columns), start)
    assert roles == {
        "out_large": (Role.CANDIDATE_OUTPUT, "large"),
        "latency_large_ms": (Role.CANDIDATE_LATENCY, "large"),
    }
    data = load_dataset(str(main), candidate_files=[CandidateFile("big", str(large), roles)], main_candidate="small")
    assert data.candidates == ["small", "big"]
    assert {case.observation.latency_ms for case in data.for_candidate("big")} == {900.0 + 10 * n for n in range(1, 41)}
    assert changed_roles(editor_rows(frame, start), list(frame.columns), start) is None  # nothing changed: None
