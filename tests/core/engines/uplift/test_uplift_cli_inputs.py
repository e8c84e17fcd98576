"""What ``uplift`` reads before a run: the data options of ``score`` (one definition: --roles, --candidate,
--candidate-file, --split), an instruction file that is a regular file of bounded size, the models and prices
saved on the Settings page; and what it refuses: a metric that fails every case."""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

import pytest

from skynet_core.cli import build_parser
from skynet_core.engines.uplift.config import MAX_INSTRUCTION_BYTES
from skynet_core.llm import ModelConfig, ModelSettings, save_settings
from skynet_core.store import Store
from tests import uplift_world as world
from tests.uplift_world import run_cli as uplift

DATA_OPTIONS = {"--data", "--candidate", "--roles", "--candidate-file", "--split"}
PRICE = (1000.0, 1000.0)  # US dollars per million tokens: the server's 100 + 20 tokens cost $0.12 a call


@pytest.fixture
def folder(folder: Path) -> Path:
    """The world's metric and cases, and the cases again as a CSV whose columns need roles (and the roles file)."""
    lines = ["ticket,input.message,wanted,split,output"]  # no outputs: the task model makes them
    for case in world.cases():
        lines.append(f"{case.id},{case.input['message'].replace(',', ';')},{case.expected['label']},{case.split},")
    (folder / "tickets.csv").write_text("\n".join(lines) + "\n")
    roles = {"ticket": ["id", ""], "wanted": ["expected", "label"], "split": ["split", ""]}
    (folder / "roles.json").write_text(json.dumps(roles))
    return folder


def short(*args: str) -> tuple[str, ...]:
    return ("--instruction", world.START, "--seeds", "1", "--rounds", "1", *args)


# -- the data options -------------------------------------------------------------------------------------------


def data_options(command: str) -> dict[str, tuple[str | None, object]]:
    commands = next(a for a in build_parser()._actions if isinstance(a, argparse._SubParsersAction))
    parser = commands.choices[command]
    return {
        option: (action.help, action.default)
        for action in parser._actions
        for option in action.option_strings
        if option in DATA_OPTIONS
    }


def test_uplift_takes_the_data_options_of_score_from_one_definition() -> None:
    assert set(data_options("uplift")) == DATA_OPTIONS
    assert data_options("uplift") == data_options("score")


def test_roles_give_uplift_the_expected_values_a_csv_needs(served, folder: Path) -> None:
    code, out, err = uplift(folder, *short("--roles", str(folder / "roles.json"), "--json"), data="tickets.csv")
    assert code == 0, err
    found = json.loads(out)
    assert found["start"] == 0.0 and found["feedback_value"]["value"] > 0  # the world's feedback teaches the rules


def test_a_metric_that_fails_every_case_is_refused_with_its_reason(served, folder: Path) -> None:
    # Without roles the CSV's "wanted" column is no expected value: the world's metric fails on every case.
    code, out, err = uplift(folder, *short("--json"), data="tickets.csv")
    assert code == 2 and out == ""
    assert "error: The metric scored none of the validation cases" in err and "expected" in err
    assert "feedback value" not in err.lower()


def test_an_unknown_candidate_or_split_is_refused(served, folder: Path) -> None:
    code, out, err = uplift(folder, *short("--candidate", "large"))
    assert code == 2 and out == "" and "--candidate 'large'" in err
    code, out, err = uplift(folder, *short("--split", "holdout"))
    assert code == 2 and out == "" and "no cases in split 'holdout'" in err
    assert len(served.requests) == 0


# -- the instruction file ---------------------------------------------------------------------------------------


def test_a_device_as_the_instruction_file_is_refused_at_once(served, folder: Path) -> None:
    started = time.monotonic()
    code, out, err = uplift(folder, "--instruction-file", "/dev/zero")
    assert code == 2 and out == "" and "/dev/zero is a character device" in err
    assert time.monotonic() - started < 30 and len(served.requests) == 0


def test_a_fifo_as_the_instruction_file_is_refused_without_waiting(served, folder: Path) -> None:
    fifo = folder / "instruction.fifo"
    os.mkfifo(fifo)
    code, out, err = uplift(folder, "--instruction-file", str(fifo))
    assert code == 2 and out == "" and "is a named pipe (FIFO)" in err


def test_an_instruction_file_over_the_limit_is_refused(served, folder: Path) -> None:
    big = folder / "instruction.txt"
    big.write_text("Classify the ticket. " * (MAX_INSTRUCTION_BYTES // 10))
    code, out, err = uplift(folder, "--instruction-file", str(big))
    assert code == 2 and out == "" and f"at most {MAX_INSTRUCTION_BYTES:,} bytes" in err


# -- the models of the Settings page ------------------------------------------------------------------------------


def test_the_models_and_prices_saved_on_the_settings_page_are_used(folder: Path) -> None:
    with world.server() as server:
        saved = ModelSettings(
            task=ModelConfig("openai/task", server.url, price_per_million=PRICE),
            reflection=ModelConfig("openai/reflect", server.url, price_per_million=PRICE),
        )
        save_settings(Store(folder / "data"), saved)
        code, out, err = uplift(folder, *short("--json"))
    assert code == 0, err
    found = json.loads(out)
    calls = found["calls"]["task"] + found["calls"]["reflection"]
    assert calls == len(server.requests) > 0
    assert found["cost_usd"] == pytest.approx(calls * (100 * PRICE[0] + 20 * PRICE[1]) / 1e6)
    assert "no known price" not in err


def test_an_unknown_cost_is_reported_as_unknown_never_zero(served, folder: Path) -> None:
    code, out, _err = uplift(folder, *short("--json"))
    assert code == 0 and json.loads(out)["cost_usd"] is None
    code, out, _err = uplift(folder, *short())
    assert code == 0 and "cost unknown" in out and "$0.0000" not in out
