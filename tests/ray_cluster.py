"""A small local Ray cluster for tests: a head and extra worker nodes on loopback (127.0.0.2), started with
``ray start --block`` and stopped by killing exactly their own process trees (never ``ray stop``,
which would stop every Ray process on the machine).

    cluster = LocalRayCluster(cpus=2)   # the head, listening for drivers at cluster.address
    node = cluster.add_node(cpus=1)     # a second node of the same cluster
    cluster.kill(node)                  # SIGKILL: the node dies as a machine would
    cluster.stop()                      # everything it started, gone

A process is killed only while it is still the one that was found: a pid is remembered with its start time
(``/proc/PID/stat``) and signalled through a pidfd opened and checked first, so a pid that another process has taken
since (a full test run starts ~30 processes a second against a pid_max of 32768) is never signalled.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
START_TIMEOUT_S = 90.0
# Starts of a node before giving up: Ray gives a node 30 s to register with the head, which a loaded machine has
# missed ("The current node timed out during startup").
NODE_ATTEMPTS = 3
OBJECT_STORE_BYTES = 200_000_000
# A loopback address other than 127.0.0.1, which Ray rewrites to the machine's own network address.
HOST = "127.0.0.2"
# What ``ray start --block`` prints once its node is up, registered with the head (before it blocks).
STARTED = b"This command will now block forever"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


@dataclass(frozen=True)
class NodeRef:
    """A node's ``ray start`` process as a plain value (another process, e.g. the Ray driver, can find its tree)."""

    pid: int
    started: int  # its start time, in clock ticks after boot (field 22 of /proc/PID/stat)

    def tree(self) -> dict[int, int]:
        """The node's processes now, each with its start time: ``ray start`` and everything under it (raylet,
        workers, sandboxes); none once ``ray start`` is gone or its pid is another process's."""
        if start_time(self.pid) != self.started:
            return {}
        return descendants(self.pid) | {self.pid: self.started}

    def kill(self) -> None:
        """SIGKILL to the whole tree at once, as a machine that loses power."""
        kill_exactly(self.tree(), signal.SIGKILL)


@dataclass
class Node:
    process: subprocess.Popen[bytes]
    log: Path
    ref: NodeRef

    def tree(self) -> dict[int, int]:
        """This node's processes: ``ray start`` and everything under it (raylet, workers, sandboxes), each pid with
        its start time (none once ``ray start`` has ended)."""
        return self.ref.tree() if self.process.poll() is None else {}


class LocalRayCluster:
    def __init__(self, cpus: int = 2) -> None:
        self.temp_dir = Path(tempfile.mkdtemp(prefix="skyray-"))
        self.nodes: list[Node] = []
        for _attempt in range(NODE_ATTEMPTS):
            self.port = free_port()
            self.address = f"{HOST}:{self.port}"
            self.head = self._start(["--head", f"--port={self.port}", "--include-dashboard=false"], cpus)
            if self._started(self.head):
                return
            log = self._discard(self.head)
        self.stop()
        raise RuntimeError(f"the head node did not start, {NODE_ATTEMPTS} times:\n{log}")

    def add_node(self, cpus: int = 1, env: dict[str, str] | None = None) -> Node:
        """Another node; ``env`` is added to its environment (its workers inherit it)."""
        for _attempt in range(NODE_ATTEMPTS):
            node = self._start([f"--address={self.address}"], cpus, env or {})
            if self._started(node):
                return node
            log = self._discard(node)
        raise RuntimeError(f"a node did not start, {NODE_ATTEMPTS} times:\n{log}")

    def _discard(self, node: Node) -> str:
        """A node that did not start, gone with whatever it left running; the end of its log."""
        self.nodes.remove(node)
        live = {pid for other in self.nodes for pid in other.tree()}
        strays = {pid: started for pid, started in self._processes().items() if pid not in live}
        kill_exactly(node.tree() | strays, signal.SIGKILL)
        if node.process.poll() is None:
            node.process.kill()
        node.process.wait(timeout=10)
        return node.log.read_text(errors="replace")[-3000:]

    def _start(self, role: list[str], cpus: int, env: dict[str, str] | None = None) -> Node:
        log = self.temp_dir / f"node-{len(self.nodes)}.log"
        command = [
            RAY,
            "start",
            "--block",
            *role,
            f"--num-cpus={cpus}",
            f"--node-ip-address={HOST}",
            f"--object-store-memory={OBJECT_STORE_BYTES}",
            f"--temp-dir={self.temp_dir}",
            "--disable-usage-stats",
            "--include-log-monitor=false",  # the driver takes no worker logs (log_to_driver=False)
            f"--node-manager-port={free_port()}",
            f"--object-manager-port={free_port()}",
            f"--metrics-export-port={free_port()}",
            f"--runtime-env-agent-port={free_port()}",
            f"--dashboard-agent-grpc-port={free_port()}",
            f"--dashboard-agent-listen-port={free_port()}",
        ]
        with log.open("wb") as out:
            process = subprocess.Popen(
                command,
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
                start_new_session=True,
                # RAY_raylet_start_wait_time_s: how long the head waits for a node to register (a loaded machine took
                # longer than the default, and the node's `ray start` failed).
                env={
                    **os.environ,
                    "RAY_USAGE_STATS_ENABLED": "0",
                    "RAY_raylet_start_wait_time_s": "120",
                    **(env or {}),
                },
            )
        node = Node(process, log, NodeRef(process.pid, start_time(process.pid) or 0))
        self.nodes.append(node)
        return node

    def _started(self, node: Node) -> bool:
        """Whether ``node``'s ``ray start`` says it has started: it says so once the cluster's head (its GCS) lists
        the node, so no ``ray status`` is asked (each cost most of a second of CPU). ``False`` when it exited or
        did not say so in ``START_TIMEOUT_S``."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if STARTED in node.log.read_bytes():
                return True
            if node.process.poll() is not None:
                return False
            time.sleep(0.2)
        return False

    def _processes(self) -> dict[int, int]:
        """The processes whose command line names this cluster's temporary folder, each with its start time: with
        what the nodes' trees hold, what a node whose ``ray start`` ended left running (its raylet and the like, no
        longer under it)."""
        mark = str(self.temp_dir).encode()
        found = {}
        for pid, (_parent, started) in _process_table().items():
            try:
                line = Path(f"/proc/{pid}/cmdline").read_bytes()
            except OSError:
                continue
            if mark in line and pid != os.getpid():
                found[pid] = started
        return found

    def kill(self, node: Node) -> None:
        """Kill a node at once, as a machine that loses power: its whole process tree, with SIGKILL."""
        node.ref.kill()
        node.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop every node politely, then kill whatever of their trees is left."""
        trees = [node.tree() for node in self.nodes]  # none for a node already killed: its pid may be another's now
        for node in reversed(self.nodes):
            if node.process.poll() is None:
                node.process.terminate()
        for node in self.nodes:
            try:
                node.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        left = {pid: started for tree in trees for pid, started in tree.items()}
        kill_exactly(left | self._processes(), signal.SIGKILL)
        for node in self.nodes:
            if node.process.poll() is None:
                node.process.wait(timeout=10)
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _stat(pid: int | str) -> list[str] | None:
    """The fields of /proc/PID/stat after the command's name (the state is the first), or ``None``."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()
    except OSError:
        return None


def start_time(pid: int) -> int | None:
    """When ``pid`` started, in clock ticks after boot: with the pid, it names one process for good."""
    fields = _stat(pid)
    return int(fields[19]) if fields and len(fields) > 19 else None


def _process_table() -> dict[int, tuple[int, int]]:
    """Every process: its parent and its start time."""
    table: dict[int, tuple[int, int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (fields := _stat(entry)) and len(fields) > 19:
            table[int(entry)] = (int(fields[1]), int(fields[19]))
    return table


def descendants(root: int) -> dict[int, int]:
    """Every process under ``root``, each with its start time (a child starts no earlier than its parent: a pid
    reused by an older process's child cannot be taken for a descendant)."""
    table = _process_table()
    children: dict[int, list[int]] = {}
    for pid, (parent, _started) in table.items():
        children.setdefault(parent, []).append(pid)
    found: dict[int, int] = {}
    todo = [root]
    while todo:
        parent = todo.pop()
        born = table.get(parent, (0, 0))[1]
        for child in children.get(parent, []):
            if child not in found and table[child][1] >= born:
                found[child] = table[child][1]
                todo.append(child)
    return found


def kill_exactly(pids: dict[int, int], sig: signal.Signals) -> None:
    """Send ``sig`` to each pid that is still the process that started at its time: through a pidfd opened first
    and then checked, so the pid cannot change hands between the check and the signal."""
    for pid, started in pids.items():
        try:
            handle = os.pidfd_open(pid)
        except OSError:  # gone
            continue
        try:
            if start_time(pid) == started:
                signal.pidfd_send_signal(handle, sig)
        except OSError:
            pass
        finally:
            os.close(handle)


def running_batches(tree: Iterable[int]) -> list[int]:
    """The processes of ``tree`` (pids) that are Ray workers running a batch now (Ray titles a worker after its
    task)."""
    busy = []
    for pid in tree:
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if title.startswith(b"ray::_score_batch"):
            busy.append(pid)
    return busy
