"""Issue 21, "Also seen": a non-UTF-8 file beside metric.py, an empty --ray address, and the temporary metric
folders a killed server leaves behind."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hardening3_cli import cli_streams as cli

from skynet_core.cli import EXIT_OK, EXIT_USAGE

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'
CASE = '{"id": "a", "input": {"q": "1"}, "output": "x"}\n'


@pytest.fixture
def data(tmp_path: Path) -> str:
    path = tmp_path / "elsewhere" / "cases.jsonl"
    path.parent.mkdir()
    path.write_text(CASE)
    return str(path)


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


@pytest.mark.parametrize("address", ["", "  "])
def test_an_empty_ray_address_is_refused(tmp_path, data, address):
    (tmp_path / "metric.py").write_text(METRIC)
    code, out, err = cli("score", str(tmp_path / "metric.py"), "--data", data, "--ray", address)
    assert code == EXIT_USAGE and "--ray" in err and "cases scored" not in out


def dead_pid() -> int:
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def test_stale_metric_folders_of_dead_processes_are_removed_and_others_kept(tmp_path):
    from skynet_core.scoring.runner.tempdirs import METRIC_PREFIX, owned_prefix, remove_stale

    namespace = owned_prefix().split("-")[-2]
    dead = tmp_path / f"{METRIC_PREFIX}{dead_pid()}-{namespace}-abc"
    alive = tmp_path / f"{METRIC_PREFIX}1-{namespace}-def"  # pid 1 is always running
    own = tmp_path / f"{owned_prefix()}ghi"
    elsewhere = tmp_path / f"{METRIC_PREFIX}{dead_pid()}-12345-jkl"  # another PID namespace's: its pids mean nothing
    unknown = tmp_path / f"{METRIC_PREFIX}x7k2lq"  # made before folders carried their owner: not ours to judge
    other = tmp_path / "unrelated-123-x"
    for folder in (dead, alive, own, elsewhere, unknown, other):
        (folder / "metric").mkdir(parents=True)
        (folder / "metric" / "metric.py").write_text(METRIC)
    assert remove_stale(tmp_path) == [dead]
    assert not dead.exists()
    assert all(folder.exists() for folder in (alive, own, elsewhere, unknown, other))


def test_a_worker_names_its_metric_folder_for_its_process(pool):
    from skynet_core.scoring.runner.tempdirs import owned_prefix

    worker = pool.take()
    try:
        root = Path(worker.metric_host_dir).parent
        assert root.name.startswith(owned_prefix())
    finally:
        worker.close()
