"""Item 7 of issue 23: the app and the command line check the same sampled cases of the same file and candidate."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skynet_core.cli import run
from skynet_core.datasets import CandidateFile
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobBoard
from tests.review_data import LABEL_METRIC, review_rows, reviews_csv, write_csv


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    monkeypatch.delenv("SKYNET_DATA_ROOTS", raising=False)
    (tmp_path / "metric.py").write_text(LABEL_METRIC)
    reviews_csv(tmp_path)
    rows = [{"id": row["id"], "output": row["out_large"]} for row in review_rows()]
    write_csv(tmp_path / "large.csv", rows, ["id", "output"])
    return tmp_path


def cli_checked_ids(*args: str) -> list[str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["check", *args, "--json"], stdout=out, stderr=err)
    assert code == 0, err.getvalue()
    return [case["id"] for case in json.loads(out.getvalue())["cases"]]


def app_checked_ids(folder: Path, candidate: str) -> list[str]:
    ws = Workspace(folder, jobs=JobBoard(grace_s=60), env={})
    ws.data.save_choice(
        str(folder / "reviews.csv"),
        candidate_files=[CandidateFile("large", str(folder / "large.csv"))],
        main_candidate="small",
    )
    ws.data.choose_cases(candidate, None)
    return ws.data.check_cases().ids


def test_app_and_cli_sample_the_same_cases_of_the_main_file(folder: Path) -> None:
    # The app names the main file's candidate "small" (it has a candidate file beside it); the CLI checks the
    # same file without a candidate name. The cases are the same, so the sample must be too.
    cli = cli_checked_ids(str(folder / "metric.py"), "--data", str(folder / "reviews.csv"))
    assert len(cli) == 3
    assert app_checked_ids(folder, "small") == cli


def test_app_and_cli_sample_the_same_cases_of_a_candidate_file(folder: Path) -> None:
    cli = cli_checked_ids(
        str(folder / "metric.py"),
        "--data",
        str(folder / "reviews.csv"),
        "--candidate-file",
        f"large={folder / 'large.csv'}",
        "--candidate",
        "large",
    )
    assert app_checked_ids(folder, "large") == cli
    # Every candidate is checked on the same cases: a check compares like with like.
    assert app_checked_ids(folder, "small") == cli
