"""The command line run in-process, for the hardening tests of issue 21 (tests/core/test_hardening3_*.py)."""

from __future__ import annotations

import io

from skynet_core.cli import run


def cli_streams(*args: str) -> tuple[int, str, str]:
    """The exit status, standard output and standard error of ``python -m skynet_core ARGS``."""
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def cli(*args: str) -> tuple[int, str]:
    """The exit status and everything printed."""
    code, out, err = cli_streams(*args)
    return code, out + err
