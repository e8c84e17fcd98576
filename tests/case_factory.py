"""Small cases and results for tests of every layer (a module of its own: ``conftest`` names several modules)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from skynet_core.cases import Case, Observation
from skynet_core.datasets import load_example
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs import RunKey

if TYPE_CHECKING:
    from skynet_core.workspace import Workspace

WRONG_METRIC = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'Wrong.'}\n"
WEAK_EVERY = 3
# A data file whose roles are all set by hand (no column name says its role), as a person uploads it: five support
# tickets, the fourth column the JSON text a model returned, the fifth unlabelled (the Data page's AppTest and
# browser tests).
TICKETS_CSV = """ticket_id,message,label,model_reply,notes
T-1,I was charged twice this month,billing,"{""label"": ""billing""}",called twice
T-2,Where is my parcel?,shipping,"{""label"": ""shipping""}",
T-3,The app crashes on start,technical,"{""label"": ""billing""}",angry
T-4,Please close my account,account,"{""label"": ""account""}",
T-5,Do you ship to Norway?,,"{""label"": ""shipping""}",not labelled yet
"""


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


def weak_every_third() -> list[CaseResult]:
    """Every third case scored 0 with "Wrong.", the others 1 with specific feedback, the last one errored."""
    data = load_example()
    cases = data.for_candidate(data.candidates[0])
    results = []
    for index, case in enumerate(cases):
        if index == len(cases) - 1:
            results.append(
                CaseResult(
                    id=case.id,
                    split=case.split,
                    status=CaseStatus.ERROR,
                    error="KeyError: 'label'",
                    candidate=case.candidate,
                )
            )
        elif index % WEAK_EVERY == 0:
            results.append(
                CaseResult(id=case.id, split=case.split, score=0.0, feedback="Wrong.", candidate=case.candidate)
            )
        else:
            label = (case.expected or {}).get("label", "none")
            results.append(
                CaseResult(
                    id=case.id,
                    split=case.split,
                    score=1.0,
                    feedback=f"Correct: the label is {label!r}.",
                    candidate=case.candidate,
                )
            )
    return results


def with_weak_run(workspace: Workspace, reason: str = "the test") -> Workspace:
    """``workspace`` with the wrong metric as its draft (replaced for ``reason``) and a saved run of it on the
    example's first candidate (:func:`weak_every_third`), so the pages that review a run show one."""
    workspace.drafts.replace(WRONG_METRIC, reason)
    data = load_example()
    key = RunKey.of(data, data.candidates[0], None, WRONG_METRIC)
    workspace.runs.store.save(key, weak_every_third(), metric_source=WRONG_METRIC)
    return workspace
