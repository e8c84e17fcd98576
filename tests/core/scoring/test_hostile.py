"""Hostile metrics: metric.py written to hang, crash, flood, escape, or steal, and the runner containing it.

Every test pins the same promises (issue 2, item 7):

- the call ends within its timeout plus a small margin;
- the case fails (``timeout``, ``error`` or ``invalid``) with a message a user can act on;
- the fake API key placed in this process's environment never appears in any result;
- no sandbox process is left behind (checked after every test, see ``guard``);
- the same pool then scores a good metric correctly (also in ``guard``).

One pool serves the whole module. It keeps no pre-started spares, so once a run
is over every sandbox process under this test process is a leftover.

Tests that only make sense when the sandbox hides the host (other processes,
the network, the project's files) are skipped under ``reduced`` isolation, with
the reason shown; the isolation level is printed (``-s``) and recorded as the
``isolation`` property of every test.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from skynet_core.cases import Case
from skynet_core.metric.contract import check_metric
from skynet_core.results import CaseResult, CaseStatus, CheckReport, Isolation, StageName, StageStatus
from skynet_core.scoring import RunOptions, ScoreRun
from skynet_core.scoring.runner import WorkerPool
from skynet_core.scoring.runner.run import score_cases
from skynet_core.scoring.runner.sandbox import SANDBOX_UID_MIN, SANDBOX_UID_SPAN

SECRET = "sk-test-SECRET-123"
HANG_S = 2.0  # timeout for the metrics that never finish on their own (and wait while they hang)
# Timeout for the metrics that spin (or flood) until stopped: each burns a core for all of it. The
# clock starts when the child starts the call (its progress page; the parent's own bound is the timeout and
# half a second after it sent the case), and these metrics reach their loop within a millisecond of CPU of
# that, with nothing to import or load first. On a machine loaded to 30 on 2 cores a runnable process still
# gets about a fifteenth of a core, some 65 ms of CPU a second: 1 s leaves a margin of more than fifty times.
SPIN_S = 1.0
WORK_S = 10.0  # timeout for the others: room for a busy machine, and they end long before it
MARGIN_S = 3.0


def is_sandbox_uid(uid: int) -> bool:
    """The uids sandboxes run as: their own range as root, nobody otherwise."""
    return uid == 65534 or SANDBOX_UID_MIN <= uid < SANDBOX_UID_MIN + SANDBOX_UID_SPAN


SLEEPER = "sleep 1000"
HUGE_FILE = "/tmp/skynet-hostile-1gb.bin"
PROJECT_ROOT = Path(__file__).resolve().parents[3]

CASE = Case(id="case-1", input={"question": "What is 2+2?"}, output="4", expected={"label": "4"})
GOOD_METRIC = """
def score(input, output, expected=None):
    if output == expected["label"]:
        return 1.0, {"feedback": "Correct."}
    return 0.0, {"feedback": f"Expected {expected['label']!r}, got {output!r}."}
"""


def metric(body: str) -> str:
    return textwrap.dedent(body).lstrip("\n")


def line_of(source: str, text: str) -> int:
    """The metric.py line holding ``text`` (1-based), so assertions survive edits to the sources."""
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)


# -- the processes a run may leave behind ---------------------------------------------------------


def _process_table() -> dict[int, tuple[int, int, str]]:
    """pid -> (parent pid, real uid, command line) for every process we can read."""
    table: dict[int, tuple[int, int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            status = Path(f"/proc/{name}/status").read_text()
            command = Path(f"/proc/{name}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8", "replace")
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        table[int(name)] = (int(fields["PPid"]), int(fields["Uid"].split()[0]), command.strip())
    return table


def _descendants(table: dict[int, tuple[int, int, str]], root: int, known: set[int] = frozenset()) -> set[int]:
    """Processes under ``root``, not looking below the ``known`` ones: processes that were already
    running before the test (a browser or app server of other tests in this session) may start
    children of their own at any time, and those are not the hostile metric's."""
    children: dict[int, list[int]] = {}
    for pid, (ppid, _, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                if child not in known:
                    todo.append(child)
    return found


def _suspects(table: dict[int, tuple[int, int, str]], known: set[int] = frozenset()) -> set[int]:
    """Processes a hostile metric may have left: anything still under this test process (the pool
    keeps no spares; below ``known`` processes is not looked at), orphaned sandbox-user processes,
    and the sleepers the metrics start."""
    orphans = {pid for pid, (ppid, uid, _) in table.items() if is_sandbox_uid(uid) and ppid in (0, 1)}
    sleepers = {pid for pid, (_, _, command) in table.items() if command == SLEEPER}
    return _descendants(table, os.getpid(), known) | orphans | sleepers


def leftovers(before: set[int], wait_s: float = 5.0) -> list[str]:
    """Suspects that appeared since ``before`` and are still there after ``wait_s`` (kills are asynchronous).

    Sandbox-user processes of other test sessions on this machine are not ours
    and are ignored unless orphaned.
    """
    deadline = time.monotonic() + wait_s
    while True:
        table = _process_table()
        new = _suspects(table, before) - before
        if not new or time.monotonic() >= deadline:
            return [f"pid {pid} uid {table[pid][1]}: {table[pid][2]!r}" for pid in sorted(new) if pid in table]
        time.sleep(0.05)


# -- fixtures -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def pool() -> Iterator[WorkerPool]:
    """One pool for the module, created with a fake API key in this process's environment."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("OPENAI_API_KEY", SECRET)
        patch.setenv("SKYNET_METRIC_API_KEY", SECRET)
        runner_pool = WorkerPool(spares=0)
        print(f"\nhostile metrics run with isolation: {runner_pool.isolation.value} ({runner_pool.isolation_reason})")
        yield runner_pool
        runner_pool.close()


@pytest.fixture(autouse=True)
def guard(pool: WorkerPool, record_property) -> Iterator[None]:
    """After every hostile metric: nothing left running, and the same pool still scores a good metric."""
    record_property("isolation", pool.isolation.value)
    before = _suspects(_process_table())
    yield
    run = score_cases(GOOD_METRIC, [CASE], RunOptions(timeout_s=WORK_S, pool=pool))
    assert [(r.status, r.score, r.feedback) for r in run.results] == [(CaseStatus.OK, 1.0, "Correct.")], (
        f"the runner could not score a good metric after the hostile one: {run.results}"
    )
    left = leftovers(before)
    assert not left, f"processes left behind by the hostile metric: {left}"


@pytest.fixture
def full_isolation(pool: WorkerPool) -> None:
    if pool.isolation is not Isolation.FULL:
        pytest.skip(f"needs full isolation (bubblewrap); this run has {pool.isolation.value}: {pool.isolation_reason}")


@pytest.fixture
def secret_holder() -> Iterator[int]:
    """A process whose real (exec-time) environment holds the key, as a server's would; yields its pid."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import time; time.sleep(60)"], env={**os.environ, "OPENAI_API_KEY": SECRET}
    )
    yield holder.pid
    holder.kill()
    holder.wait()


# -- running a hostile metric ---------------------------------------------------------------------


def assert_no_secret(value: object) -> None:
    text = json.dumps(value, default=str)
    assert SECRET not in text, f"the fake API key leaked into a result: {text[:2000]}"


def score_hostile(pool: WorkerPool, source: str, timeout: float = WORK_S, cases: list[Case] | None = None) -> ScoreRun:
    # A runner bug must fail the test, not hang it: cancel well after the margin.
    cancel = threading.Event()
    backstop = threading.Timer(timeout + MARGIN_S + 5.0, cancel.set)
    backstop.start()
    began = time.monotonic()
    try:
        run = score_cases(source, cases or [CASE], RunOptions(timeout_s=timeout, pool=pool, cancel=cancel))
    finally:
        backstop.cancel()
    elapsed = time.monotonic() - began
    assert not run.cancelled, f"the run did not end by itself within {timeout + MARGIN_S + 5.0:g} s"
    assert elapsed < timeout + MARGIN_S, f"the run took {elapsed:.1f} s with a {timeout:g} s timeout"
    assert_no_secret([result.to_json() for result in run.results])
    return run


def score_one(pool: WorkerPool, source: str, timeout: float = WORK_S) -> CaseResult:
    [result] = score_hostile(pool, source, timeout).results
    return result


def check_hostile(pool: WorkerPool, source: str, timeout: float = WORK_S) -> CheckReport:
    began = time.monotonic()
    report = check_metric(source, [CASE], RunOptions(timeout_s=timeout, pool=pool, stop_on_timeout=True), sample=[CASE])
    elapsed = time.monotonic() - began
    assert elapsed < timeout + MARGIN_S, f"the check took {elapsed:.1f} s with a {timeout:g} s timeout"
    assert_no_secret(report.to_json())
    return report


def assert_timed_out(result: CaseResult, *lines: int, timeout: float = HANG_S) -> None:
    """A timeout with the words a user reads; when ``lines`` are given, stuck at one of them
    (a loop may be reported at its ``while`` or at its body)."""
    # The error in the message whole: pytest shortens a result's repr in its middle, where the error is.
    assert result.status is CaseStatus.TIMEOUT, f"{result.status.value}, line {result.line}: {result.error}"
    assert f"did not finish within {timeout:g} s" in result.error
    assert "it was stopped" in result.error
    if lines:
        assert result.line in lines, result.error
        assert f"stuck at metric.py line {result.line}" in result.error


def assert_failed(result: CaseResult, status: CaseStatus, *words: str) -> None:
    assert result.status is status, result
    assert result.score is None
    for word in words:
        assert word.lower() in result.error.lower(), f"{word!r} not in error: {result.error!r}"


def everything_said(result: CaseResult) -> str:
    """All the text a result shows a user."""
    return json.dumps(result.to_json(), default=str)


# -- endless work ---------------------------------------------------------------------------------


def test_endless_loop_is_stopped_at_the_timeout_with_its_line(pool):
    source = metric("""
        def score(input, output, expected=None):
            while True:
                pass
    """)
    assert_timed_out(score_one(pool, source, SPIN_S), line_of(source, "while"), line_of(source, "pass"), timeout=SPIN_S)


def test_loop_that_swallows_base_exception_is_still_stopped(pool):
    source = metric("""
        def score(input, output, expected=None):
            while True:
                try:
                    while True:
                        pass
                except BaseException:
                    continue
    """)
    assert_timed_out(
        score_one(pool, source, SPIN_S),
        *range(line_of(source, "while"), line_of(source, "continue") + 1),
        timeout=SPIN_S,
    )


def test_loop_that_ignores_signals_is_still_stopped(pool):
    source = metric("""
        import faulthandler
        import signal

        def score(input, output, expected=None):
            for number in (signal.SIGTERM, signal.SIGUSR1, signal.SIGINT, signal.SIGHUP, signal.SIGALRM):
                signal.signal(number, signal.SIG_IGN)
            faulthandler.unregister(signal.SIGUSR1)
            while True:
                pass
    """)
    # With the stack dump refused the line is unknown, but the message still says what happened.
    assert_timed_out(score_one(pool, source, SPIN_S), timeout=SPIN_S)


def test_hang_at_import_fails_the_load_stage_with_its_line(pool):
    source = metric("""
        import time

        while True:
            time.sleep(0.01)

        def score(input, output, expected=None):
            return 1.0, {"feedback": "never loaded"}
    """)
    report = check_hostile(pool, source, HANG_S)
    load = report.stage(StageName.LOAD)
    assert load.status is StageStatus.FAILED
    assert f"loading metric.py did not finish within {HANG_S:g} s" in load.message
    assert load.line == line_of(source, "time.sleep")
    assert report.stage(StageName.RETURN_VALUE).status is StageStatus.NOT_RUN


def test_catastrophic_regex_is_stopped_inside_the_regex_engine(pool):
    source = metric("""
        import re

        def score(input, output, expected=None):
            matched = re.match(r"(a+)+$", "a" * 40 + "b")
            return float(bool(matched)), {"feedback": "regex done"}
    """)
    assert_timed_out(score_one(pool, source, SPIN_S), line_of(source, "re.match"), timeout=SPIN_S)


def test_reading_the_runner_request_channel_just_times_out(pool):
    source = metric("""
        import os

        def score(input, output, expected=None):
            stolen = []
            for fd in range(3, 256):  # the runner's fds may have any number below the 256 limit
                try:
                    os.set_blocking(fd, True)
                    stolen.append(os.read(fd, 1 << 16))
                except OSError:
                    pass
            return 1.0, {"feedback": repr(stolen)}
    """)
    assert_timed_out(score_one(pool, source, HANG_S), line_of(source, "os.read"))


def test_rewritten_progress_page_cannot_stretch_the_timeout(pool):
    # The page where the child tells the parent which call runs since when lives in the child's
    # memory. Claiming "idle" while calling llm() (each call a message to the parent) must not
    # keep the run alive past the timeout.
    source = metric("""
        import gc
        import struct
        import threading
        import time

        from skynet import llm

        def claim_idle(page):
            while True:
                struct.pack_into("qq", page, 0, -1, 0)
                time.sleep(0.005)

        def score(input, output, expected=None):
            page = next(obj.page for obj in gc.get_objects() if type(obj).__name__ == "Progress")
            threading.Thread(target=claim_idle, args=(page,), daemon=True).start()
            while True:
                time.sleep(0.2)
                try:
                    llm("keep the runner waiting")
                except Exception:
                    pass
    """)
    assert_timed_out(score_one(pool, source, HANG_S))


# -- memory ---------------------------------------------------------------------------------------


def test_huge_bytearray_fails_with_a_memory_error(pool):
    source = metric("""
        def score(input, output, expected=None):
            data = bytearray(10**11)
            return 1.0, {"feedback": str(len(data))}
    """)
    result = score_one(pool, source)
    assert_failed(result, CaseStatus.ERROR, "out of memory", "2 GiB", "metric.py line 2")
    assert result.line == 2


def test_list_growing_forever_fails_with_a_memory_error(pool):
    source = metric("""
        def score(input, output, expected=None):
            chunks = []
            while True:
                chunks.append(bytes(10**8))
    """)
    result = score_one(pool, source)
    assert_failed(result, CaseStatus.ERROR, "out of memory", "use less memory")
    assert result.line == line_of(source, "chunks.append")


# -- output floods --------------------------------------------------------------------------------


def test_print_flood_for_the_whole_timeout_is_stopped(pool):
    source = metric("""
        def score(input, output, expected=None):
            while True:
                print("flood " * 200)
    """)
    result = score_one(pool, source, SPIN_S)
    assert_timed_out(result, timeout=SPIN_S)
    assert len(result.stdout) < 20_000


def test_raw_writes_to_stdout_and_stderr_for_the_whole_timeout_are_stopped(pool):
    source = metric("""
        import os

        def score(input, output, expected=None):
            block = b"raw flood " * 10_000
            while True:
                os.write(1, block)
                os.write(2, block)
    """)
    result = score_one(pool, source, SPIN_S)
    assert_timed_out(result, timeout=SPIN_S)
    assert len(result.error) < 2_000


def test_one_print_of_200_mb_is_kept_as_head_and_tail(pool):
    source = metric("""
        def score(input, output, expected=None):
            print("h" * 1000 + "x" * 200_000_000 + "t" * 1000)
            return 1.0, {"feedback": "printed"}
    """)
    result = score_one(pool, source)
    assert result.status is CaseStatus.OK, result
    assert result.stdout.startswith("h" * 1000)
    assert result.stdout.rstrip("\n").endswith("t" * 1000)
    assert "characters of output left out" in result.stdout
    assert len(result.stdout) < 20_000


# -- exits and crashes ----------------------------------------------------------------------------


def test_sys_exit_in_score_fails_the_case_with_a_hint(pool):
    source = metric("""
        import sys

        def score(input, output, expected=None):
            sys.exit(3)
    """)
    result = score_one(pool, source)
    assert_failed(result, CaseStatus.ERROR, "sys.exit(3)", "return a score instead of exiting")
    assert result.line == line_of(source, "sys.exit")


def test_sys_exit_at_import_fails_the_load_stage(pool):
    source = metric("""
        import sys

        sys.exit(3)

        def score(input, output, expected=None):
            return 1.0, {"feedback": "never loaded"}
    """)
    report = check_hostile(pool, source)
    load = report.stage(StageName.LOAD)
    assert load.status is StageStatus.FAILED
    assert "sys.exit(3)" in load.message
    assert "while loading" in load.message
    assert load.line == line_of(source, "sys.exit")


def test_os_exit_fails_the_case_and_names_the_likely_cause(pool):
    source = metric("""
        import os

        def score(input, output, expected=None):
            os._exit(0)
    """)
    assert_failed(score_one(pool, source), CaseStatus.ERROR, "the metric's process exited", "os._exit")


def test_segfault_fails_the_case_with_its_line(pool):
    source = metric("""
        import ctypes

        def score(input, output, expected=None):
            ctypes.string_at(0)
            return 1.0, {"feedback": "unreachable"}
    """)
    result = score_one(pool, source)
    assert_failed(result, CaseStatus.ERROR, "segmentation fault")
    assert "sys.exit" not in result.error
    assert result.line == line_of(source, "string_at")


def test_recursion_error_names_the_fix(pool):
    source = metric("""
        def score(input, output, expected=None):
            return score(input, output, expected)
    """)
    result = score_one(pool, source)
    assert_failed(result, CaseStatus.ERROR, "RecursionError", "make it iterative or bound the depth")
    assert result.line == 2


def test_c_stack_overflow_after_raising_the_recursion_limit_fails_the_case(pool):
    source = metric("""
        import sys

        sys.setrecursionlimit(10**6)

        def dive(depth):
            return dive.__call__(depth + 1)

        def score(input, output, expected=None):
            return dive(0)
    """)
    result = score_one(pool, source)
    assert_failed(result, CaseStatus.ERROR, "segmentation fault", "recursion")
    # The crash can land while a call to dive is being set up, which reports its def line.
    assert result.line in (line_of(source, "def dive"), line_of(source, "dive.__call__"))


def test_crash_in_one_case_leaves_the_other_cases_scored(pool):
    source = metric("""
        import ctypes

        def score(input, output, expected=None):
            if input["question"] == "crash":
                ctypes.string_at(0)
            return 1.0, {"feedback": "fine"}
    """)
    cases = [
        Case(id="a", input={"question": "x"}, output="1"),
        Case(id="b", input={"question": "crash"}, output="1"),
        Case(id="c", input={"question": "y"}, output="1"),
    ]
    run = score_hostile(pool, source, cases=cases)
    assert [(r.id, r.status) for r in run.results] == [
        ("a", CaseStatus.OK),
        ("b", CaseStatus.ERROR),
        ("c", CaseStatus.OK),
    ]
    assert "segmentation fault" in run.results[1].error.lower()


# -- secrets --------------------------------------------------------------------------------------


def test_environment_holds_no_api_key(pool):
    source = metric("""
        import os

        def score(input, output, expected=None):
            return 0.0, {"feedback": repr(dict(os.environ)), "names": sorted(os.environ)}
    """)
    result = score_one(pool, source)
    assert result.status is CaseStatus.OK, result
    assert "OPENAI_API_KEY" not in result.extra["names"]
    assert not [name for name in result.extra["names"] if "KEY" in name or "TOKEN" in name]


def test_own_proc_environ_holds_no_api_key(pool):
    source = metric("""
        def score(input, output, expected=None):
            with open("/proc/self/environ", "rb") as handle:
                return 0.0, {"feedback": handle.read().decode("utf-8", "replace")}
    """)
    result = score_one(pool, source)
    assert result.status is CaseStatus.OK, result
    assert "PATH=" in result.feedback
    assert "OPENAI_API_KEY" not in result.feedback


PROC_READER = """
import glob
import os


def grab(path):
    try:
        with open(path, "rb") as handle:
            return handle.read().decode("utf-8", "replace")
    except OSError as exc:
        return f"unreadable: {exc!r}"


def score(input, output, expected=None):
    seen = {path: grab(path)[:20_000] for path in PATHS}
    found = [path for path, text in seen.items() if "sk-test" in text]
    return 0.0, {"feedback": f"read {len(seen)} files", "seen": seen, "found": found}
"""


def read_proc(pool: WorkerPool, paths_expression: str) -> dict[str, str]:
    """What the metric read from each path (or why it could not)."""
    result = score_one(pool, PROC_READER.replace("PATHS", paths_expression))
    assert result.status is CaseStatus.OK, result
    assert result.extra["found"] == []
    return result.extra["seen"]


def test_proc_1_environ_is_unreadable(pool, full_isolation):
    seen = read_proc(pool, '["/proc/1/environ"]')
    assert seen["/proc/1/environ"].startswith("unreadable: PermissionError")


def test_parent_proc_environ_is_unreadable(pool, full_isolation):
    [(path, text)] = read_proc(pool, '[f"/proc/{os.getppid()}/environ"]').items()
    assert text.startswith("unreadable"), (path, text)


def test_scanning_every_proc_environ_finds_no_key(pool, full_isolation, secret_holder):
    # The holder's real environment has the key; its host pid and this process's must be out of reach.
    holder, caller = f"/proc/{secret_holder}/environ", f"/proc/{os.getpid()}/environ"
    seen = read_proc(pool, f'glob.glob("/proc/*/environ") + ["{holder}", "{caller}"]')
    assert len(seen) >= 3
    assert seen[holder].startswith("unreadable") and seen[caller].startswith("unreadable")


# -- the parent and other processes ---------------------------------------------------------------


def test_killing_the_parent_fails_the_case_and_the_caller_survives(pool, full_isolation):
    source = metric("""
        import os

        def score(input, output, expected=None):
            os.kill(os.getppid(), 9)
            return 1.0, {"feedback": "the parent was killed"}
    """)
    assert_failed(score_one(pool, source), CaseStatus.ERROR, "PermissionError", "metric.py line 4")
    os.kill(os.getpid(), 0)


def test_killing_every_process_reaches_nothing_outside(pool, full_isolation):
    source = metric("""
        import os

        def score(input, output, expected=None):
            os.kill(-1, 9)
            return 1.0, {"feedback": "everything was killed"}
    """)
    assert_failed(score_one(pool, source), CaseStatus.ERROR, "metric.py line 4")
    os.kill(os.getpid(), 0)


def test_killing_its_own_process_group_fails_the_case(pool, full_isolation):
    source = metric("""
        import os

        def score(input, output, expected=None):
            os.killpg(0, 9)
            return 1.0, {"feedback": "the group was killed"}
    """)
    assert_failed(score_one(pool, source), CaseStatus.ERROR, "the metric's process exited", "SIGKILL")
    os.kill(os.getpid(), 0)


def test_orphaned_subprocess_is_killed_with_the_sandbox(pool):
    source = metric("""
        import subprocess

        def score(input, output, expected=None):
            subprocess.Popen(["sleep", "1000"])
            return 1.0, {"feedback": "a sleeper is left behind"}
    """)
    result = score_one(pool, source)
    assert result.status is CaseStatus.OK, result
    # ``guard`` asserts that no ``sleep 1000`` outlives the run.


def test_double_forked_setsid_daemon_is_killed_with_the_sandbox(pool, full_isolation):
    source = metric("""
        import os
        import time

        def score(input, output, expected=None):
            if os.fork() == 0:
                os.setsid()
                if os.fork() == 0:
                    os.execvp("sleep", ["sleep", "1000"])
                os._exit(0)
            time.sleep(0.2)
            return 1.0, {"feedback": "a daemon escaped"}
    """)
    result = score_one(pool, source)
    assert result.status is CaseStatus.OK, result


def storm_under_way(within: float) -> bool:
    """Whether, within ``within`` seconds, one sandbox uid runs half the processes its cap (``Limits.processes``)
    allows: the storm is under way (it reaches the cap in a fraction of a second more, and stays there)."""
    from collections import Counter

    from skynet_core.scoring.runner.sandbox import Limits

    sandbox_uids = range(SANDBOX_UID_MIN, SANDBOX_UID_MIN + SANDBOX_UID_SPAN)
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        owners: Counter[int] = Counter()
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                try:
                    owner = entry.stat().st_uid
                except OSError:
                    continue
                if owner in sandbox_uids:
                    owners[owner] += 1
        if owners and max(owners.values()) >= Limits().processes // 2:
            return True
        time.sleep(0.02)
    return False


def test_fork_storm_is_capped_and_stopped(pool, full_isolation):
    source = metric("""
        import os

        def score(input, output, expected=None):
            while True:
                try:
                    os.fork()
                except OSError:
                    pass
    """)
    # Each sandbox runs as its own uid, so the process limit caps the storm's sandbox alone:
    # another sandbox starts and scores while the storm is at its height. (Not SPIN_S: a storm
    # takes more than a second to build on a loaded machine.)
    storm_pool = WorkerPool(spares=0)
    other_pool = WorkerPool(spares=0)
    try:
        stormed: list[CaseResult] = []
        storm = threading.Thread(target=lambda: stormed.append(score_one(storm_pool, source, timeout=2.0)))
        storm.start()
        # The other sandbox starts once the storm is under way, however long a loaded machine takes to start it (a
        # fixed pause let it start before the storm had, proving nothing).
        assert storm_under_way(within=5.0), "the storm never reached half its process cap"
        during = score_cases(GOOD_METRIC, [CASE], RunOptions(timeout_s=WORK_S, pool=other_pool))
        storm.join()
        assert [r.status for r in during.results] == [CaseStatus.OK], during.results
        assert_timed_out(stormed[0], timeout=2.0)
        good = score_cases(GOOD_METRIC, [CASE], RunOptions(timeout_s=WORK_S, pool=storm_pool))
        assert [r.status for r in good.results] == [CaseStatus.OK], good.results
    finally:
        storm_pool.close()
        other_pool.close()


# -- network --------------------------------------------------------------------------------------


CONNECT = """
import socket


def score(input, output, expected=None):
    try:
        with socket.create_connection((HOST, PORT), timeout=1) as conn:
            conn.sendall(b"stolen data")
    except OSError as exc:
        return 0.0, {"feedback": f"connection failed: {exc!r}"}
    return 1.0, {"feedback": "connected"}
"""


def test_connection_to_a_local_listener_fails(pool, full_isolation):
    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        listener.setblocking(False)
        port = listener.getsockname()[1]
        result = score_one(pool, CONNECT.replace("HOST", '"127.0.0.1"').replace("PORT", str(port)))
        with pytest.raises(BlockingIOError):
            listener.accept()
    assert result.status is CaseStatus.OK, result
    assert result.feedback.startswith("connection failed")


def test_connection_to_an_outside_host_fails_at_once(pool, full_isolation):
    # The sandbox's network namespace is empty, so nothing leaves this machine.
    result = score_one(pool, CONNECT.replace("HOST", '"1.1.1.1"').replace("PORT", "80"))
    assert result.status is CaseStatus.OK, result
    assert "Network is unreachable" in result.feedback


# -- the runner's file descriptors and streams ----------------------------------------------------


def test_garbage_written_to_every_inherited_fd_fails_the_case(pool):
    source = metric("""
        import os

        def score(input, output, expected=None):
            for fd in range(3, 256):  # the runner's fds may have any number below the 256 limit
                try:
                    os.write(fd, b"garbage\\n{not json}\\n")
                except OSError:
                    pass
            return 1.0, {"feedback": "wrote garbage"}
    """)
    assert_failed(score_one(pool, source), CaseStatus.ERROR, "private channel", "print()")


def test_closing_every_fd_fails_the_case(pool):
    source = metric("""
        import os

        def score(input, output, expected=None):
            for fd in range(256):
                try:
                    os.close(fd)
                except OSError:
                    pass
            return 1.0, {"feedback": "closed everything"}
    """)
    assert_failed(score_one(pool, source), CaseStatus.ERROR, "closed or replaced the runner's channel")


def test_reading_stdin_gets_nothing_and_does_not_block(pool):
    source = metric("""
        import sys

        def score(input, output, expected=None):
            return 0.0, {"feedback": repr(sys.stdin.read())}
    """)
    result = score_one(pool, source)
    assert (result.status, result.feedback) == (CaseStatus.OK, "''")


def test_non_daemon_thread_that_never_ends_does_not_hold_the_run(pool):
    source = metric("""
        import threading

        def spin():
            while True:
                pass

        def score(input, output, expected=None):
            threading.Thread(target=spin).start()
            return 1.0, {"feedback": "a thread spins forever"}
    """)
    run = score_hostile(pool, source, cases=[CASE, CASE])
    assert [result.status for result in run.results] == [CaseStatus.OK, CaseStatus.OK]


def test_atexit_handler_that_hangs_does_not_hold_the_run(pool):
    source = metric("""
        import atexit
        import sys
        import time

        @atexit.register
        def hang():
            while True:
                time.sleep(1)

        def score(input, output, expected=None):
            sys.exit(0)
    """)
    assert_failed(score_one(pool, source), CaseStatus.ERROR, "sys.exit(0)")


# -- what comes back ------------------------------------------------------------------------------


def test_returned_object_with_reduce_is_never_unpickled(pool, tmp_path):
    marker = tmp_path / "unpickled"
    source = metric(f"""
        import os

        class Payload:
            def __reduce__(self):
                return (os.system, ("touch {marker}",))

        def score(input, output, expected=None):
            return 1.0, {{"feedback": "ok", "payload": Payload()}}
    """)
    result = score_one(pool, source)
    assert result.status in (CaseStatus.OK, CaseStatus.INVALID), result
    if result.status is CaseStatus.OK:
        assert isinstance(result.extra["payload"], str)
    assert not marker.exists()


def test_huge_file_is_stopped_by_the_file_size_limit(pool):
    source = metric(f"""
        def score(input, output, expected=None):
            with open("{HUGE_FILE}", "wb") as handle:
                for _ in range(1024):
                    handle.write(b"x" * (1 << 20))
            return 1.0, {{"feedback": "wrote 1 GB"}}
    """)
    try:
        result = score_one(pool, source)
    finally:
        if pool.isolation is Isolation.REDUCED:
            Path(HUGE_FILE).unlink(missing_ok=True)
    assert_failed(result, CaseStatus.ERROR, "File too large")
    assert result.line == line_of(source, "handle.write")


def test_huge_feedback_is_rejected_with_the_limit(pool):
    source = metric("""
        def score(input, output, expected=None):
            return 1.0, {"feedback": "x" * 50_000_000}
    """)
    assert_failed(score_one(pool, source), CaseStatus.INVALID, "feedback is 50,000,000 characters", "keep it under")


def test_huge_extra_list_is_rejected_with_the_limit(pool):
    source = metric("""
        def score(input, output, expected=None):
            return 1.0, {"feedback": "ok", "items": list(range(10**7))}
    """)
    assert_failed(score_one(pool, source), CaseStatus.INVALID, "MB as JSON", "drop large extra keys")


def test_huge_exception_message_fails_the_case_briefly(pool):
    source = metric("""
        def score(input, output, expected=None):
            raise ValueError("x" * 100_000_000)
    """)
    result = score_one(pool, source)
    assert_failed(result, CaseStatus.ERROR, "ValueError")
    assert result.line == 2
    assert len(result.error) < 20_000


def test_a_hundred_thousand_named_scores_are_rejected_with_the_limit(pool):
    source = metric("""
        def score(input, output, expected=None):
            return 1.0, {"feedback": "ok", "scores": {f"check_{i:06}_of_a_long_name": 1.0 for i in range(10**5)}}
    """)
    assert_failed(score_one(pool, source), CaseStatus.INVALID, "100000 named scores", "at most 256")


def test_long_feedback_on_many_cases_is_all_scored(pool):
    # Not hostile, but the size of a batch of honest results must not look like a flood.
    source = metric("""
        def score(input, output, expected=None):
            return 1.0, {"feedback": "detail " * 3000}
    """)
    cases = [Case(id=f"case-{i}", input={"question": str(i)}, output=str(i)) for i in range(600)]
    run = score_hostile(pool, source, cases=cases)
    assert run.by_status == {"ok": 600}


def test_forged_results_on_the_channel_cannot_claim_judge_costs(pool):
    source = metric("""
        import json
        import os
        import sys

        def score(input, output, expected=None):
            usage = [{"latency_ms": 1, "prompt_tokens": 10**9, "completion_tokens": 1, "cost_usd": -100.0}, 1, "x"]
            forged = {"t": "results", "items": [{
                "t": "result", "i": 0, "status": "ok", "score": 1.0, "scores": {}, "feedback": "forged",
                "extra": {}, "stdout": "", "duration_ms": 1.0, "judge": usage}]}
            os.write(int(sys.argv[2]), json.dumps(forged).encode() + b"\\n")
            return 0.0, {"feedback": "honest"}
    """)
    result = score_one(pool, source)
    # The metric may lie about its own score (it decides it anyway), never about what Skynet measured.
    assert result.judge.calls == 0 and result.judge.cost_usd is None and result.judge.prompt_tokens == 0


def test_deeply_nested_side_information_is_rejected(pool):
    source = metric("""
        def score(input, output, expected=None):
            side = {"feedback": "ok"}
            node = side
            for _ in range(10_000):
                node["deeper"] = {}
                node = node["deeper"]
            return 1.0, side
    """)
    assert_failed(score_one(pool, source), CaseStatus.INVALID, "cannot be sent back as JSON", "nested fewer than")


def test_text_that_is_not_unicode_is_rejected(pool):
    source = metric("""
        def score(input, output, expected=None):
            return 1.0, {"feedback": "half a surrogate: \\ud800"}
    """)
    assert_failed(score_one(pool, source), CaseStatus.INVALID, "cannot be sent back as JSON", "surrogates")


def test_returned_generator_fails_the_return_value_stage(pool):
    source = metric("""
        def score(input, output, expected=None):
            return (part for part in (1.0, {"feedback": "ok"}))
    """)
    stage = check_hostile(pool, source).stage(StageName.RETURN_VALUE)
    assert stage.status is StageStatus.FAILED
    assert stage.case_id == CASE.id
    assert "score returned a generator" in stage.message
    assert "stray `yield`" in stage.message


def test_returned_coroutine_fails_the_return_value_stage(pool):
    source = metric("""
        async def judge(output):
            return 1.0, {"feedback": "ok"}

        def score(input, output, expected=None):
            return judge(output)
    """)
    stage = check_hostile(pool, source).stage(StageName.RETURN_VALUE)
    assert stage.status is StageStatus.FAILED
    assert "score returned a coroutine" in stage.message
    assert "use a plain `def`" in stage.message


# -- tampering with the child's own machinery -----------------------------------------------------


def test_monkeypatched_builtins_cannot_pass_a_bad_value(pool):
    source = metric("""
        import builtins

        def score(input, output, expected=None):
            builtins.isinstance = lambda *args: True
            builtins.len = lambda *args: 2
            builtins.print = lambda *args, **kwargs: None
            return "high", "praise"
    """)
    result = score_one(pool, source)
    assert result.status in (CaseStatus.INVALID, CaseStatus.ERROR), result
    assert result.error


def test_monkeypatched_json_cannot_forge_a_reply(pool):
    source = metric("""
        import json

        import orjson

        def score(input, output, expected=None):
            json.dumps = lambda *args, **kwargs: "garbage"
            json.loads = lambda *args, **kwargs: {}
            orjson.dumps = lambda *args, **kwargs: b"garbage"
            return 0.0, {"feedback": "honest"}
    """)
    result = score_one(pool, source)
    assert_failed(result, CaseStatus.ERROR, "private channel")
    assert json.dumps({"a": 1}) == '{"a": 1}'


# -- files ----------------------------------------------------------------------------------------


FILE_READER = """
import os


def grab(path):
    try:
        if os.path.isdir(path):
            return sorted(os.listdir(path))
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()[:2000]
    except OSError as exc:
        return f"unreadable: {exc!r}"


def score(input, output, expected=None):
    seen = {path: grab(path) for path in PATHS}
    return 0.0, {"feedback": "looked around", "seen": seen}
"""


def test_project_files_are_out_of_reach(pool, full_isolation):
    targets = [
        str(PROJECT_ROOT / name)
        for name in (
            "README.md",
            "pyproject.toml",
            "skynet_core/metric/contract.py",
            "tests/core/scoring/test_hostile.py",
        )
    ]
    result = score_one(pool, FILE_READER.replace("PATHS", repr(targets + [str(PROJECT_ROOT)])))
    assert result.status is CaseStatus.OK, result
    seen = result.extra["seen"]
    for target in targets:
        assert seen[target].startswith("unreadable: FileNotFoundError"), (target, seen[target])
    listing = seen[str(PROJECT_ROOT)]  # at most the Python installation when it lives in the project
    assert isinstance(listing, str) or not {"skynet_core", "tests", "pyproject.toml"} & set(listing), listing
    assert "skynet-metric-studio" not in everything_said(result)


def test_system_files_are_out_of_reach(pool, full_isolation):
    result = score_one(
        pool,
        FILE_READER.replace("PATHS", repr(["/etc/passwd", "/etc/shadow", "/root/.bash_history", "/home", "/var/log"])),
    )
    assert result.status is CaseStatus.OK, result
    for path, seen in result.extra["seen"].items():
        assert str(seen).startswith("unreadable: FileNotFoundError"), (path, seen)
