"""Memory no process maps is still the sandbox's (issue #21 item 6): SysV shared memory and socket buffers.

Detached SysV segments and bytes queued in sockets belong to the kernel, not to any process's
``Pss``. Each test uses a pool with a small limit so it proves its point with a few hundred MiB,
at both isolation levels, and removes any segment it made in the host's IPC namespace.
"""

from __future__ import annotations

import os
import subprocess
import textwrap
from collections.abc import Iterator

import pytest

from skynet_core.cases import Case
from skynet_core.results import CaseResult, CaseStatus, Isolation
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import Limits, WorkerPool
from skynet_core.scoring.runner.run import score_cases
from skynet_core.scoring.runner.sandbox import detect_isolation

MIB = 1 << 20
LEVELS = [Isolation.REDUCED] + ([Isolation.FULL] if detect_isolation()[0] is Isolation.FULL else [])

SYSV = textwrap.dedent("""
    import ctypes, time

    libc = ctypes.CDLL(None, use_errno=True)
    libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
    libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
    libc.shmat.restype = ctypes.c_void_p
    libc.shmdt.argtypes = [ctypes.c_void_p]
    IPC_PRIVATE, IPC_CREAT = 0, 0o1000

    def score(input, output, expected=None):
        size = input["mib"] << 20
        for made in range(input["segments"]):
            shmid = libc.shmget(IPC_PRIVATE, size, IPC_CREAT | 0o600)
            if shmid < 0:
                return 0.0, {"feedback": f"shmget refused segment {made + 1}: errno {ctypes.get_errno()}"}
            address = libc.shmat(shmid, None, 0)
            ctypes.memset(address, 1, size)  # resident, then detached: no process maps it any more
            libc.shmdt(ctypes.c_void_p(address))
        time.sleep(input["hold"])
        return 1.0, {"feedback": f"made {input['segments']} segments"}
""")

SOCKETS = textwrap.dedent("""
    import os, socket, time

    def fill(target, close_sender):
        held, sent = [], 0
        while sent < target and len(held) < 100:
            a, b = socket.socketpair()
            a.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 64 << 20)  # as far as net.core.wmem_max allows
            a.setblocking(False)
            try:
                while True:
                    sent += a.send(b"x" * 65536)
            except BlockingIOError:
                pass
            if close_sender:  # the data stays queued in b, charged to a socket no process holds
                a.close()
            held.append((a, b))
        return held

    def score(input, output, expected=None):
        children = []
        for _ in range(input["processes"]):
            pid = os.fork()
            if pid == 0:
                held = fill(input["mib"] << 20, input["close_sender"])
                time.sleep(input["hold"])
                os._exit(0)
            children.append(pid)
        for pid in children:
            os.waitpid(pid, 0)
        return 1.0, {"feedback": "every socket stayed full"}
""")


def host_segments() -> set[int]:
    """The SysV shared memory segments of this (the host's) IPC namespace."""
    with open("/proc/sysvipc/shm") as handle:
        return {int(line.split()[1]) for line in handle.readlines()[1:]}


@pytest.fixture
def no_new_host_segments() -> Iterator[None]:
    """A reduced sandbox that shares the host's IPC namespace would leave its segments there: remove them."""
    before = host_segments()
    try:
        yield
    finally:
        leaked = host_segments() - before
        for shmid in leaked:
            subprocess.run(["ipcrm", "-m", str(shmid)], check=False, capture_output=True)
        assert not leaked, f"the sandbox left SysV segments in the host's IPC namespace: {sorted(leaked)}"


def run_one(limits: Limits, isolation: Isolation, source: str, case_input: dict[str, int]) -> CaseResult:
    pool = WorkerPool(isolation=isolation, spares=0, limits=limits)
    try:
        [result] = score_cases(
            source, [Case(id="a", input=case_input, output="x")], RunOptions(timeout_s=60, pool=pool)
        ).results
    finally:
        pool.close()
    return result


def assert_stopped_for_memory(result: CaseResult, limit_mib: int, counted: str) -> None:
    """Stopped over the limit: by the watchdog, which names what it ``counted``, or by the kernel (the sandbox's
    memory cgroup, where the machine allows one), which counts it too."""
    assert result.status is CaseStatus.ERROR, result
    assert "together held" in result.error, result.error
    assert f"over the sandbox's {limit_mib / 1024:g} GiB memory limit" in result.error, result.error
    assert counted in result.error or "the kernel stopped them" in result.error, result.error


@pytest.mark.slow
@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_detached_sysv_segments_count_toward_the_sandbox_memory(isolation, no_new_host_segments):
    # The SysV cap is raised above the memory limit here, so that only the memory limit can stop the case.
    limits = Limits(memory_bytes=192 * MIB, shm_bytes=256 * MIB)
    result = run_one(limits, isolation, SYSV, {"mib": 50, "segments": 4, "hold": 10})
    assert_stopped_for_memory(result, 192, "SysV")


@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_sysv_segments_are_capped_at_the_shared_memory_size(isolation, no_new_host_segments):
    # 64 MiB of SysV shared memory in all (the size of the private /dev/shm): one segment over it is refused,
    # and so is a second that would bring the total over it.
    limits = Limits(memory_bytes=256 * MIB)
    too_big = run_one(limits, isolation, SYSV, {"mib": 100, "segments": 1, "hold": 0})
    assert (too_big.status, too_big.feedback) == (CaseStatus.OK, "shmget refused segment 1: errno 22"), too_big
    too_many = run_one(limits, isolation, SYSV, {"mib": 40, "segments": 2, "hold": 0})
    assert (too_many.status, too_many.feedback) == (CaseStatus.OK, "shmget refused segment 2: errno 28"), too_many


@pytest.mark.slow
@pytest.mark.parametrize("close_sender", [False, True], ids=["both-ends-held", "sender-closed"])
@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_full_socket_buffers_count_toward_the_sandbox_memory(isolation, close_sender):
    limits = Limits(memory_bytes=256 * MIB)
    case_input = {"processes": 8, "mib": 48, "hold": 10, "close_sender": close_sender}
    result = run_one(limits, isolation, SOCKETS, case_input)
    assert_stopped_for_memory(result, 256, "socket buffers")


IPC_LIMITS = textwrap.dedent("""
    import resource

    def score(input, output, expected=None):
        seen = {"msgqueue": resource.getrlimit(resource.RLIMIT_MSGQUEUE)[0]}
        for name in ("shmmax", "shmall", "shmmni", "msgmni", "msgmnb", "sem"):
            with open(f"/proc/sys/kernel/{name}") as handle:
                seen[name] = [int(part) for part in handle.read().split()]
        return 1.0, {"feedback": "seen", "seen": seen}
""")


@pytest.mark.parametrize("isolation", LEVELS, ids=lambda level: level.value)
def test_every_sysv_and_posix_ipc_kind_is_bounded_in_the_sandbox(isolation):
    result = run_one(Limits(), isolation, IPC_LIMITS, {})
    assert result.status is CaseStatus.OK, result
    seen = result.extra["seen"]
    assert seen["msgqueue"] <= 1 * MIB  # POSIX message queues, per sandbox user
    assert seen["shmmax"] == [64 * MIB] and seen["shmall"] == [64 * MIB // os.sysconf("SC_PAGE_SIZE")]
    assert seen["shmmni"][0] <= 256
    assert seen["msgmni"][0] * seen["msgmnb"][0] <= 1 * MIB  # SysV message queues: kernel memory
    semmsl, semmns, semopm, semmni = seen["sem"]
    assert semmns <= 32_000 and semmni <= 128
