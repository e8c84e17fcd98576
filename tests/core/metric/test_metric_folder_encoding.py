"""A file of the metric's folder that is not UTF-8: a data file beside metric.py is left out with a note, a helper
module is refused as part of the metric folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from skynet_core.cli import EXIT_OK, EXIT_USAGE
from tests.core.command_line import OK_METRIC as METRIC
from tests.core.command_line import cli_streams as cli
from tests.core.command_line import one_case_elsewhere


@pytest.fixture
def data(tmp_path: Path) -> str:
    return one_case_elsewhere(tmp_path)


def test_a_non_utf8_data_file_beside_metric_py_is_left_out_with_a_note(tmp_path, data):
    (tmp_path / "metric.py").write_text(METRIC)
    (tmp_path / "export.csv").write_bytes(b"name\n\xe9t\xe9\n")  # Latin-1, as spreadsheets save it
    code, _out, err = cli("check", str(tmp_path / "metric.py"), "--data", data)
    assert code == EXIT_OK, err
    assert "export.csv was left out: it is not UTF-8 text" in err


def test_a_non_utf8_helper_module_says_it_was_read_as_part_of_the_metric_folder(tmp_path, data):
    (tmp_path / "metric.py").write_text(METRIC)
    (tmp_path / "helpers.py").write_bytes(b"# caf\xe9\n")
    code, _out, err = cli("check", str(tmp_path / "metric.py"), "--data", data)
    assert code == EXIT_USAGE
    assert "helpers.py is not UTF-8 text; it was read as part of the metric folder" in err
