"""``python -m skynet_core stress``: the JSON the issue gives, the text for people, the exit codes (0; 1 for a flag
named in --fail-on; 2 for bad input), the plan printed first, and a judge sampled by default to bound its calls."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from skynet_core.cli import run
from tests import stress_world as world

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The done-when metrics as files, the cases, and a data directory of the test's own."""
    for name, text in (("sound", world.SOUND), ("contains", world.CONTAINS), ("judge", world.JUDGE)):
        (tmp_path / name).mkdir()
        (tmp_path / name / "metric.py").write_text(text)
    world.write_cases(tmp_path / "cases.jsonl")
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    for name in ("SKYNET_TASK_MODEL", "SKYNET_TASK_API_BASE"):
        monkeypatch.delenv(name, raising=False)
    return tmp_path


def stress(folder: Path, metric: str, *args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(["stress", str(folder / metric), "--data", str(folder / "cases.jsonl"), *args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_json_prints_the_issues_object(folder: Path) -> None:
    code, out, err = stress(folder, "contains", "--json")
    assert code == 0, err
    found = json.loads(out)
    assert list(found)[:8] == [
        "cases",
        "perturbations",
        "verdict",
        "feedback",
        "calls",
        "cost_usd",
        "search",
        "sampled",
    ]
    assert found["cases"] == 40 and found["cost_usd"] is None and found["search"] is None
    assert found["calls"]["judge"] == 0
    first = found["perturbations"][0]
    assert {"id", "family", "n", "violations", "mean_change", "examples"} <= set(first)
    assert set(first["mean_change"]) == {"value", "low", "high"}
    assert found["verdict"]["hackable"] is True and found["verdict"]["brittle"] is False
    assert found["verdict"]["why"]["hackable"][0] == "smuggle_expected"
    assert set(found["feedback"]) == {"static", "gives_answer"}
    assert "Planned: 40 of 40 cases" in err  # the plan goes to standard error with --json


def test_fail_on_a_flag_that_is_set_exits_1_and_says_why(folder: Path) -> None:
    code, out, err = stress(folder, "contains", "--fail-on", "hackable")
    assert code == 1
    assert "An optimizer can game this metric: it is hackable (smuggle_expected 25%)." in out
    assert "--fail-on hackable" in err and "smuggle_expected" in err


def test_fail_on_a_flag_that_is_not_set_exits_0(folder: Path) -> None:
    code, out, _err = stress(folder, "contains", "--fail-on", "brittle,insensitive")
    assert code == 0 and "Worst example of hackable: smuggle_expected" in out


def test_the_text_report_leads_with_the_verdict_and_lists_every_perturbation(folder: Path) -> None:
    code, out, _err = stress(folder, "sound")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "Planned: 40 of 40 cases, each scored as it is and under 15 perturbations: 640 outputs at most."
    assert any(line.startswith("The metric held") for line in lines[:5])
    for name in ("whitespace", "truncate", "claims_correct", "smuggle_expected"):
        assert any(line.split()[1:2] == [name] for line in lines)


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (("--fail-on", "hackable,fragile"), "'fragile' is not among brittle, insensitive, hackable"),
        (("--cases", "0"), "0 is not 1 or more"),
        (("--families", "keep"), "'keep' is not among preserve, degrade, game"),
        (("--split", "test"), "no cases in split 'test'"),
        (("--search",), "--search needs a task model"),
    ],
)
def test_bad_input_exits_2_with_a_message(folder: Path, args: tuple[str, ...], said: str, capsys) -> None:
    try:
        code, out, err = stress(folder, "sound", *args)
    except SystemExit as exc:  # the parser's own errors, on the process's standard error
        code, out, err = exc.code, "", capsys.readouterr().err
    assert code == 2 and out == ""
    assert said in err


def test_a_missing_data_file_exits_2(folder: Path) -> None:
    out, err = io.StringIO(), io.StringIO()
    code = run(["stress", str(folder / "sound"), "--data", str(folder / "nope.jsonl")], out, err)
    assert code == 2 and "nope.jsonl" in err.getvalue()


def test_a_judge_is_sampled_by_default_to_keep_its_calls_near_300_and_says_so(
    folder: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with world.server() as server:
        monkeypatch.setenv("SKYNET_METRIC_MODEL", "openai/judge")
        monkeypatch.setenv("SKYNET_METRIC_API_BASE", server.url)
        monkeypatch.setenv("OPENAI_API_KEY", "sk-test-unused")
        code, out, err = stress(folder, "judge", "--json", "--fail-on", "hackable")
        asked = len(server.requests)
    assert code == 1, err
    assert "18 cases are sampled by default, to keep the run near 300 llm() calls" in err
    found = json.loads(out)
    assert found["cases"] == 18 and found["sampled"] == 18 and found["total"] == 40
    assert found["calls"]["judge"] == asked <= 300
    assert found["verdict"]["why"]["hackable"][0] == "claims_correct"


def test_the_command_is_reachable_through_python_m(folder: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "skynet_core", "stress", str(folder / "contains"), "--data",
         str(folder / "cases.jsonl"), "--families", "game", "--json", "--fail-on", "hackable"],
        capture_output=True, text=True, cwd=ROOT, timeout=180,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr
    found = json.loads(done.stdout)
    assert {item["family"] for item in found["perturbations"]} == {"game"}
