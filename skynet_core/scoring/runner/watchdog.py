"""The memory limit for a sandbox as a whole: all its processes, shared memory and files in its /tmp.

``RLIMIT_AS`` caps each process alone: four forked children, sixty ``memfd_create``
files or a million directories in /tmp each get past it. The kernel's way to cap a
group of processes is a cgroup, which a project may only use where it is delegated one;
where it is not (as here: the machine's cgroups belong to whatever runs the server),
this watchdog measures each sandbox from the parent every :data:`POLL_S` seconds, from the
first request its worker sends (before it, the child has run only the sandbox's own code), and
kills it over the limit. The sum counted for a sandbox:

- the proportional set size (``Pss`` in ``/proc/PID/smaps_rollup``) of every process in
  its tree, which counts pages shared between forks once in total;
- the size of every memfd or shared-memory file its processes hold open (once each);
- in full isolation, the bytes used in its private ``/tmp`` and ``/dev/shm``, and
  :data:`INODE_BYTES` for each file or folder there (the kernel memory an inode takes);
- what its namespaces hold in the kernel that no process maps: SysV shared memory segments
  and socket buffers (:mod:`.kernelmem`).

A sandbox may exceed the limit for at most one poll interval before it is stopped: :data:`POLL_S`, and
:data:`NEAR_POLL_S` while a sandbox without a memory cgroup holds more than half its limit (an allocation near
the limit is caught sooner; a poll scans /proc, some 7 ms on a busy machine). Where the sandbox has a memory
cgroup (:mod:`.memcg`), the kernel itself keeps it within the limit, and this thread stops the rest of a
sandbox whose process the kernel stopped there.
"""

from __future__ import annotations

import functools
import os
import threading
import weakref
from collections.abc import Callable
from dataclasses import dataclass

from ...i18n import _, ngettext
from .kernelmem import KernelMeter
from .memcg import MemoryCgroup, kernel_limit_message

POLL_S = 0.25
NEAR_POLL_S = 0.05
NEAR_SHARE = 0.5  # of the limit: a sandbox without a memory cgroup holding more is measured every NEAR_POLL_S
INODE_BYTES = 1024
PRIVATE_TMP_MAX = 4 << 30  # a sandbox's /tmp is a small tmpfs (64 MiB); anything larger is not its own


@dataclass(frozen=True)
class Usage:
    """What a sandbox holds, in bytes."""

    processes: int = 0
    pss: int = 0
    shared_files: int = 0
    tmp: int = 0
    sysv: int = 0
    sockets: int = 0

    @property
    def total(self) -> int:
        return self.pss + self.shared_files + self.tmp + self.sysv + self.sockets

    def describe(self) -> str:
        mib = 1 << 20
        return ngettext(
            "{total} MiB: {pss} MiB in {processes} process(es), {shared} MiB of shared memory files, {tmp} MiB "
            "in /tmp, {sysv} MiB of SysV shared memory, {sockets} MiB in socket buffers",
            "{total} MiB: {pss} MiB in {processes} process(es), {shared} MiB of shared memory files, {tmp} MiB "
            "in /tmp, {sysv} MiB of SysV shared memory, {sockets} MiB in socket buffers",
            self.processes,
        ).format(
            # Plain digits, not Babel's: the runner is also vendored into engine exports, which lack Babel.
            total=f"{self.total / mib:,.0f}",
            pss=f"{self.pss / mib:,.0f}",
            processes=self.processes,
            shared=f"{self.shared_files / mib:,.0f}",
            tmp=f"{self.tmp / mib:,.0f}",
            sysv=f"{self.sysv / mib:,.0f}",
            sockets=f"{self.sockets / mib:,.0f}",
        )


def over_limit_message(usage: Usage, limit: int) -> str:
    """What a call stopped for memory says (in the current language: the worker's caller formats it)."""
    return _(
        "the metric's processes together held {usage}, over the sandbox's {limit} GiB memory limit, so they "
        "were stopped; use less memory (fewer or smaller processes, shared-memory files and segments, files in "
        "/tmp and data left waiting in sockets)"
    ).format(usage=usage.describe(), limit=f"{limit / (1 << 30):g}")


def children_by_parent() -> dict[int, list[int]]:
    """Every process's children, from one scan of /proc."""
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as handle:
                parent = int(handle.read().rpartition(b")")[2].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(name))
    return children


def tree(root: int, children: dict[int, list[int]] | None = None) -> list[int]:
    """``root`` and every process under it (by parent pid)."""
    children = children_by_parent() if children is None else children
    found, todo = [root], [root]
    while todo:
        for child in children.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _pss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/smaps_rollup", "rb") as handle:
            for line in handle:
                if line.startswith(b"Pss:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _shared_files(pid: int, seen: set[tuple[int, int]]) -> int:
    """Bytes of the memfd and /dev/shm files ``pid`` holds open, each file counted once across the tree."""
    total = 0
    folder = f"/proc/{pid}/fd"
    try:
        names = os.listdir(folder)
    except OSError:
        return 0
    for name in names:
        try:
            target = os.readlink(f"{folder}/{name}")
            if not (target.startswith("/memfd:") or target.startswith("/dev/shm/")):
                continue
            info = os.stat(f"{folder}/{name}")
        except OSError:
            continue
        key = (info.st_dev, info.st_ino)
        if key not in seen:
            seen.add(key)
            total += info.st_blocks * 512
    return total


def _tmp_bytes(pid: int) -> int:
    """The sandbox's private /tmp and /dev/shm: bytes used plus inodes. While bubblewrap is still setting the
    sandbox up, ``/proc/PID/root/tmp`` is the host's /tmp: only a small file system in a mount namespace of
    the sandbox's own is counted."""
    try:
        if os.readlink(f"/proc/{pid}/ns/mnt") == os.readlink("/proc/self/ns/mnt"):
            return 0
    except OSError:
        return 0
    total = 0
    for mount in ("tmp", "dev/shm"):
        try:
            stats = os.statvfs(f"/proc/{pid}/root/{mount}")
        except OSError:
            continue
        if stats.f_blocks * stats.f_frsize > PRIVATE_TMP_MAX:
            continue
        total += (stats.f_blocks - stats.f_bfree) * stats.f_frsize
        total += max(0, stats.f_files - stats.f_ffree) * INODE_BYTES
    return total


def measure(
    root: int, private_tmp: bool, children: dict[int, list[int]] | None = None, kernel: KernelMeter | None = None
) -> Usage:
    """What the sandbox whose first process is ``root`` holds now; ``private_tmp``: count its /tmp too;
    ``kernel``: the sandbox's meter of SysV shared memory and socket buffers (a fresh one when None)."""
    pids = tree(root, children)
    seen: set[tuple[int, int]] = set()
    meter = kernel or KernelMeter()
    try:
        sysv, sockets = meter.measure(pids)
    finally:
        if kernel is None:
            meter.close()
    return Usage(
        processes=len(pids),
        pss=sum(_pss(pid) for pid in pids),
        shared_files=sum(_shared_files(pid, seen) for pid in pids),
        tmp=_tmp_bytes(pids[-1]) if private_tmp and len(pids) > 1 else 0,
        sysv=sysv,
        sockets=sockets,
    )


@dataclass
class _Watched:
    root: int
    limit: int
    private_tmp: bool
    # Not a strong reference: a worker dropped without close() is still collected.
    kill: weakref.WeakMethod[Callable[[Callable[[], str]], None]]
    cgroup: MemoryCgroup | None = None


class Watchdog:
    """One thread for the process, measuring every registered sandbox and killing those over their limit."""

    def __init__(self) -> None:
        self._watched: dict[int, _Watched] = {}
        # Reentrant: a finalizer (another worker collected) may run while this thread holds the lock.
        self._lock = threading.RLock()
        self._thread: threading.Thread | None = None

    def watch(
        self,
        owner: object,
        root: int,
        limit: int,
        private_tmp: bool,
        kill: Callable[[Callable[[], str]], None],
        cgroup: MemoryCgroup | None = None,
    ) -> None:
        """Watch the sandbox rooted at ``root`` (in its memory ``cgroup``, when it has one) until ``owner`` is
        gone or :meth:`forget` is called."""
        key = id(owner)
        weakref.finalize(owner, self._forget_key, key)
        with self._lock:
            self._watched[key] = _Watched(root, limit, private_tmp, weakref.WeakMethod(kill), cgroup)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, daemon=True, name="skynet-memory-watchdog")
                self._thread.start()

    def forget(self, owner: object) -> None:
        self._forget_key(id(owner))

    def _forget_key(self, key: int) -> None:
        with self._lock:
            self._watched.pop(key, None)

    def _run(self) -> None:
        event = threading.Event()
        meters: dict[int, KernelMeter] = {}  # this thread's alone: a meter enters namespaces with its thread
        wait = POLL_S
        while True:
            event.wait(wait)
            wait = POLL_S
            with self._lock:
                watched = list(self._watched.items())
            for gone in set(meters) - {key for key, _item in watched}:
                meters.pop(gone).close()
            if not watched:
                continue
            children = children_by_parent()
            for key, item in watched:
                # Formatted later, by the thread that reports the failed call, in its caller's language.
                reason: Callable[[], str] | None = None
                if item.cgroup is not None and item.cgroup.oom_kills():
                    reason = functools.partial(kernel_limit_message, item.limit, item.cgroup.peak())
                else:
                    usage = measure(item.root, item.private_tmp, children, meters.setdefault(key, KernelMeter()))
                    if usage.total > item.limit:
                        reason = functools.partial(over_limit_message, usage, item.limit)
                    elif item.cgroup is None and usage.total > item.limit * NEAR_SHARE:
                        wait = NEAR_POLL_S
                if reason is None:
                    continue
                self._forget_key(key)
                if (kill := item.kill()) is not None:
                    kill(reason)


_watchdog = Watchdog()


def watchdog() -> Watchdog:
    """The process-wide watchdog."""
    return _watchdog
