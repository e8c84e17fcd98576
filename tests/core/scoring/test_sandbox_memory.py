"""The memory limit holds for a sandbox as a whole (issue #11 item 6), not per process.

A pool with a small limit (256 MiB) keeps the test light on a shared machine; each
hostile metric gets past a per-process limit and is stopped by the watchdog.
"""

from __future__ import annotations

import textwrap
from collections.abc import Iterator

import pytest

from skynet_core.cases import Case
from skynet_core.results import CaseStatus, Isolation
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import Limits, WorkerPool, memory_limit_enforcement
from skynet_core.scoring.runner.run import score_cases
from skynet_core.scoring.runner.watchdog import measure

LIMIT = 256 << 20
CASE = Case(id="a", input={"q": "1"}, output="x")


@pytest.fixture(scope="module")
def small_pool() -> Iterator[WorkerPool]:
    pool = WorkerPool(spares=0, limits=Limits(memory_bytes=LIMIT))
    yield pool
    pool.close()


def run_one(pool: WorkerPool, body: str):
    source = textwrap.dedent(body).lstrip("\n")
    [result] = score_cases(source, [CASE], RunOptions(timeout_s=60, pool=pool)).results
    return result


def assert_stopped_for_memory(result) -> None:
    assert result.status is CaseStatus.ERROR, result
    assert "together held" in result.error and "0.25 GiB memory limit" in result.error, result.error


def test_forked_children_are_counted_together(small_pool):
    result = run_one(
        small_pool,
        """
        import os, time

        def score(input, output, expected=None):
            for _ in range(4):
                if os.fork() == 0:
                    block = bytearray(100 << 20)  # 100 MiB each: under the limit alone, over it together
                    time.sleep(60)
                    os._exit(0)
            time.sleep(60)
            return 1.0, {"feedback": "never"}
    """,
    )
    assert_stopped_for_memory(result)


def test_memfd_files_are_counted(small_pool):
    result = run_one(
        small_pool,
        """
        import os, time

        def score(input, output, expected=None):
            held = []
            for _ in range(8):
                fd = os.memfd_create("hoard")
                os.write(fd, b"x" * (50 << 20))  # written pages, not mapped: no process's RSS shows them
                held.append(fd)
            time.sleep(60)
            return 1.0, {"feedback": "never"}
    """,
    )
    assert_stopped_for_memory(result)


def test_a_million_directories_in_tmp_are_counted(small_pool):
    if small_pool.isolation is not Isolation.FULL:
        pytest.skip("needs the sandbox's private /tmp (full isolation)")
    result = run_one(
        small_pool,
        """
        import os, time

        def score(input, output, expected=None):
            for i in range(1_000_000):
                os.mkdir(f"/tmp/d{i}")
            time.sleep(60)
            return 1.0, {"feedback": "never"}
    """,
    )
    assert_stopped_for_memory(result)


def test_a_small_metric_is_measured_well_under_the_limit(small_pool):
    worker = small_pool.take()
    try:
        worker.wait_ready()
        usage = measure(worker.process.pid, worker.isolation is Isolation.FULL)
        assert 0 < usage.total < LIMIT and usage.processes >= 1
    finally:
        worker.close()
    assert memory_limit_enforcement() in ("cgroup v1", "cgroup v2", "watchdog")


def test_the_cli_reports_how_the_memory_limit_is_enforced(tmp_path):
    import io
    import json

    from skynet_core.cli import run

    metric = tmp_path / "metric.py"
    metric.write_text("def score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n")
    data = tmp_path / "cases.jsonl"
    data.write_text('{"input": {"q": "1"}, "output": "x"}\n')
    out = io.StringIO()
    assert run(["check", str(metric), "--data", str(data), "--json"], stdout=out, stderr=io.StringIO()) == 0
    assert json.loads(out.getvalue())["memory_limit"] == memory_limit_enforcement()
