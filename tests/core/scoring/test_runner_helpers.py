"""When a run starts more sandboxes than its first: only when what is left would keep one busy long enough
to pay for starting them (a sandbox's start costs about 0.1 s of CPU)."""

from __future__ import annotations

from skynet_core.cases import Case
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import WorkerPool
from skynet_core.scoring.runner.limit import SandboxLimit
from skynet_core.scoring.runner.run import score_cases

SLEEPS = """
import time

def score(input, output, expected=None):
    time.sleep(input["ms"] / 1000)
    return 1.0, {"feedback": "ok"}
"""


def sandboxes_taken(count: int, ms: float, concurrency: int) -> int:
    """How many sandboxes a run of ``count`` cases of ``ms`` each took (every case must score)."""
    pool = WorkerPool(limit=SandboxLimit(8), spares=1)
    taken = [0]
    take = pool.take

    def counted(*args, **kwargs):
        taken[0] += 1
        return take(*args, **kwargs)

    pool.take = counted  # type: ignore[method-assign]
    try:
        cases = [Case(id=f"c{i}", input={"ms": ms}, output="x") for i in range(count)]
        run = score_cases(SLEEPS, cases, RunOptions(concurrency=concurrency, pool=pool))
    finally:
        pool.close()
    assert len(run.results) == count and all(result.ok for result in run.results)
    return taken[0]


def test_a_run_one_sandbox_finishes_soon_keeps_one() -> None:
    # 100 cases of 1 ms: 0.1 s in one sandbox, which more sandboxes could only slow down.
    assert sandboxes_taken(100, 1.0, concurrency=8) == 1


def test_a_run_of_slow_cases_starts_helpers() -> None:
    # 40 cases of 50 ms: 2 s in one sandbox; in flight at once they finish sooner.
    assert sandboxes_taken(40, 50.0, concurrency=4) == 4


def test_wait_for_spares_returns_once_the_spares_are_started_and_false_when_the_time_is_up() -> None:
    pool = WorkerPool(limit=SandboxLimit(8), spares=2)
    try:
        assert pool.wait_for_spares(60.0)
        assert len(pool._ready) == 2 and all(worker.alive for worker in pool._ready)
    finally:
        pool.close()
    none_yet = WorkerPool(limit=SandboxLimit(8), spares=2)
    try:
        assert not none_yet.wait_for_spares(0.0)  # a child takes longer than no time at all to start
    finally:
        none_yet.close()
    assert not none_yet.wait_for_spares(1.0)  # closed: no spare will come


def test_the_watchdog_measures_a_sandbox_from_its_first_request_not_while_it_waits_as_a_spare() -> None:
    from skynet_core.scoring.runner.watchdog import watchdog

    pool = WorkerPool(spares=1)
    try:
        assert pool.wait_for_spares(30.0)
        worker = pool.take()
        try:
            assert id(worker) not in watchdog()._watched  # started, never asked anything: no metric code ran
            worker.load("def score(input, output, expected=None):\n    return 1.0\n", timeout=10.0)
            assert id(worker) in watchdog()._watched
        finally:
            worker.close()
        assert id(worker) not in watchdog()._watched
    finally:
        pool.close()


FAST = """
import os

def score(input, output, expected=None):
    if input["n"] == input["crash_at"]:
        os._exit(3)  # the child dies on this case
    return 1.0, {"feedback": "ok"}
"""


def test_a_run_that_keeps_one_sandbox_sends_batches_sized_for_one(monkeypatch) -> None:
    # 20,000 instant cases at concurrency 8: no helper can pay, so batches are sized for the one child
    # (at most 1,024 cases), not shrunk as if eight shared the cases (136 round trips before).
    from skynet_core.scoring.runner.shard import Shard

    sent = []
    run_batch = Shard.run_batch

    def counted(self, start, cases):
        sent.append(len(cases))
        return run_batch(self, start, cases)

    monkeypatch.setattr(Shard, "run_batch", counted)
    cases = [Case(id=f"c{i}", input={"n": i, "crash_at": -1}, output="x") for i in range(20_000)]
    results = score_cases(FAST, cases, RunOptions(concurrency=8)).results
    assert [result.id for result in results] == [case.id for case in cases]
    assert all(result.ok for result in results)
    assert sum(sent) == 20_000 and len(sent) <= 30, len(sent)


def test_a_child_dying_on_the_batch_sent_ahead_loses_only_its_case() -> None:
    # Batches of 1,024 at concurrency 1: the third (from case 2048) is sent as the second's last results come,
    # and its first case kills the child while this process still handles the second's.
    cases = [Case(id=f"c{i}", input={"n": i, "crash_at": 2048}, output="x") for i in range(5000)]
    results = score_cases(FAST, cases, RunOptions(concurrency=1)).results
    assert [result.id for result in results] == [case.id for case in cases]
    failed = [result for result in results if not result.ok]
    assert [result.id for result in failed] == ["c2048"], [(r.id, r.error[:80]) for r in failed[:3]]
