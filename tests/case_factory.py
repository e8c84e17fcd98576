"""Small cases for tests (a module of its own: ``conftest`` names two modules in this tree)."""

from __future__ import annotations

from skynet_core.cases import Case, Observation


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
