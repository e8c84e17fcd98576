"""The process-wide limit on sandboxes: at most N alive across every run, a fair queue, cancellable waits."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from skynet_core.cases import Case
from skynet_core.metric.contract import check_metric
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import WorkerPool
from skynet_core.scoring.runner.limit import SandboxLimit, default_capacity, holding
from skynet_core.scoring.runner.run import score_cases
from skynet_core.scoring.runner.values import Cancelled

SLOW = """
import time

def score(input, output, expected=None):
    time.sleep(0.05)
    return 1.0, {"feedback": "ok"}
"""


def cases(count: int, prefix: str = "case") -> list[Case]:
    return [Case(id=f"{prefix}-{i}", input={"question": f"q{i}"}, output="billing") for i in range(count)]


def sandboxes_alive() -> int:
    """This process's children that are sandboxes (bubblewrap, or the reduced child)."""
    me, count = os.getpid(), 0
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            fields = Path(f"/proc/{entry}/stat").read_text().rpartition(")")[2].split()
            command = Path(f"/proc/{entry}/cmdline").read_bytes()
        except OSError:
            continue
        if int(fields[1]) == me and fields[0] != "Z" and (b"bwrap" in command or b"child.py" in command):
            count += 1
    return count


class Watch(threading.Thread):
    """The most sandboxes alive at once, and the most places in use, while it runs."""

    def __init__(self, limit: SandboxLimit) -> None:
        super().__init__(daemon=True)
        self.limit, self.stop = limit, threading.Event()
        self.most_alive = self.most_in_use = 0
        self.before = sandboxes_alive()  # other pools' idle spares (the tests' shared pool)

    def run(self) -> None:
        while not self.stop.is_set():
            self.most_alive = max(self.most_alive, sandboxes_alive() - self.before)
            self.most_in_use = max(self.most_in_use, self.limit.view().in_use)
            self.stop.wait(0.02)


# -- the queue --------------------------------------------------------------------------------------


def test_the_default_is_twice_the_cores_and_at_least_eight() -> None:
    assert default_capacity(cores=2, env={}) == 8
    assert default_capacity(cores=16, env={}) == 32
    assert default_capacity(cores=2, env={"SKYNET_MAX_SANDBOXES": "20"}) == 20
    assert default_capacity(cores=2, env={"SKYNET_MAX_SANDBOXES": "lots"}) == 8


def test_a_freed_place_goes_to_the_run_holding_fewest_then_first_come() -> None:
    limit = SandboxLimit(2)
    with holding("A") as a:
        first, second = limit.acquire(run=a), limit.acquire(run=a)
    served: dict[str, object] = {}

    def wait(run: object) -> None:
        served[run.label] = limit.acquire(run=run)  # type: ignore[attr-defined]

    threads = []
    for run in (a, *(holding(label).__enter__() for label in ("B", "C"))):  # A asks again first
        threads.append(threading.Thread(target=wait, args=(run,), daemon=True))
        threads[-1].start()
        time.sleep(0.05)
    view = limit.view()
    assert view.in_use == 2 and [item.run.label for item in view.waiting] == ["B", "C", "A"]
    assert view.longest_wait_s > 0.0
    first.release()
    first.release()  # idempotent
    time.sleep(0.2)
    assert list(served) == ["B"]
    assert [item.run.label for item in limit.view().waiting] == ["C", "A"]  # A still holds one
    served["B"].release()  # type: ignore[attr-defined]
    time.sleep(0.2)
    assert list(served) == ["B", "C"]
    second.release()
    time.sleep(0.2)
    assert list(served) == ["B", "C", "A"]


def test_a_wait_is_cancelled_at_once_and_leaves_the_queue() -> None:
    limit = SandboxLimit(1)
    held = limit.acquire()
    cancel = threading.Event()
    outcome: list[str] = []

    def wait() -> None:
        try:
            limit.acquire(cancel)
        except Cancelled:
            outcome.append("cancelled")

    thread = threading.Thread(target=wait)
    thread.start()
    time.sleep(0.1)
    assert limit.waiting() == 1
    cancel.set()
    thread.join(2)
    assert outcome == ["cancelled"] and limit.waiting() == 0
    held.release()
    assert limit.view().in_use == 0


def test_a_run_holding_more_than_its_share_is_asked_to_give_one_back() -> None:
    limit = SandboxLimit(4)
    with holding("big") as big:
        places = [limit.acquire(run=big) for _ in range(4)]
    assert not limit.crowded(places[0])  # nobody waits
    with holding("small") as small:
        thread = threading.Thread(target=limit.acquire, kwargs={"run": small}, daemon=True)
        thread.start()
        time.sleep(0.1)
        assert limit.crowded(places[0])
        places[0].release()
        thread.join(2)
    assert {item.run.label: item.places for item in limit.view().holding} == {"big": 3, "small": 1}
    assert not limit.crowded(places[1])  # nobody waits any more


def test_raising_the_capacity_serves_the_waiting_at_once() -> None:
    limit = SandboxLimit(1)
    limit.acquire()
    thread = threading.Thread(target=limit.acquire, daemon=True)
    thread.start()
    time.sleep(0.1)
    limit.set_capacity(2)
    thread.join(2)
    assert not thread.is_alive() and limit.view().in_use == 2
    with pytest.raises(ValueError):
        limit.set_capacity(0)


# -- through the runner -------------------------------------------------------------------------------


def test_six_concurrent_runs_share_the_places_instead_of_starting_a_sandbox_each() -> None:
    limit = SandboxLimit(4)
    pool = WorkerPool(limit=limit, spares=1)
    watch = Watch(limit)
    runs: dict[int, object] = {}

    def score(index: int) -> None:
        runs[index] = score_cases(SLOW, cases(24, f"run{index}"), RunOptions(concurrency=4, pool=pool))

    try:
        watch.start()
        threads = [threading.Thread(target=score, args=(index,)) for index in range(6)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        watch.stop.set()
        watch.join()
        pool.close()
    assert all(len(run.results) == 24 and all(r.ok for r in run.results) for run in runs.values())  # type: ignore[attr-defined]
    assert watch.most_in_use == 4
    assert watch.most_alive <= 4 + 1  # the places, and the pool's one idle spare (6 × 4 = 24 without the limit)
    assert limit.view().in_use == 0 and not limit.view().waiting


def test_a_run_started_later_gets_a_place_before_the_first_run_ends() -> None:
    limit = SandboxLimit(2)
    pool = WorkerPool(limit=limit, spares=0)
    finished: dict[str, float] = {}
    first_result: dict[str, float] = {}

    def score(name: str, count: int) -> None:
        def seen(result: object) -> None:
            first_result.setdefault(name, time.monotonic())

        score_cases(SLOW, cases(count, name), RunOptions(concurrency=2, pool=pool, on_result=seen))
        finished[name] = time.monotonic()

    try:
        long = threading.Thread(target=score, args=("long", 160))
        long.start()
        time.sleep(1.5)  # both of its sandboxes are busy by now
        short = threading.Thread(target=score, args=("short", 4))
        short.start()
        short.join(60)
        long.join(120)
    finally:
        pool.close()
    assert first_result["short"] < finished["long"]
    assert finished["short"] < finished["long"]


def test_a_check_waiting_for_a_place_is_cancelled_with_its_job() -> None:
    limit = SandboxLimit(1)
    pool = WorkerPool(limit=limit, spares=0)
    held = limit.acquire()
    cancel = threading.Event()
    errors: list[BaseException] = []

    def check() -> None:
        try:
            check_metric(SLOW, cases(3), RunOptions(pool=pool, cancel=cancel, stop_on_timeout=True))
        except BaseException as exc:  # noqa: BLE001  (the test looks at what was raised)
            errors.append(exc)

    try:
        thread = threading.Thread(target=check)
        thread.start()
        time.sleep(0.2)
        assert [item.run.label for item in limit.view().waiting] == [thread.name]
        cancel.set()
        thread.join(5)
    finally:
        held.release()
        pool.close()
    assert len(errors) == 1 and isinstance(errors[0], Cancelled)
