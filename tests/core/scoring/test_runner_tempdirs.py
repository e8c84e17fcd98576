"""The sandboxes' temporary metric folders: each is named for the process that made it, and the folders a killed
server left behind are removed (never another live process's, nor one of another PID namespace)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

METRIC = 'def score(input, output, expected=None):\n    return 1.0, {"feedback": "ok"}\n'


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
