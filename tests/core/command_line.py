"""The command line run by the tests: in-process (its exit status and output), or in a process of its own; and a
metric and a case to run it on."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from skynet_core.cli import run

ROOT = Path(__file__).resolve().parents[2]
OK_METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
ONE_CASE = '{"id": "a", "input": {"q": "1"}, "output": "x"}\n'


def one_case_elsewhere(tmp_path: Path) -> str:
    """A cases file of :data:`ONE_CASE` in ``tmp_path/elsewhere``, apart from a metric folder in ``tmp_path``."""
    path = tmp_path / "elsewhere" / "cases.jsonl"
    path.parent.mkdir()
    path.write_text(ONE_CASE)
    return str(path)


def cli_streams(*args: str) -> tuple[int, str, str]:
    """The exit status, standard output and standard error of ``python -m skynet_core ARGS``."""
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def cli_completed(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m skynet_core ARGS`` run in-process, as a finished process's record (a test that needs the
    command's own process, for its start-up, signals or exit, uses :func:`cli_process`)."""
    code, out, err = cli_streams(*args)
    return subprocess.CompletedProcess(["python", "-m", "skynet_core", *args], code, out, err)


def cli(*args: str) -> tuple[int, str]:
    """The exit status and everything printed."""
    code, out, err = cli_streams(*args)
    return code, out + err


def cli_process(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m skynet_core ARGS`` in a process of its own, from the project's folder, as a person runs it."""
    return subprocess.run(
        [sys.executable, "-m", "skynet_core", *args], capture_output=True, text=True, cwd=ROOT, timeout=120
    )


class Placed(Exception):
    """Raised where a command chooses where to score, once :func:`record_places` is in force."""


def record_places(monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """Make the scorer's factory (``skynet_core.scoring.scorer_for``) note the address a command asks for and raise
    :class:`Placed` there; the addresses asked, in order."""
    places: list[str | None] = []

    def scorer_for(address: str | None) -> object:
        places.append(address)
        raise Placed

    monkeypatch.setattr("skynet_core.scoring.scorer_for", scorer_for)
    return places
