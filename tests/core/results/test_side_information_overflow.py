"""Whole side information kept on disk is bounded (issue #21 item 7): a total for the process, the least
recent out, however many cases come; the command line, which never offers it, keeps none."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import orjson
import pytest

from skynet_core.results import CaseResult, overflow
from skynet_core.results.overflow import (
    OVERFLOW_KEY,
    bound_side_information,
    full_side_information,
    nothing_kept_on_disk,
)

PROJECT = Path(__file__).resolve().parents[3]
BIG = 200_000  # characters of feedback: over the 64 KB a result keeps


def big_result(n: int) -> CaseResult:
    return bound_side_information(CaseResult(id=f"c{n}", feedback=f"{n:06d}" + "f" * BIG))


def note(result: CaseResult) -> str:
    return result.extra[OVERFLOW_KEY]["note"]


def spilled_bytes() -> int:
    folder = overflow.spill_folder()
    return sum(path.stat().st_size for path in folder.iterdir()) if folder else 0


@pytest.fixture
def small_budget(monkeypatch):
    """1 MB kept in all, an empty store: a few results' worth."""
    monkeypatch.setattr(overflow, "SPILL_BYTES", 1_000_000)
    monkeypatch.setattr(overflow, "_store", overflow.SpillStore())
    yield
    overflow._store.clear()


def test_the_spill_is_capped_and_the_least_recent_values_go_first(small_budget):
    results = [big_result(n) for n in range(40)]  # 8 MB of whole values
    assert spilled_bytes() <= 1_000_000
    kept = [full_side_information(result) is not None for result in results]
    assert kept[-4:] == [True] * 4 and not any(kept[:30]), kept
    assert orjson.loads(full_side_information(results[-1]))["feedback"].startswith("000039")
    assert "over the 64 KB a result keeps" in note(results[-1])
    assert "1 MB" in note(results[-1])  # says how much is kept, so a later miss is no surprise


def test_a_value_larger_than_the_whole_budget_is_not_kept_and_says_so(small_budget):
    result = bound_side_information(CaseResult(id="huge", feedback="f" * 1_500_000))
    assert full_side_information(result) is None and spilled_bytes() == 0
    assert "was not kept" in note(result), note(result)


def test_nothing_is_kept_where_no_one_can_download_it(small_budget):
    with nothing_kept_on_disk():
        result = big_result(1)
    assert full_side_information(result) is None and spilled_bytes() == 0
    assert "was not kept" in note(result)
    assert full_side_information(big_result(2)) is not None  # only within the block


def test_the_command_line_writes_no_spill_file(tmp_path):
    metric = tmp_path / "metric.py"
    metric.write_text(
        "import time\n\ndef score(input, output, expected=None):\n"
        "    if input['n'] == 19:\n        time.sleep(3)  # the run is still going: look at its temp folder\n"
        '    return 1.0, {"feedback": "f" * 200_000}\n'
    )
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(f'{{"id": "c{n}", "input": {{"n": {n}}}, "output": "x"}}\n' for n in range(20)))
    temp = tmp_path / "temp"
    temp.mkdir()
    out = tmp_path / "out.jsonl"
    command = [sys.executable, "-m", "skynet_core", "score", str(metric), "--data", str(data), "--out", str(out)]
    cli = subprocess.Popen(command, cwd=PROJECT, env={**os.environ, "TMPDIR": str(temp)}, stderr=subprocess.PIPE)
    spilled: set[str] = set()
    while cli.poll() is None:
        spilled.update(path.name for folder in temp.glob("skynet-side-*") for path in folder.iterdir())
        time.sleep(0.05)
    assert cli.returncode == 0, cli.stderr.read() if cli.stderr else ""
    assert not spilled, "the command line kept side information on disk that it never writes out"
    first = orjson.loads(out.read_text().splitlines()[0])
    assert "was not kept" in first["extra"][OVERFLOW_KEY]["note"]
