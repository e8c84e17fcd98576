"""The sandbox's memory limit enforced by the kernel (a memory cgroup per sandbox, where the machine allows one):
a metric that fills memfds far past the limit, faster than a watchdog polls, never holds more than the limit
and a tenth, even with both cores busy; measured from the kernel's side (the cgroup's own peak), run after
run, at both isolation levels. Where no cgroup can be made the watchdog still stops it."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
from collections.abc import Iterator

import pytest

from skynet_core.cases import Case
from skynet_core.results import CaseStatus, Isolation
from skynet_core.scoring import LocalScorer, RunOptions
from skynet_core.scoring.runner import Limits, WorkerPool, memcg, memory_limit_enforcement
from skynet_core.scoring.runner.sandbox import detect_isolation
from skynet_core.scoring.runner.shard import load_into
from skynet_core.scoring.runner.values import ChildDied
from skynet_core.scoring.runner.worker import Worker

MIB = 1 << 20
LIMIT = 256 * MIB  # the hoard writes this much before it is stopped; a started sandbox holds 9 to 16 MiB of it
IN_MESSAGE = f"over the sandbox's {LIMIT / (1 << 30):g} GiB memory limit"  # 0.25 GiB
RUNS = 3
LEVELS = [Isolation.REDUCED] + ([Isolation.FULL] if detect_isolation()[0] is Isolation.FULL else [])
MEMFDS = """
import os, time

def score(input, output, expected=None):
    held, chunk = [], b"x" * (1 << 20)
    for _ in range(input["files"]):
        fd = os.memfd_create("hoard")
        for _ in range(64):  # 64 MiB a file, written, not mapped: in no process's RSS
            os.write(fd, chunk)
        held.append(fd)
    time.sleep(60)
    return 1.0, {"feedback": "never stopped"}
"""
CASE = Case(id="hoard", input={"files": 8}, output="x")  # 512 MiB against a 256 MiB limit


class Spinners:
    """Processes spinning in a loop, one per core, stopped (SIGSTOP) except while :meth:`busy` runs: the cores
    are busy while a hoard runs, not while its sandbox starts and closes, where spinning would only cost."""

    def __init__(self) -> None:
        spin = "import sys; sys.stdout.write('spinning'); sys.stdout.flush()\nwhile True: pass"
        self.processes = [
            subprocess.Popen([sys.executable, "-c", spin], stdout=subprocess.PIPE)
            for _ in range(max(2, os.cpu_count() or 1))
        ]
        try:
            for process in self.processes:
                assert process.stdout is not None
                assert process.stdout.read(8) == b"spinning"  # up to its loop: from here on it only spins
                process.send_signal(signal.SIGSTOP)
        except BaseException:
            self.kill()
            raise

    @contextlib.contextmanager
    def busy(self) -> Iterator[None]:
        for process in self.processes:
            process.send_signal(signal.SIGCONT)
        try:
            yield
        finally:
            for process in self.processes:
                process.send_signal(signal.SIGSTOP)

    def kill(self) -> None:
        for process in self.processes:
            process.kill()
            process.wait()


@pytest.fixture
def both_cores_busy() -> Iterator[Spinners]:
    """Two processes (one per core) that spin while their ``busy()`` runs, for as long as the test runs."""
    spinners = Spinners()
    try:
        yield spinners
    finally:
        spinners.kill()


def hoard(isolation: Isolation, spinners: Spinners) -> tuple[str, int | None]:
    """What stopping the memfd hoard, run with both cores busy, said, and the most the kernel counted for its
    sandbox."""
    worker = Worker(isolation, Limits(memory_bytes=LIMIT))
    try:
        assert worker.memory_cgroup is not None, "the sandbox has no memory cgroup"
        load_into(worker, MEMFDS, 60, None)
        with spinners.busy(), pytest.raises(ChildDied) as stopped:
            list(worker.run([CASE.call_payload()], 60, None))
        return str(stopped.value), worker.memory_cgroup.peak()
    finally:
        worker.close(wait=True)


@pytest.mark.slow
@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_a_memfd_hoard_never_passes_the_limit_by_a_tenth_with_both_cores_busy(isolation, both_cores_busy) -> None:
    if memcg.hierarchy()[0] is None:
        pytest.skip(f"no memory cgroup can be made here: {memcg.hierarchy()[1]}")
    for _run in range(RUNS):
        message, peak = hoard(isolation, both_cores_busy)
        assert IN_MESSAGE in message, message
        assert peak is not None and peak <= LIMIT * 1.1, f"{peak / MIB:.0f} MiB against {LIMIT / MIB:.0f} MiB"


def test_the_sandbox_cgroup_is_removed_with_the_sandbox() -> None:
    if memcg.hierarchy()[0] is None:
        pytest.skip(f"no memory cgroup can be made here: {memcg.hierarchy()[1]}")
    worker = Worker(LEVELS[-1], Limits(memory_bytes=LIMIT))
    assert worker.memory_cgroup is not None
    worker.wait_ready()
    procs = (worker.memory_cgroup.path / "cgroup.procs").read_text().split()
    assert str(worker.process.pid) in procs  # its first process joined before it ran anything
    worker.close(wait=True)
    assert not worker.memory_cgroup.path.exists()


@pytest.fixture
def no_cgroups(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    monkeypatch.setenv(memcg.CGROUP_ENV, "off")
    memcg.hierarchy.cache_clear()
    yield
    monkeypatch.undo()
    memcg.hierarchy.cache_clear()


def test_without_cgroups_the_watchdog_still_stops_the_hoard_and_the_report_says_so(no_cgroups) -> None:
    assert memory_limit_enforcement() == "watchdog"
    pool = WorkerPool(isolation=LEVELS[-1], spares=0, limits=Limits(memory_bytes=LIMIT))
    try:
        [result] = LocalScorer()(MEMFDS, [CASE], RunOptions(timeout_s=60, pool=pool)).results
    finally:
        pool.close()
    assert result.status is CaseStatus.ERROR, result
    assert "together held" in result.error and IN_MESSAGE in result.error, result
    assert "shared memory files" in result.error  # the watchdog's count names what it found
