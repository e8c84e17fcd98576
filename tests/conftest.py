"""Shared fixtures: one warm worker pool per test session, and small case factories."""

from __future__ import annotations

import pytest

from skynet_core.cases import Case, Observation
from skynet_core.runner import WorkerPool, detect_isolation


def pytest_report_header(config: pytest.Config) -> str:
    isolation, why = detect_isolation()
    return f"skynet metric isolation: {isolation.value} ({why})"


@pytest.fixture(scope="session")
def pool() -> WorkerPool:
    pool = WorkerPool()
    yield pool
    pool.close()


def make_cases(count: int = 3, *, with_expected: bool = True) -> list[Case]:
    return [
        Case(
            id=f"case-{index}",
            input={"question": f"q{index}"},
            output="billing",
            expected={"label": "billing"} if with_expected else None,
            observation=Observation(latency_ms=850.0, cost_usd=0.002),
        )
        for index in range(count)
    ]


@pytest.fixture
def cases() -> list[Case]:
    return make_cases()
