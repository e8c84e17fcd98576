"""The command line reads the same files and roles as the Data page: --roles FILE.json and --candidate-file."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_OK, EXIT_USAGE, run

METRIC = (
    "def score(input, output, expected=None):\n"
    "    if expected is None:\n"
    "        return 0.5, {'feedback': 'No expected label.'}\n"
    "    ok = output == expected['label']\n"
    "    return (1.0 if ok else 0.0), {'feedback': f\"Expected {expected['label']!r}, got {output!r}.\"}\n"
)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, Path]:
    paths = {
        "metric": tmp_path / "metric.py",
        "cases": tmp_path / "tickets.csv",
        "large": tmp_path / "large.csv",
        "roles": tmp_path / "roles.json",
    }
    paths["metric"].write_text(METRIC)
    paths["cases"].write_text(
        "ticket,message,gold,reply\nT-1,charged twice,billing,billing\n"
        "T-2,where is it,shipping,billing\nT-3,hello,,other\n"
    )
    paths["large"].write_text("ticket,reply\nT-3,other\nT-2,shipping\nT-1,billing\n")
    paths["roles"].write_text(
        json.dumps(
            {
                "ticket": ["id", ""],
                "message": ["input", "message"],
                "gold": ["expected", "label"],
                "reply": ["output", ""],
            }
        )
    )
    return paths


def score(files: dict[str, Path], *more: str, roles: bool = True) -> tuple[int, str, str]:
    """``score --json`` of the tickets with the metric and (with ``roles``) the roles file, then ``more``."""
    given = ("--roles", str(files["roles"])) if roles else ()
    out, err = io.StringIO(), io.StringIO()
    code = run(["score", str(files["metric"]), "--data", str(files["cases"]), *given, *more, "--json"], out, err)
    return code, out.getvalue(), err.getvalue()


def large(files: dict[str, Path]) -> tuple[str, str]:
    """The large candidate's file, as an option."""
    return "--candidate-file", f"large={files['large']}"


def test_roles_file_maps_unprefixed_columns(files: dict[str, Path]) -> None:
    code, out, err = score(files)
    assert code == EXIT_OK, err
    cases = {case["id"]: case for case in json.loads(out)["cases"]}
    assert list(cases) == ["T-1", "T-2", "T-3"]
    assert [cases[key]["score"] for key in cases] == [1.0, 0.0, 0.5]
    assert cases["T-2"]["feedback"] == "Expected 'shipping', got 'billing'."


def test_without_roles_the_unprefixed_file_is_a_usage_error(files: dict[str, Path]) -> None:
    code, _, err = score(files, roles=False)
    assert code == EXIT_USAGE and "tickets.csv has no input column" in err


def test_candidate_file_is_joined_by_id_and_scored_by_name(files: dict[str, Path]) -> None:
    code, out, err = score(files, *large(files), "--candidate", "large")
    assert code == EXIT_OK, err
    cases = {case["id"]: case["score"] for case in json.loads(out)["cases"]}
    assert cases == {"T-3": 0.5, "T-2": 1.0, "T-1": 1.0}


def test_main_file_is_named_after_itself_when_candidate_files_are_added(files: dict[str, Path]) -> None:
    code, out, _ = score(files, *large(files), "--candidate", "tickets")
    assert code == EXIT_OK
    assert [case["score"] for case in json.loads(out)["cases"]] == [1.0, 0.0, 0.5]


@pytest.mark.parametrize(
    ("roles_text", "words"),
    [
        ('{"ticket": ["identifier", ""]}', "column 'ticket' has the role 'identifier', which does not exist"),
        ('{"ticket": ["id", ""],}', "not valid JSON"),
        ('["id"]', "must map each column to [role, field]"),
    ],
)
def test_bad_roles_file_is_a_usage_error_naming_the_file(files: dict[str, Path], roles_text: str, words: str) -> None:
    files["roles"].write_text(roles_text)
    code, _, err = score(files)
    assert code == EXIT_USAGE and f"--roles {files['roles']}" in err and words in err


def test_missing_roles_file_is_a_usage_error(files: dict[str, Path], tmp_path: Path) -> None:
    code, _, err = score(files, "--roles", str(tmp_path / "no.json"), roles=False)
    assert code == EXIT_USAGE and "cannot read the file" in err


def test_candidate_file_that_does_not_line_up_is_a_usage_error(files: dict[str, Path]) -> None:
    files["large"].write_text("ticket,reply\nT-1,billing\nT-2,shipping\n")
    code, _, err = score(files, *large(files))
    assert code == EXIT_USAGE and "large.csv has no row for case 'T-3' of tickets.csv" in err


def test_candidate_file_argument_needs_a_name(files: dict[str, Path]) -> None:
    code, _, err = score(files, "--candidate-file", str(files["large"]), roles=False)
    assert code == EXIT_USAGE and "write NAME=FILE" in err
