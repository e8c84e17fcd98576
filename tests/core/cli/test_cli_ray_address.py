"""``--ray`` with an empty address is refused (exit 2) before any case is scored."""

from __future__ import annotations

from pathlib import Path

import pytest

from skynet_core.cli import EXIT_USAGE
from tests.core.command_line import OK_METRIC as METRIC
from tests.core.command_line import cli_streams as cli
from tests.core.command_line import one_case_elsewhere


@pytest.fixture
def data(tmp_path: Path) -> str:
    return one_case_elsewhere(tmp_path)


@pytest.mark.parametrize("address", ["", "  "])
def test_an_empty_ray_address_is_refused(tmp_path, data, address):
    (tmp_path / "metric.py").write_text(METRIC)
    code, out, err = cli("score", str(tmp_path / "metric.py"), "--data", data, "--ray", address)
    assert code == EXIT_USAGE and "--ray" in err and "cases scored" not in out
