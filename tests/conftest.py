"""Shared fixtures of every layer: one warm worker pool per test session (per xdist worker), small case factories,
and the ``slow`` marker on the test modules that take seconds or more."""

from __future__ import annotations

import pytest

from skynet_core.cases import Case
from skynet_core.runner import WorkerPool, detect_isolation
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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in SLOW_MODULES:
            item.add_marker(pytest.mark.slow)


def pytest_report_header(config: pytest.Config) -> str:
    isolation, why = detect_isolation()
    return f"skynet metric isolation: {isolation.value} ({why})"


@pytest.fixture(scope="session")
def pool() -> WorkerPool:
    pool = WorkerPool()
    yield pool
    pool.close()


@pytest.fixture
def cases() -> list[Case]:
    return make_cases()
