"""Issue 23 item 5 on the Data page, through AppTest: an A/B export is used as one candidate per output column, a
candidate file has a role editor of its own, what it sets loads the file, and candidates with identical outputs are
warned about."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from skynet_core.datasets import CandidateFile
from skynet_core.store import Store
from skynet_core.workspace import SETTING_DATASET_CANDIDATE_FILES, Workspace
from tests.app.harness import button, open_app, open_file
from tests.review_data import ab_csv, large_csv, review_rows, reviews_csv, write_csv


def add_candidate(at: AppTest, name: str, path: Path) -> None:
    at.text_input(key="data.new_name").input(name)
    at.text_input(key="data.new_path").input(str(path))
    button(at, "Add candidate").click()
    at.run()
    assert not at.exception, at.exception


def roles_of(at: AppTest, index: int) -> list[tuple[str, str, str]]:
    frame = at.data_editor[index].value
    return list(zip(frame["column"], frame["role"], frame["field"], strict=True))


def test_an_ab_export_is_used_as_one_candidate_per_output_column(data_dir: Path, tmp_path: Path) -> None:
    rows = [{**row, "input.text": row["text"], "expected.label": row["label"]} for row in review_rows()]
    columns = ["id", "input.text", "expected.label", "out_small", "out_large", "latency_large_ms", "cost_large_usd"]
    path = write_csv(tmp_path / "ab.csv", rows, columns)
    at = open_app("data")
    open_file(at, path)
    button(at, "Use this dataset").click()
    at.run()
    assert [item.value for item in at.main.success] == ["Using ab.csv: 40 cases × 2 candidates."]
    assert list(Workspace(data_dir).data.in_use().data.candidates) == ["small", "large"]


def test_a_candidate_file_gets_a_role_editor_whose_roles_load_it(data_dir: Path, tmp_path: Path) -> None:
    main, large = reviews_csv(tmp_path), large_csv(tmp_path)
    at = open_app("data")
    open_file(at, main)
    add_candidate(at, "big", large)  # its columns are named for "large": nothing is its output yet
    headings = [item.value for item in at.main.markdown]
    assert "**Column roles of reviews.csv**" in headings and "**Column roles of large.csv**" in headings
    assert roles_of(at, 1)[1] == ("out_large", "ignored", "")
    button(at, "Use this dataset").click()
    at.run()
    assert any("no output column" in item.value for item in at.main.error)

    editor = at.data_editor[1].key
    edits = {1: {"role": "output of a candidate"}}
    at.session_state[editor] = {"edited_rows": edits, "added_rows": [], "deleted_rows": []}
    at.run()
    assert roles_of(at, 1)[1] == ("out_large", "output of a candidate", "large")  # the field named, never blank
    button(at, "Use this dataset").click()
    at.run()
    assert [item.value for item in at.main.success] == ["Using reviews.csv: 40 cases × 2 candidates."]
    stored = Store(data_dir).get(SETTING_DATASET_CANDIDATE_FILES)
    assert stored == [{"name": "big", "path": str(large), "roles": {"out_large": ["candidate_output", "large"]}}]


def test_candidates_with_identical_outputs_are_warned_about(data_dir: Path, tmp_path: Path) -> None:
    main, copy = reviews_csv(tmp_path), reviews_csv(tmp_path, "copy.csv")
    Workspace(data_dir).data.save_choice(str(main), candidate_files=[CandidateFile("large", str(copy))])
    at = open_app("data")
    assert any("have identical outputs on every case" in item.value for item in at.main.warning)


def test_outputs_per_candidate_need_no_name_for_the_main_file(data_dir: Path, tmp_path: Path) -> None:
    main, large = ab_csv(tmp_path), large_csv(tmp_path, "more.csv")
    at = open_app("data")
    open_file(at, main)
    add_candidate(at, "more", large)
    assert not any(item.label.startswith("Candidate name of") for item in at.text_input)
