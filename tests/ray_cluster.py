"""A small local Ray cluster for tests: a head and extra worker nodes on loopback (127.0.0.2), started with
``ray start --block`` and stopped by killing exactly their own process trees (never ``ray stop``,
which would stop every Ray process on the machine).

    cluster = LocalRayCluster(cpus=2)   # the head, listening for drivers at cluster.address
    node = cluster.add_node(cpus=1)     # a second node of the same cluster
    cluster.kill(node)                  # SIGKILL: the node dies as a machine would
    cluster.stop()                      # everything it started, gone
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
from dataclasses import dataclass
from pathlib import Path

RAY = str(Path(sys.executable).with_name("ray"))
START_TIMEOUT_S = 90.0
OBJECT_STORE_BYTES = 200_000_000
# A loopback address other than 127.0.0.1, which Ray rewrites to the machine's own network address.
HOST = "127.0.0.2"
# What ``ray start --block`` prints once its node is up (before it blocks).
STARTED = b"This command will now block forever"


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind((HOST, 0))
        return probe.getsockname()[1]


@dataclass
class Node:
    process: subprocess.Popen[bytes]
    log: Path

    def tree(self) -> set[int]:
        """This node's processes: ``ray start`` and everything under it (raylet, workers, sandboxes)."""
        return descendants(self.process.pid) | {self.process.pid}


class LocalRayCluster:
    def __init__(self, cpus: int = 2) -> None:
        self.temp_dir = Path(tempfile.mkdtemp(prefix="skyray-"))
        self.port = free_port()
        self.address = f"{HOST}:{self.port}"
        self.nodes: list[Node] = []
        self.head = self._start(["--head", f"--port={self.port}", "--include-dashboard=false"], cpus)
        self._wait_for_nodes(1)

    def add_node(self, cpus: int = 1, env: dict[str, str] | None = None) -> Node:
        """Another node; ``env`` is added to its environment (its workers inherit it)."""
        node = self._start([f"--address={self.address}"], cpus, env or {})
        self._wait_for_nodes(len(self.nodes))
        return node

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
                env={**os.environ, "RAY_USAGE_STATS_ENABLED": "0", **(env or {})},
            )
        node = Node(process, log)
        self.nodes.append(node)
        return node

    def _wait_for_nodes(self, count: int) -> None:
        """Until ``count`` nodes are alive in the cluster, asked through ``ray status``'s own view once each
        node's ``ray start`` says it has started (each ``ray status`` costs most of a second of CPU: asked
        every second from the start, it took 3 CPU-s a node)."""
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            for node in self.nodes:
                if node.process.poll() is not None:
                    log = node.log.read_text(errors="replace")[-3000:]
                    self.stop()
                    raise RuntimeError(f"ray start exited:\n{log}")
            if not all(STARTED in node.log.read_bytes() for node in self.nodes):
                time.sleep(0.2)
                continue
            status = subprocess.run(
                [RAY, "status", f"--address={self.address}"], capture_output=True, text=True, timeout=60
            )
            if status.returncode == 0 and _alive_nodes(status.stdout) >= count:
                return
            time.sleep(1.0)
        self.stop()
        raise RuntimeError(f"the local Ray cluster did not reach {count} node(s) in {START_TIMEOUT_S:g} s")

    def kill(self, node: Node) -> None:
        """Kill a node at once, as a machine that loses power: its whole process tree, with SIGKILL."""
        _kill(node.tree(), signal.SIGKILL)
        node.process.wait(timeout=10)

    def stop(self) -> None:
        """Stop every node politely, then kill whatever of their trees is left."""
        trees = [node.tree() for node in self.nodes]
        for node in reversed(self.nodes):
            if node.process.poll() is None:
                node.process.terminate()
        for node in self.nodes:
            try:
                node.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                pass
        _kill(set().union(*trees), signal.SIGKILL)
        for node in self.nodes:
            if node.process.poll() is None:
                node.process.wait(timeout=10)
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def _alive_nodes(status: str) -> int:
    """How many active nodes ``ray status`` lists (one ``1 node_…`` line each under ``Active:``)."""
    section = status.split("Active:", 1)[1] if "Active:" in status else ""
    section = section.split("Pending:", 1)[0]
    return sum(1 for line in section.splitlines() if "node_" in line)


def _process_table() -> dict[int, int]:
    table: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    table[int(entry)] = int(handle.read().rpartition(")")[2].split()[1])
            except (OSError, IndexError, ValueError):
                continue
    return table


def descendants(root: int) -> set[int]:
    children: dict[int, list[int]] = {}
    for pid, parent in _process_table().items():
        children.setdefault(parent, []).append(pid)
    found: set[int] = set()
    todo = [root]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def _kill(pids: set[int], sig: signal.Signals) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass
