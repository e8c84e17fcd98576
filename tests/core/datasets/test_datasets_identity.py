"""Item 4 of issue 23: a dataset's identity covers every file it is built from, by content."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from skynet_core.datasets import CandidateFile, load_dataset
from skynet_core.provenance import Provenance
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobBoard
from tests.review_data import review_rows, reviews_csv, write_csv


def large_file(path: Path, flip: bool) -> Path:
    rows = [{"id": row["id"], "output": row["out_large"]} for row in review_rows(flip_large=flip)]
    return write_csv(path, rows, ["id", "output"])


@pytest.fixture
def ws_with_candidate_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SKYNET_DATA_ROOTS", raising=False)
    reviews_csv(tmp_path)
    large_file(tmp_path / "large.csv", flip=False)
    workspace = Workspace(tmp_path, jobs=JobBoard(grace_s=60), env={})
    workspace.data.save_choice(
        str(tmp_path / "reviews.csv"),
        candidate_files=[CandidateFile("large", str(tmp_path / "large.csv"))],
        main_candidate="small",
    )
    workspace.data.choose_cases("large", None)
    return workspace


def test_a_candidate_file_changed_in_place_makes_results_out_of_date(
    ws_with_candidate_file: Workspace, tmp_path: Path
) -> None:
    before = ws_with_candidate_file.settings.provenance("def score(i, o, e=None):\n    return 1.0, {'feedback': ''}\n")
    large_file(tmp_path / "changed.csv", flip=True)
    shutil.move(tmp_path / "changed.csv", tmp_path / "large.csv")
    after = ws_with_candidate_file.settings.provenance("def score(i, o, e=None):\n    return 1.0, {'feedback': ''}\n")
    assert before != after  # the check's key: it runs again
    assert before.changes(after) == ["the dataset's files changed"]


def test_a_candidate_file_replaced_by_another_upload_makes_results_out_of_date(
    ws_with_candidate_file: Workspace, tmp_path: Path
) -> None:
    metric = "def score(i, o, e=None):\n    return 1.0, {'feedback': ''}\n"
    before = ws_with_candidate_file.settings.provenance(metric)
    large_file(tmp_path / "large-2.csv", flip=True)
    choice = ws_with_candidate_file.data.choice()
    ws_with_candidate_file.data.save_choice(
        choice.path, candidate_files=[CandidateFile("large", str(tmp_path / "large-2.csv"))], main_candidate="small"
    )
    after = ws_with_candidate_file.settings.provenance(metric)
    assert before.changes(after) == ["the dataset's files changed"]
    # Replacing it with a copy of the same content changes nothing.
    shutil.copy(tmp_path / "large-2.csv", tmp_path / "large-3.csv")
    ws_with_candidate_file.data.save_choice(
        choice.path, candidate_files=[CandidateFile("large", str(tmp_path / "large-3.csv"))], main_candidate="small"
    )
    assert ws_with_candidate_file.settings.provenance(metric).changes(after) == []


def test_identity_follows_content_roles_and_candidate_names(tmp_path: Path) -> None:
    main = reviews_csv(tmp_path)
    large = large_file(tmp_path / "large.csv", flip=False)
    first = load_dataset(main, candidate_files=[CandidateFile("large", str(large))]).identity
    assert first == load_dataset(main, candidate_files=[CandidateFile("large", str(large))]).identity
    assert first != load_dataset(main).identity
    assert first != load_dataset(main, candidate_files=[CandidateFile("big", str(large))]).identity
    large_file(large, flip=True)
    assert first != load_dataset(main, candidate_files=[CandidateFile("large", str(large))]).identity


def test_a_run_saved_before_identities_were_kept_is_not_called_stale() -> None:
    old = Provenance("m", "/data/reviews.csv", "reviews", "large", None)
    new = Provenance("m", "/data/reviews.csv", "reviews", "large", None, dataset_identity="abc")
    assert old.changes(new) == []
    assert Provenance.from_json(new.to_json()) == new
