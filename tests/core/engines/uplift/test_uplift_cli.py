"""``python -m skynet_core uplift``: the JSON the issue gives, the text for people, and exit 2 without models."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests import uplift_world as world
from tests.core.command_line import Placed, record_places
from tests.uplift_world import run_cli as uplift

ROOT = Path(__file__).resolve().parents[4]


def test_without_models_it_exits_2_and_names_the_variables_to_set(folder: Path) -> None:
    code, out, err = uplift(folder, "--instruction", world.START)
    assert code == 2 and out == ""
    for name in world.MODEL_VARIABLES:
        assert name in err
    assert "OPENAI_API_KEY" in err


def test_without_a_reflection_model_it_names_only_that_one(folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKYNET_TASK_MODEL", "openai/task")
    code, _out, err = uplift(folder, "--instruction", world.START)
    assert code == 2 and "SKYNET_REFLECTION_MODEL" in err and "SKYNET_TASK_MODEL" not in err


def test_the_command_is_reachable_through_python_m(folder: Path) -> None:
    env = {key: value for key, value in __import__("os").environ.items() if key not in world.MODEL_VARIABLES}
    done = subprocess.run(
        [sys.executable, "-m", "skynet_core", "uplift", str(folder / "metric"), "--data", str(folder / "cases.jsonl"),
         "--instruction", world.START, "--json"],
        capture_output=True, text=True, cwd=ROOT, env=env, timeout=120,
    )  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "SKYNET_TASK_MODEL" in done.stderr and done.stdout == ""


def test_json_prints_exactly_the_documented_object(served, folder: Path) -> None:
    code, out, err = uplift(folder, "--instruction", world.START, "--seeds", "2", "--rounds", "2", "--json")
    assert code == 0, err
    found = json.loads(out)
    assert list(found) == ["start", "arms", "feedback_value", "instructions", "calls", "cost_usd"]
    assert isinstance(found["start"], float)
    assert list(found["arms"]) == ["feedback", "score_only", "shuffled"]
    for arm in found["arms"].values():
        assert list(arm) == ["end", "gain"] and len(arm["end"]) == 2
        assert list(arm["gain"]) == ["value", "low", "high"]
    assert list(found["feedback_value"]) == ["value", "low", "high"] and found["feedback_value"]["value"] > 0
    assert {arm: len(texts) for arm, texts in found["instructions"].items()} == dict.fromkeys(found["arms"], 2)
    seen = world.requests_by_model(served)
    assert found["calls"] == {"task": seen["task"], "reflection": seen["reflect"]}
    assert found["cost_usd"] is None  # the scripted models have no price: the cost is unknown, not 0
    assert err.startswith("Planned: at most")  # the plan goes to standard error, so standard output is the JSON


def test_text_output_gives_the_plan_then_the_result_for_people(served, folder: Path) -> None:
    instruction = folder / "instruction.txt"
    instruction.write_text(world.START + "\n")
    code, out, _err = uplift(folder, "--instruction-file", str(instruction), "--seeds", "2", "--rounds", "1")
    assert code == 0
    assert out.index("Planned: at most") < out.index("Start: 0.000 on 8 validation cases (the dataset's val split).")
    assert "with feedback: end per seed" in out and "Feedback value" in out
    assert "Final instruction, with feedback, seed 1:" in out
    assert out.rstrip().endswith("The experiment finished: 2 seeds in every arm.")


def test_a_run_over_budget_exits_1_and_still_prints_what_finished(served, folder: Path, tmp_path: Path) -> None:
    code, out, err = uplift(folder, "--instruction", world.START, "--rounds", "1", "--max-cost", "0", "--json")
    assert code == 1
    assert "--max-cost cannot bound them" in err  # the fake models have no price
    assert json.loads(out)["calls"]["task"] == len(served.requests)


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--instruction", "  "], "Give the instruction"),
        (["--instruction", "x", "--rounds", "0"], "rounds must be a whole number"),
        (["--instruction-file", "/nonexistent/instruction.txt"], "--instruction-file /nonexistent/instruction.txt"),
        (["--instruction", "x", "--concurrency", "0"], "--concurrency must be from 1 to 64, not 0"),
    ],
)
def test_bad_arguments_exit_2_with_a_reason(served, folder: Path, args: list[str], words: str) -> None:
    code, out, err = uplift(folder, *args)
    assert code == 2 and out == "" and words in err


def test_unreadable_cases_exit_2(served, folder: Path) -> None:
    (folder / "cases.jsonl").write_text("not json\n")
    code, _out, err = uplift(folder, "--instruction", world.START)
    assert code == 2 and "error:" in err and len(served.requests) == 0


def test_a_ray_address_is_where_the_metric_scores(served, folder: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """--ray reaches the experiment's metric: its scorer is made for that address (nothing is sent before)."""
    places = record_places(monkeypatch)
    with pytest.raises(Placed):
        uplift(folder, "--instruction", "x", "--ray", "127.0.0.1:6399")
    assert places == ["127.0.0.1:6399"] and served.requests == []
