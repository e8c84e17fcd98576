"""No process of a metric outlives its run, and a case that breaks the runner's channel is the one blamed
(issue #21 items 9 and 10), at both isolation levels.
"""

from __future__ import annotations

import os
import secrets
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skynet_core.cases import Case
from skynet_core.results import CaseStatus, Isolation
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import WorkerPool, sandbox
from skynet_core.scoring.runner.run import score_cases
from skynet_core.scoring.runner.sandbox import detect_isolation

FULL_WORKS = detect_isolation()[0] is Isolation.FULL
LEVELS = [Isolation.REDUCED] + ([Isolation.FULL] if FULL_WORKS else [])
PROJECT = Path(__file__).resolve().parents[3]

DAEMON = textwrap.dedent("""
    import os

    def score(input, output, expected=None):
        started, starting = os.pipe2(os.O_CLOEXEC)
        if os.fork() == 0:  # the classic daemon: fork, a new session, fork again, the parent gone
            os.setsid()
            if os.fork() == 0:
                os.execv("/bin/sleep", ["sleep", input["token"]])
            os._exit(0)
        os.close(starting)
        os.read(started, 1)  # the end of the pipe: the daemon's copy closed when it became `sleep`
        os.wait()
        return 1.0, {"feedback": "a daemon was started"}
""")


def sleepers(token: str) -> list[int]:
    """Processes running ``sleep TOKEN``, the daemons the metric above starts."""
    found = []
    for name in os.listdir("/proc"):
        try:
            command = Path(f"/proc/{name}/cmdline").read_bytes()
        except OSError:
            continue
        if name.isdigit() and command == f"sleep\0{token}\0".encode():
            found.append(int(name))
    return found


@pytest.fixture
def token() -> Iterator[str]:
    """A unique ``sleep`` argument; any daemon left with it is killed after the test."""
    token = f"{4000 + secrets.randbelow(1000)}.{secrets.randbelow(10**6):06d}"
    yield token
    for pid in sleepers(token):
        os.kill(pid, signal.SIGKILL)


def survivors(token: str, wait_s: float = 5.0) -> list[int]:
    """The daemons still there after ``wait_s`` (killing is asynchronous)."""
    deadline = time.monotonic() + wait_s
    while (found := sleepers(token)) and time.monotonic() < deadline:
        time.sleep(0.05)
    return found


def score_daemon(isolation: Isolation, token: str) -> None:
    pool = WorkerPool(isolation=isolation, spares=0)
    try:
        seen: list[int] = []
        case = Case(id="a", input={"token": token}, output="x")
        run = score_cases(
            DAEMON, [case], RunOptions(timeout_s=30, pool=pool, on_result=lambda _: seen.extend(sleepers(token)))
        )
        assert run.by_status == {"ok": 1}, run.results
        assert seen, "the metric did not start its daemon"
    finally:
        pool.close()


@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_no_daemon_of_the_metric_survives_its_run(isolation, token):
    score_daemon(isolation, token)
    assert not survivors(token)


def test_no_daemon_survives_a_reduced_sandbox_without_a_pid_namespace(token, monkeypatch):
    # Where the launcher cannot have a PID namespace (the server is not root), it is the subreaper.
    monkeypatch.setattr(sandbox, "reduced_pid_namespace", lambda: False)
    score_daemon(Isolation.REDUCED, token)
    assert not survivors(token)


@pytest.mark.slow
@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_no_daemon_survives_the_command_line_even_when_it_is_killed(isolation, token, tmp_path):
    metric = tmp_path / "metric.py"
    metric.write_text(DAEMON)
    data = tmp_path / "cases.jsonl"
    data.write_text(f'{{"id": "a", "input": {{"token": "{token}"}}, "output": "x"}}\n')
    env = {**os.environ, "SKYNET_ISOLATION": isolation.value} if isolation is Isolation.REDUCED else dict(os.environ)
    command = [sys.executable, "-m", "skynet_core", "score", str(metric), "--data", str(data)]
    done = subprocess.run(command, cwd=PROJECT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert not survivors(token)
    # Killed outright, the command line cleans up nothing itself: the sandbox must notice it is gone.
    slow = tmp_path / "slow.py"
    slow.write_text(DAEMON.replace('return 1.0, {"feedback": "a daemon was started"}', "while True: pass"))
    cli = subprocess.Popen([*command[:4], str(slow), *command[5:]], cwd=PROJECT, env=env)
    try:
        deadline = time.monotonic() + 60
        while not sleepers(token) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert sleepers(token), "the metric did not start its daemon"
    finally:
        cli.kill()
        cli.wait()
    assert not survivors(token)


CHANNEL_BREAKERS = {
    "closes its requests": "os.close(int(sys.argv[1]))",
    "closes its replies": "os.close(int(sys.argv[2]))",
    "replaces its requests": "os.dup2(os.open(os.devnull, os.O_RDONLY), int(sys.argv[1]))",
}


@pytest.mark.parametrize("concurrency", [1, 2, 3])
@pytest.mark.parametrize("breaker", list(CHANNEL_BREAKERS), ids=lambda name: name.replace(" ", "-"))
@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_the_case_that_breaks_the_channel_fails_and_no_innocent_one(isolation, breaker, concurrency):
    source = textwrap.dedent(f"""
        import os, sys

        def score(input, output, expected=None):
            if input["n"] == 1:
                {CHANNEL_BREAKERS[breaker]}
            return 1.0, {{"feedback": "fine"}}
    """)
    cases = [Case(id=f"c{n:02d}", input={"n": n}, output="x") for n in range(12)]
    pool = WorkerPool(isolation=isolation, spares=0)
    try:
        run = score_cases(source, cases, RunOptions(timeout_s=20, pool=pool, concurrency=concurrency))
    finally:
        pool.close()
    assert [result.id for result in run.results] == [case.id for case in cases]
    culprit = run.results[1]
    assert culprit.status is CaseStatus.ERROR, culprit
    assert "closed or replaced the runner's channel" in culprit.error, culprit.error
    innocent = [(result.id, result.status, result.error) for result in run.results if result.id != "c01"]
    assert innocent == [(result.id, CaseStatus.OK, "") for result in run.results if result.id != "c01"]


@pytest.fixture
def crowded_runner() -> Iterator[None]:
    """The runner's process holding 300 more descriptors, as a long-lived studio server with many sessions does:
    the channel's pipes are then numbered above the sandbox's limit of open files (256)."""
    held = [os.open(os.devnull, os.O_RDONLY) for _ in range(300)]
    try:
        yield
    finally:
        for fd in held:
            os.close(fd)


@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_the_channel_is_at_3_4_and_5_however_many_descriptors_the_runner_holds(isolation, crowded_runner):
    """Where the metric finds the channel does not depend on the runner's descriptors: a child given the pipes at
    numbers above its limit of open files once could not be reached by a metric walking 3 to 255, and a
    ``dup2`` onto its request pipe failed as EBADF instead of breaking the channel."""
    source = textwrap.dedent(f"""
        import os, sys

        def score(input, output, expected=None):
            if input["n"] == 1:
                {CHANNEL_BREAKERS["replaces its requests"]}
            return 1.0, {{"feedback": " ".join(sys.argv[i] for i in (1, 2, 4))}}
    """)
    cases = [Case(id=f"c{n:02d}", input={"n": n}, output="x") for n in range(3)]
    pool = WorkerPool(isolation=isolation, spares=0)
    try:
        run = score_cases(source, cases, RunOptions(timeout_s=20, pool=pool))
    finally:
        pool.close()
    first, culprit, last = run.results
    assert (first.status, first.feedback) == (CaseStatus.OK, "3 4 5"), first
    assert "closed or replaced the runner's channel" in culprit.error, culprit.error
    assert last.status is CaseStatus.OK, last
