"""``--ray`` with an empty address is refused (exit 2) before any case is scored."""

from __future__ import annotations

from pathlib import Path

import pytest

from skynet_core.cli import EXIT_USAGE
from tests.core.command_line import cli_streams as cli

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'


CASE = '{"id": "a", "input": {"q": "1"}, "output": "x"}\n'


@pytest.fixture
def data(tmp_path: Path) -> str:
    path = tmp_path / "elsewhere" / "cases.jsonl"
    path.parent.mkdir()
    path.write_text(CASE)
    return str(path)


@pytest.mark.parametrize("address", ["", "  "])
def test_an_empty_ray_address_is_refused(tmp_path, data, address):
    (tmp_path / "metric.py").write_text(METRIC)
    code, out, err = cli("score", str(tmp_path / "metric.py"), "--data", data, "--ray", address)
    assert code == EXIT_USAGE and "--ray" in err and "cases scored" not in out
