"""The command line run by the tests: in-process (its exit status and output), or in a process of its own."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

from skynet_core.cli import run

ROOT = Path(__file__).resolve().parents[2]


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
