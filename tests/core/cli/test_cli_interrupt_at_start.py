"""Ctrl+C while `python -m skynet_core` still imports its command line ends the command as Ctrl+C during a run does:
exit 130 and one line, no traceback (a Ctrl+C test on a loaded machine met this window once: exit 1 and a
KeyboardInterrupt traceback)."""

from __future__ import annotations

import builtins
import runpy
import sys
from typing import Any

import pytest


@pytest.mark.parametrize(
    ("argv", "said"),
    [
        (["skynet_core", "--help"], "interrupted (Ctrl+C)\n"),
        (["skynet_core", "--lang", "zh_CN", "--help"], "已中断（Ctrl+C）\n"),  # in the command's language
    ],
)
def test_ctrl_c_while_the_command_line_loads_exits_130_without_a_traceback(
    argv: list[str], said: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("LANG", "C.UTF-8")
    real_import = builtins.__import__

    def interrupted(name: str, globals: Any = None, locals: Any = None, fromlist: Any = (), level: int = 0) -> Any:
        if level == 1 and name == "cli" and (globals or {}).get("__name__") == "__main__":
            raise KeyboardInterrupt  # the signal, arriving while the command line's modules load
        return real_import(name, globals, locals, fromlist, level)

    monkeypatch.setattr(builtins, "__import__", interrupted)
    monkeypatch.setattr(sys, "argv", argv)
    try:
        runpy.run_module("skynet_core", run_name="__main__", alter_sys=False)
    except KeyboardInterrupt:
        pytest.fail("Ctrl+C while the command line loads escaped as KeyboardInterrupt (a traceback, exit 1)")
    except SystemExit as ended:
        assert ended.code == 130
    else:
        pytest.fail("the command went on after Ctrl+C")
    assert capsys.readouterr().err == said
