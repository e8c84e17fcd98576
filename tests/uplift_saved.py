"""A finished uplift experiment saved as the studio's job saves one, for the page and browser tests that draw a report
without running one: the weak metric (``tests.case_factory.WRONG_METRIC``) on the bundled example."""

from __future__ import annotations

from skynet_core.datasets import load_example
from skynet_core.engines.uplift import ALL_ARMS, Arm, Calls, Outcome, SeedRun, UpliftConfig, UpliftResult
from skynet_core.metric.source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.store.uplift import UpliftStore
from skynet_core.workspace import Workspace
from tests.case_factory import WRONG_METRIC

START = "You triage customer support tickets."
LEARNED = "Refunds are billing."
HELPS = {Arm.FEEDBACK: [0.6, 0.65, 0.7], Arm.SCORE_ONLY: [0.25, 0.3, 0.25], Arm.SHUFFLED: [0.4, 0.3, 0.35]}


def saved_result(workspace: Workspace, ends: dict[Arm, list[float]]) -> UpliftResult:
    """A finished experiment of the draft on the example, saved as the job saves one."""
    runs = tuple(
        SeedRun(arm, seed, (), START + (f"\n{LEARNED}" if arm is Arm.FEEDBACK else ""), end)
        for arm in ALL_ARMS
        for seed, end in enumerate(ends[arm])
    )
    result = UpliftResult(
        UpliftConfig(START, rounds=2, seeds=3, minibatch=3),
        0.25,
        runs,
        Calls(120, 18),
        0.0123,
        Outcome.COMPLETE,
        models=("openai/task", "openai/reflect"),
        val_ids=tuple(f"v{index}" for index in range(14)),
        split_from_dataset=True,
        created_at=1_700_000_000.0,
    )
    return save(workspace, result)


def save(workspace: Workspace, result: UpliftResult) -> UpliftResult:
    """Keep ``result`` as the job keeps one: made by the weak metric on the example's first candidate."""
    data = load_example()
    metric = MetricSource.of(WRONG_METRIC)
    made_by = Provenance(metric.digest, data.source, data.name, data.candidates[0], None)
    UpliftStore(workspace.directory).save(result, metric, made_by)
    return result
