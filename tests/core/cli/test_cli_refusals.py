"""Hardening (issue #11 item 17): the CLI refuses what it cannot read or write, before any scoring."""

from __future__ import annotations

import io
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skynet_core.cli import EXIT_USAGE, run

GOOD = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
CASE_LINE = '{"id": "a", "input": {"q": "1"}, "output": "x"}\n'
PROJECT = Path(__file__).resolve().parents[3]


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    metric = tmp_path / "metric.py"
    metric.write_text(GOOD)
    data = tmp_path / "cases.jsonl"
    data.write_text(CASE_LINE)
    return metric, data


def cli(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    code = run(list(args), stdout=out, stderr=err)
    return code, out.getvalue() + err.getvalue()


def test_fifo_as_metric_is_refused_at_once(files, tmp_path):
    _, data = files
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    # In a process of its own: the old code blocks forever opening the FIFO.
    done = subprocess.run(
        [sys.executable, "-m", "skynet_core", "check", str(fifo), "--data", str(data)],
        capture_output=True,
        text=True,
        timeout=60,
        cwd=PROJECT,
    )
    assert done.returncode == EXIT_USAGE
    assert "is a named pipe (FIFO), not a metric file" in done.stderr


def test_device_or_fifo_as_data_is_named_for_what_it_is(files, tmp_path):
    metric, _ = files
    zero = tmp_path / "zero.jsonl"
    zero.symlink_to("/dev/zero")
    code, text = cli("check", str(metric), "--data", str(zero))
    assert code == EXIT_USAGE and "is a character device, not a file" in text and "folder" not in text
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    code, text = cli("check", str(metric), "--data", str(fifo))
    assert code == EXIT_USAGE and "is a named pipe (FIFO), not a file" in text


def test_out_in_a_missing_folder_is_refused_before_scoring(files):
    metric, data = files
    code, text = cli("score", str(metric), "--data", str(data), "--out", "/nonexistent/dir/x.csv")
    assert code == EXIT_USAGE
    assert "the folder /nonexistent/dir does not exist" in text
    assert "None" not in text and "cases scored" not in text  # nothing ran


def test_nul_byte_in_metric_names_its_line(files, pool):
    metric, data = files
    metric.write_text("x = 1\ny = 2\0\n" + GOOD)
    code, text = cli("check", str(metric), "--data", str(data))
    assert code == 1
    assert "line None" not in text
    assert "metric.py line 2 holds a NUL character" in text


@pytest.mark.parametrize(("option", "value"), [("--max-calls", "0"), ("--max-cost", "-1"), ("--max-cost", "nan")])
def test_llm_limits_out_of_range_are_usage_errors(files, option, value):
    metric, data = files
    code, text = cli("score", str(metric), "--data", str(data), option, value)
    assert code == EXIT_USAGE and option in text


def test_server_paths_stay_inside_the_data_roots(tmp_path, monkeypatch):
    from skynet_core.paths import PathRefused, data_roots, server_path

    data = tmp_path / "data"
    other = tmp_path / "other"
    (data / "sub").mkdir(parents=True)
    other.mkdir()
    monkeypatch.setenv("SKYNET_DATA_DIR", str(data))
    monkeypatch.delenv("SKYNET_DATA_ROOTS", raising=False)
    assert server_path(str(data / "sub" / "cases.jsonl")) == data.resolve() / "sub" / "cases.jsonl"
    assert server_path("sub/cases.jsonl") == data.resolve() / "sub" / "cases.jsonl"
    (data / "link.jsonl").symlink_to(other / "x.jsonl")
    for typed in ("/etc/shadow", str(data / ".." / "other" / "x.jsonl"), "../other/x.jsonl", str(data / "link.jsonl")):
        with pytest.raises(PathRefused, match="outside the folders the studio may read"):
            server_path(typed)
    monkeypatch.setenv("SKYNET_DATA_ROOTS", str(other))
    assert other.resolve() in data_roots()
    assert server_path(str(other / "x.jsonl")) == other.resolve() / "x.jsonl"
