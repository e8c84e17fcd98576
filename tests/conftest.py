"""Shared fixtures: one warm worker pool per test session, and small case factories."""

from __future__ import annotations

import pytest
from case_factory import make_cases

from skynet_core.cases import Case
from skynet_core.runner import WorkerPool, detect_isolation


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
