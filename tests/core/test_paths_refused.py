"""Issue 21 item 13: a file name too long for the file system, or a NUL in a path, is a message and exit 2,
never an OSError or ValueError traceback."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_USAGE
from skynet_core.datasets import DatasetError, load_dataset, read_table
from skynet_core.paths import PathRefused, output_problem, server_path
from tests.core.command_line import cli

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
LONG = "x" * 300


@pytest.fixture
def files(tmp_path: Path) -> tuple[str, str]:
    (tmp_path / "metric.py").write_text(METRIC)
    (tmp_path / "cases.jsonl").write_text('{"id": "a", "input": {"q": "1"}, "output": "x"}\n')
    return str(tmp_path / "metric.py"), str(tmp_path / "cases.jsonl")


@pytest.mark.parametrize("which", ["--out", "--data", "METRIC", "--roles", "--candidate-file"])
def test_a_name_too_long_is_exit_2_with_a_message(files, tmp_path, which):
    metric, data = files
    long = str(tmp_path / f"{LONG}.jsonl")
    args = {
        "--out": ["score", metric, "--data", data, "--out", long],
        "--data": ["score", metric, "--data", long],
        "METRIC": ["score", str(tmp_path / f"{LONG}.py"), "--data", data],
        "--roles": ["score", metric, "--data", data, "--roles", str(tmp_path / f"{LONG}.json")],
        "--candidate-file": ["score", metric, "--data", data, "--candidate-file", f"big={long}"],
    }[which]
    code, text = cli(*args)
    assert code == EXIT_USAGE, text
    assert "bytes long, but a file system allows at most 255" in text, text
    assert "Traceback" not in text and "Errno" not in text


def test_the_readers_refuse_a_long_name_as_a_dataset_error(tmp_path):
    for read in (load_dataset, read_table):
        with pytest.raises(DatasetError, match="bytes long"):
            read(tmp_path / f"{LONG}.jsonl")
    assert "bytes long" in (output_problem(tmp_path / f"{LONG}.csv") or "")


@pytest.mark.parametrize("typed", ["cases\0.jsonl", "/tmp/a\0b/cases.jsonl", LONG + ".jsonl", "/" + "y" * 5000])
def test_a_typed_server_path_with_a_nul_or_too_long_is_refused_with_a_message(typed, tmp_path, monkeypatch):
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    with pytest.raises(PathRefused) as caught:
        server_path(typed)
    assert "NUL" in str(caught.value) or "bytes long" in str(caught.value)


def test_an_upload_with_a_very_long_name_is_kept_under_a_shorter_one(tmp_path):
    from skynet_core.datasets import save_upload

    data = io.BytesIO(b'{"id": "a", "input": {"q": "1"}, "output": "x"}\n')
    saved = save_upload("\u00e9" * 300 + ".jsonl", data, tmp_path)
    assert saved.is_file() and saved.suffix == ".jsonl" and len(saved.name.encode()) <= 255
