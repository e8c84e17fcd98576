"""Shared fixtures of every layer: one warm worker pool per test session (per xdist worker), small case factories,
and the ``slow`` marker on the test modules that take seconds or more."""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from skynet_core.cases import Case
from skynet_core.scoring.runner import WorkerPool, detect_isolation
from skynet_core.workspace.jobs import Job
from tests.case_factory import make_cases

# Modules of tests/core whose tests start clusters, engines, virtualenvs or many sandboxes (tests/e2e is all slow).
SLOW_MODULES = {
    "test_cluster.py",
    "test_engines_dspy.py",
    "test_engines_export.py",
    "test_engines_gepa.py",
    "test_hostile.py",
    "test_readme_engines.py",
    "test_real_metrics.py",
}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)
    longest_first(config, items)


MODULE_SECONDS = Path(__file__).with_name("module_seconds.json")


def longest_first(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Order the test modules by the seconds each took in a whole run (``module_seconds.json``), longest first;
    the tests of a module keep their order. A module it does not name counts as the median module.

    ``scripts/test.sh`` hands the modules to its workers in this order (``--no-loadscope-reorder``; xdist's own
    order, most tests first, put the browser-test modules, a few long tests each, last). A long module then
    never starts near the end while the other workers have nothing left: the last run in xdist's order had two
    workers idle its last 33 to 38 s. The figures are refreshed with ``tests/cpu_per_test.py``; stale ones only
    make the order worse, never a test's outcome."""
    try:
        seconds: dict[str, float] = json.loads(MODULE_SECONDS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return
    default = statistics.median(seconds.values()) if seconds else 0.0

    def module(item: pytest.Item) -> str:
        path = item.path
        return path.relative_to(config.rootpath).as_posix() if path.is_relative_to(config.rootpath) else str(path)

    first_seen: dict[str, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(module(item), index)
    items.sort(key=lambda item: (-seconds.get(module(item), default), first_seen[module(item)]))


def pytest_report_header(config: pytest.Config) -> str:
    isolation, why = detect_isolation()
    return f"skynet metric isolation: {isolation.value} ({why})"


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Let litellm's import in the background (``provider.warm_up``) end before the worker exits: a daemon thread
    cut off mid-import holds the module's import lock, and a worker once hung at its exit in a finalizer of litellm's
    that waited on it. Here, before the interpreter shuts down, the import still ends as it would in a test."""
    from skynet_core.llm import provider

    warming = provider._warming
    if warming is not None:
        warming.join(60)


LEFTOVER_WAIT_S = 2.0  # how long a test's end waits for the jobs it left running to stop once cancelled


@pytest.fixture(autouse=True)
def no_leftover_jobs(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Cancel the background jobs a test started and left running (a check of the text typed last, a score
    nobody waited for), and give them a moment to stop: a job outliving its test spent the CPU of the tests
    after it (a check of an endless loop spun a core for its 60 s timeout) and held sandbox places they
    queued for."""
    started: list[Job[Any]] = []
    start = Job.start

    def recorded(job: Job[Any], target: Any) -> Job[Any]:
        started.append(job)
        return start(job, target)

    monkeypatch.setattr(Job, "start", recorded)
    yield
    running = [job for job in started if job.running]
    for job in running:
        job.cancel.set()
    deadline = time.monotonic() + LEFTOVER_WAIT_S
    for job in running:
        job.wait(max(0.0, deadline - time.monotonic()))


@pytest.fixture(scope="session")
def pool() -> WorkerPool:
    pool = WorkerPool()
    yield pool
    pool.close()


@pytest.fixture
def cases() -> list[Case]:
    return make_cases()
