"""Item 5 of issue 23: one output column per candidate (an A/B export), in the main file, in candidate files,
in the role editor and on the command line; warnings for candidates that are the same."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from skynet_core.cli import EXIT_OK, EXIT_USAGE, run
from skynet_core.datasets import (
    CandidateFile,
    DatasetError,
    Role,
    candidate_warnings,
    infer_roles,
    load_dataset,
    roles_file_from_json,
    roles_from_json,
)
from skynet_core.views.data.role_editor import ROLE_CHOICES, changed_roles, editor_rows, role_of
from tests.review_data import LABEL_METRIC, ab_csv, large_csv, review_rows, reviews_csv, write_csv

TEXT_ROLE = {"text": (Role.INPUT, "text")}
PER_CANDIDATE = {
    "out_small": ["candidate_output", "small"],
    "out_large": ["candidate_output", "large"],
    "latency_small_ms": ["candidate_latency_ms", "small"],
    "latency_large_ms": ["candidate_latency_ms", "large"],
    "cost_small_usd": ["candidate_cost_usd", "small"],
    "cost_large_usd": ["candidate_cost_usd", "large"],
}


def test_an_ab_export_becomes_one_candidate_per_output_column(tmp_path: Path) -> None:
    data = load_dataset(ab_csv(tmp_path), roles=TEXT_ROLE)
    assert data.candidates == ["small", "large"]
    rows = review_rows()
    small, large = data.for_candidate("small"), data.for_candidate("large")
    assert [case.id for case in small] == [case.id for case in large] == [row["id"] for row in rows]
    assert [case.output for case in small] == [row["out_small"] for row in rows]
    assert [case.output for case in large] == [row["out_large"] for row in rows]
    assert large[0].observation.latency_ms == 910.0 and large[0].observation.cost_usd == 0.0021
    assert small[0].observation.latency_ms == 101.0 and small[0].observation.cost_usd == 0.000045
    assert small[3].input == large[3].input == {"text": rows[3]["text"]}
    assert small[3].expected == {"label": rows[3]["label"]}
    assert small[3].split == large[3].split


def test_per_candidate_columns_are_guessed_from_their_names() -> None:
    columns = ["id", "text", "label", "out_small", "out_large", "latency_large_ms", "cost_large_usd", "small_cost"]
    roles = infer_roles(columns)
    assert roles["out_small"] == (Role.CANDIDATE_OUTPUT, "small")
    assert roles["out_large"] == (Role.CANDIDATE_OUTPUT, "large")
    assert roles["latency_large_ms"] == (Role.CANDIDATE_LATENCY, "large")
    assert roles["cost_large_usd"] == (Role.CANDIDATE_COST, "large")
    assert roles["small_cost"] == (Role.CANDIDATE_COST, "small")
    # One such column alone is not a candidate (nothing to tell it from), and a prefixed output wins.
    assert infer_roles(["id", "out_small"])["out_small"] == (Role.IGNORED, "")
    assert infer_roles(["output", "out_a", "out_b"])["out_a"] == (Role.IGNORED, "")


def test_the_roles_file_names_per_candidate_outputs(tmp_path: Path) -> None:
    roles = roles_from_json({**PER_CANDIDATE, "text": ["input", "text"], "label": ["expected", "label"]})
    data = load_dataset(ab_csv(tmp_path), roles=roles)
    assert data.candidates == ["small", "large"]
    assert data.for_candidate("large")[3].output == review_rows()[3]["out_large"]


def test_a_candidate_file_with_its_own_column_names_is_accepted_once_roles_are_given(tmp_path: Path) -> None:
    main, large = reviews_csv(tmp_path), large_csv(tmp_path)
    with pytest.raises(DatasetError, match="--roles"):  # added under another name: nothing says out_large is its
        load_dataset(main, candidate_files=[CandidateFile("big", str(large))])
    given = {
        "out_large": (Role.CANDIDATE_OUTPUT, "large"),
        "latency_large_ms": (Role.CANDIDATE_LATENCY, "large"),
        "cost_large_usd": (Role.CANDIDATE_COST, "large"),
    }
    data = load_dataset(main, candidate_files=[CandidateFile("large", str(large), given)], main_candidate="small")
    assert data.candidates == ["small", "large"]
    case = data.for_candidate("large")[0]
    assert case.output == review_rows()[0]["out_large"]
    assert case.observation.latency_ms == 910.0 and case.observation.cost_usd == 0.0021
    # The plain roles work too: output and the observations.
    plain = {
        "out_large": (Role.OUTPUT, ""),
        "latency_large_ms": (Role.OBSERVATION, "latency_ms"),
        "cost_large_usd": (Role.OBSERVATION, "cost_usd"),
    }
    same = load_dataset(main, candidate_files=[CandidateFile("large", str(large), plain)], main_candidate="small")
    assert same.for_candidate("large") == data.for_candidate("large")


@pytest.mark.parametrize(
    ("roles", "words"),
    [
        ({"out_small": ["candidate_output", "x"], "out_large": ["candidate_output", "x"]}, "both the output of"),
        ({"out_small": ["candidate_output", ""]}, "names none"),
        ({"out_small": ["output", ""]}, "one output column for a single candidate"),
        ({"latency_small_ms": ["candidate_latency_ms", "tiny"]}, "no column is its output"),
    ],
)
def test_per_candidate_roles_that_cannot_make_cases_are_refused(tmp_path: Path, roles: dict, words: str) -> None:
    with pytest.raises(DatasetError, match=words):
        load_dataset(ab_csv(tmp_path), roles={**TEXT_ROLE, **roles_from_json(roles)})


def test_a_candidate_files_columns_named_for_its_candidate_need_no_roles(tmp_path: Path) -> None:
    main, large = reviews_csv(tmp_path), large_csv(tmp_path)
    data = load_dataset(main, candidate_files=[CandidateFile("large", str(large))], main_candidate="small")
    case = data.for_candidate("large")[0]
    assert case.output == review_rows()[0]["out_large"]
    assert case.observation.latency_ms == 910.0 and case.observation.cost_usd == 0.0021


def test_a_candidate_file_holds_one_candidate(tmp_path: Path) -> None:
    main = reviews_csv(tmp_path)
    both = write_csv(tmp_path / "both.csv", review_rows(), ["id", "out_small", "out_large"])
    with pytest.raises(DatasetError, match="one candidate's outputs"):
        load_dataset(main, candidate_files=[CandidateFile("more", str(both))])


def test_the_role_editor_offers_per_candidate_roles_named_from_the_column(tmp_path: Path) -> None:
    frame = pd.read_csv(ab_csv(tmp_path), dtype=str)
    rows = editor_rows(frame, infer_roles(list(frame.columns))).set_index("column")
    assert rows.loc["out_large", "role"] == "output of a candidate"
    assert rows.loc["out_large", "field"] == "large"
    assert rows.loc["cost_small_usd", "role"] == "cost_usd of a candidate"
    assert {"output of a candidate", "latency_ms of a candidate", "cost_usd of a candidate"} <= set(ROLE_CHOICES)
    # A blank field takes the name from the column; a typed one is kept (the name is editable).
    assert role_of("output of a candidate", "", "out_large") == (Role.CANDIDATE_OUTPUT, "large")
    assert role_of("output of a candidate", "big", "out_large") == (Role.CANDIDATE_OUTPUT, "big")
    assert role_of("latency_ms of a candidate", "", "large_latency_ms") == (Role.CANDIDATE_LATENCY, "large")
    edited = rows.reset_index()
    edited.loc[edited["column"] == "out_large", "field"] = "big"
    assert changed_roles(edited, list(frame.columns)) == {"out_large": (Role.CANDIDATE_OUTPUT, "big")}


def test_the_same_file_added_as_another_candidate_is_warned(tmp_path: Path) -> None:
    main = reviews_csv(tmp_path)
    copy = reviews_csv(tmp_path, "copy.csv")
    data = load_dataset(main, candidate_files=[CandidateFile("large", str(copy))], main_candidate="small")
    warnings = candidate_warnings(data)
    assert len(warnings) == 1
    assert "small" in warnings[0] and "large" in warnings[0] and "identical outputs" in warnings[0]
    assert candidate_warnings(load_dataset(ab_csv(tmp_path), roles=TEXT_ROLE)) == []


def test_two_output_columns_with_the_same_outputs_are_warned(tmp_path: Path) -> None:
    rows = [{**row, "out_large": row["out_small"]} for row in review_rows()]
    path = write_csv(tmp_path / "same.csv", rows, ["id", "text", "label", "out_small", "out_large"])
    assert len(candidate_warnings(load_dataset(path, roles=TEXT_ROLE))) == 1


def cli(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_the_cli_scores_each_candidate_of_an_ab_export(tmp_path: Path) -> None:
    metric = tmp_path / "metric.py"
    metric.write_text(LABEL_METRIC)
    roles = tmp_path / "roles.json"
    roles.write_text(json.dumps({"text": ["input", "text"]}))
    data = ab_csv(tmp_path)
    for candidate, mean in (("small", 0.75), ("large", 1.0)):
        code, out, err = cli(
            "score", str(metric), "--data", str(data), "--roles", str(roles), "--candidate", candidate, "--json"
        )
        assert code in (EXIT_OK, 1), err
        scores = [case["score"] for case in json.loads(out)["cases"]]
        assert sum(scores) / len(scores) == mean


def test_the_cli_roles_file_gives_a_candidate_files_roles(tmp_path: Path) -> None:
    metric = tmp_path / "metric.py"
    metric.write_text(LABEL_METRIC)
    roles = tmp_path / "roles.json"

    def score_big(sections: dict) -> tuple[int, str, str]:
        # Added as "big", nothing in large.csv's column names says which column is its output: the roles file does.
        roles.write_text(json.dumps({"candidate_files": sections}))
        data, big = str(reviews_csv(tmp_path)), f"big={large_csv(tmp_path)}"
        return cli(
            "score",
            str(metric),
            "--data",
            data,
            "--candidate-file",
            big,
            "--roles",
            str(roles),
            "--candidate",
            "big",
            "--json",
        )

    code, out, err = score_big({"big": {"out_large": ["output", ""]}})
    assert code == EXIT_OK, err
    assert all(case["score"] == 1.0 for case in json.loads(out)["cases"])
    code, _out, err = score_big({"huge": {"out_large": ["output", ""]}})
    assert code == EXIT_USAGE
    assert "huge" in err and "--candidate-file" in err


def test_a_roles_file_has_either_sections_or_columns() -> None:
    both = roles_file_from_json({"main": {"text": ["input", "text"]}, "candidate_files": {"large": {"o": "output"}}})
    assert both.main == {"text": (Role.INPUT, "text")}
    assert both.candidate_files == {"large": {"o": (Role.OUTPUT, "")}}
    flat = roles_file_from_json({"text": ["input", "text"]})
    assert flat.main == {"text": (Role.INPUT, "text")} and flat.candidate_files == {}


def test_the_missing_role_messages_say_how_on_the_command_line(tmp_path: Path) -> None:
    path = write_csv(tmp_path / "bare.csv", review_rows(), ["id", "text", "out_small"])
    with pytest.raises(DatasetError) as caught:
        load_dataset(path)
    assert "--roles" in str(caught.value)


def test_the_cli_warns_when_a_candidate_file_repeats_the_main_file(tmp_path: Path) -> None:
    metric = tmp_path / "metric.py"
    metric.write_text(LABEL_METRIC)
    main = reviews_csv(tmp_path)
    code, _out, err = cli("check", str(metric), "--data", str(main), "--candidate-file", f"large={main}")
    assert code == EXIT_OK
    assert "warning: Candidates 'reviews' and 'large' have identical outputs on every case" in err
