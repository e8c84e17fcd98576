"""Memory a sandbox holds in the kernel that no process maps: SysV shared memory and socket buffers.

A SysV segment that every process detached from stays in its IPC namespace, and bytes queued in a
socket stay with the socket: neither is in any process's ``Pss``, so the watchdog counts them per
namespace. For every IPC and network namespace the sandbox's processes are in, other than the
server's own (full isolation: bubblewrap's; reduced, as root: the ones :func:`sandbox.child_setup`
makes):

- SysV shared memory: the resident and swapped bytes of every segment, read from
  ``/proc/sysvipc/shm`` by a thread that enters the namespace for the read (``setns``);
- socket buffers: what every unix, TCP and UDP socket holds (:mod:`.sockdiag`, through a netlink
  socket made inside the namespace). A socket that was closed while its data still waits in a
  peer's buffer is no longer listed, but the kernel still counts it among the namespace's sockets
  (``/proc/PID/net/sockstat``): each such socket is counted at the most one can hold.

Entering a namespace needs CAP_SYS_ADMIN (the server running as root). A sandbox that shares the
server's network namespace (reduced isolation, not root) has the sockets its processes hold open
counted; its SysV segments, in the host's namespace, are not. See the README.
"""

from __future__ import annotations

import contextlib
import functools
import os
import socket
import struct
from collections.abc import Iterator

from . import sockdiag
from .sandbox import libc

CLONE_NEWIPC = 0x08000000
CLONE_NEWNET = 0x40000000
KINDS = {"ipc": CLONE_NEWIPC, "net": CLONE_NEWNET}


class KernelMeter:
    """The kernel memory of one sandbox's namespaces. Used by one thread at a time (the watchdog's);
    :meth:`close` lets go of the netlink sockets it keeps in the sandbox's network namespaces."""

    def __init__(self) -> None:
        self._diag: dict[str, socket.socket] = {}

    def measure(self, pids: list[int]) -> tuple[int, int]:
        """(SysV shared memory, socket buffers) in bytes, for the sandbox whose processes are ``pids``."""
        found = namespaces(pids)
        sysv = sum(_sysv_bytes(pid) for pid in found["ipc"].values())
        sockets = 0
        for link, pid in found["net"].items():
            sockets += self._socket_bytes(link, pid)
        for link in set(self._diag) - set(found["net"]):
            self._diag.pop(link).close()
        if not found["net"] and pids:  # the server's own network namespace: only what the sandbox holds open
            sockets += _held_socket_bytes(pids)
        return sysv, sockets

    def close(self) -> None:
        for diag in self._diag.values():
            diag.close()
        self._diag.clear()

    def _socket_bytes(self, link: str, pid: int) -> int:
        listed_in_all = _sockets_in_use(pid)
        if listed_in_all is None:
            return 0
        diag = self._diag.get(link)
        if diag is None:
            if listed_in_all == 0:
                return 0  # nothing to count yet, and no reason to enter the namespace
            try:
                with entered(pid, "net"):
                    diag = self._diag[link] = sockdiag.open_diag()
            except OSError:
                return 0  # not allowed to enter it (not root): see the module's docstring
            listed_in_all += 1  # ours, made since the count
        if listed_in_all <= 1:
            return 0  # the one socket in use is ours
        try:
            held, listed = sockdiag.queued_bytes(diag)
        except (OSError, struct.error):
            self._diag.pop(link).close()  # a dump cut short leaves its rest in the socket: start afresh
            return 0
        closed_but_queued = max(0, listed_in_all - 1 - listed)
        return held + closed_but_queued * most_a_socket_holds()


def namespaces(pids: list[int]) -> dict[str, dict[str, int]]:
    """For "ipc" and "net": each namespace (its /proc link) of ``pids`` that is not the server's, with one
    of its processes."""
    found: dict[str, dict[str, int]] = {kind: {} for kind in KINDS}
    for pid in pids:
        for kind, seen in found.items():
            try:
                link = os.readlink(f"/proc/{pid}/ns/{kind}")
            except OSError:
                continue
            if link != _own(kind):
                seen.setdefault(link, pid)
    return found


@functools.cache
def _own(kind: str) -> str:
    return os.readlink(f"/proc/self/ns/{kind}")


@contextlib.contextmanager
def entered(pid: int, kind: str) -> Iterator[None]:
    """Run the block with this thread in ``pid``'s namespace of ``kind``; only this thread moves, and it
    moves back after. Raises OSError when the kernel refuses (no CAP_SYS_ADMIN)."""
    flag = KINDS[kind]
    home = os.open(f"/proc/thread-self/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC)
    try:
        target = os.open(f"/proc/{pid}/ns/{kind}", os.O_RDONLY | os.O_CLOEXEC)
        try:
            _setns(target, flag)
        finally:
            os.close(target)
        try:
            yield
        finally:
            _setns(home, flag)
    finally:
        os.close(home)


def _setns(fd: int, flag: int) -> None:
    import ctypes

    if libc().setns(fd, flag) != 0:
        error = ctypes.get_errno()
        raise OSError(error, os.strerror(error))


def _sysv_bytes(pid: int) -> int:
    """Resident plus swapped bytes of every SysV segment in ``pid``'s IPC namespace."""
    try:
        with entered(pid, "ipc"), open("/proc/sysvipc/shm", "rb") as handle:
            lines = handle.read().splitlines()
    except OSError:
        return 0
    if not lines:
        return 0
    columns = lines[0].split()
    try:
        wanted = [columns.index(b"rss"), columns.index(b"swap")]
    except ValueError:
        return 0
    total = 0
    for line in lines[1:]:
        fields = line.split()
        try:
            total += sum(int(fields[at]) for at in wanted)
        except (IndexError, ValueError):
            continue
    return total


def _sockets_in_use(pid: int) -> int | None:
    """The sockets the kernel counts in ``pid``'s network namespace (including closed ones whose data is
    still queued somewhere); None when it cannot be read."""
    try:
        with open(f"/proc/{pid}/net/sockstat", "rb") as handle:
            first = handle.readline().split()
        return int(first[first.index(b"used") + 1])
    except (OSError, ValueError, IndexError):
        return None


@functools.cache
def most_a_socket_holds() -> int:
    """The most bytes one socket can hold queued: the kernel doubles the largest buffer size it allows."""
    largest = 0
    for name in ("wmem_max", "rmem_max"):
        try:
            with open(f"/proc/sys/net/core/{name}", "rb") as handle:
                largest = max(largest, int(handle.read()))
        except (OSError, ValueError):
            continue
    return 2 * (largest or 212992)


def _held_socket_bytes(pids: list[int]) -> int:
    """What the sockets ``pids`` hold open hold, in the server's own network namespace."""
    inodes: set[int] = set()
    for pid in pids:
        folder = f"/proc/{pid}/fd"
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        for name in names:
            try:
                target = os.readlink(f"{folder}/{name}")
            except OSError:
                continue
            if target.startswith("socket:["):
                inodes.add(int(target[8:-1]))
    if not inodes:
        return 0
    try:
        with contextlib.closing(sockdiag.open_diag()) as diag:
            return sockdiag.queued_bytes(diag, inodes)[0]
    except (OSError, struct.error):
        return 0
