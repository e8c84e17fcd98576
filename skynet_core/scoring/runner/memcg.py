"""The sandbox's memory limit enforced by the kernel: a memory cgroup of its own, where this machine lets the
server make one.

The watchdog (:mod:`.watchdog`) measures a sandbox every poll and stops it over its limit; an allocation
faster than the poll outruns it (48 memfds of 64 MB reached 2,689 MB against 2 GiB on a busy machine). A
memory cgroup makes the kernel count every page the sandbox's processes are charged for (their memory, the
memfd, /dev/shm, /tmp and SysV shared memory they write, the kernel's memory for their files and sockets)
and refuse to go past the limit: at the limit it reclaims what it can, then its out-of-memory killer stops a
process of the sandbox, and the runner stops the rest and says why (:func:`kernel_limit_message`).

Each sandbox gets a cgroup of its own, ``skynet-<server pid>-<n>``, made in the server's own cgroup before the
sandbox starts (its first process joins it before it runs anything, so everything it starts is in it) and
removed once the sandbox is gone. The server's own cgroup must be writable: as root, where the memory
controller is mounted (cgroup v1), or where the unified hierarchy delegates it (cgroup v2, ``memory`` in the
server's cgroup's ``cgroup.subtree_control``). Elsewhere, or with ``SKYNET_MEMORY_CGROUP=off``, the watchdog
alone enforces the limit; :func:`enforcement` says which, for the isolation report. The watchdog runs in
both cases: it also counts socket buffers, which a v1 memory cgroup does not.
"""

from __future__ import annotations

import atexit
import functools
import itertools
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from ...i18n import _

CGROUP_ENV = "SKYNET_MEMORY_CGROUP"
"""``off``: do not make memory cgroups (the watchdog alone enforces the limit)."""
PREFIX = "skynet-"
REMOVE_TRIES = 50  # a cgroup is removed once its last process is gone: the kernel may take a moment after the exit
REMOVE_WAIT_S = 0.01

_numbers = itertools.count(1)
_swept = threading.Event()
_made: set[Path] = set()  # this process's cgroups not removed yet
_made_lock = threading.Lock()


@dataclass(frozen=True)
class Hierarchy:
    """Where sandboxes' memory cgroups are made: ``parent`` (the server's own cgroup), cgroup ``version`` 1 or 2."""

    version: int
    parent: Path

    @property
    def limit_file(self) -> str:
        return "memory.limit_in_bytes" if self.version == 1 else "memory.max"


def _own_cgroups() -> dict[str, str]:
    """This process's cgroup per hierarchy, from /proc/self/cgroup: ``"memory"`` (v1) and ``""`` (v2)."""
    found: dict[str, str] = {}
    with open("/proc/self/cgroup") as handle:
        for line in handle:
            _number, controllers, path = line.rstrip("\n").split(":", 2)
            for name in controllers.split(",") if controllers else [""]:
                found[name] = path
    return found


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(root within the hierarchy, mount point, file system type, super options) of every mount."""
    mounts = []
    with open("/proc/self/mountinfo") as handle:
        for line in handle:
            head, _dash, tail = line.rstrip("\n").partition(" - ")
            fields, rest = head.split(), tail.split()
            if len(fields) >= 5 and len(rest) >= 3:
                mounts.append((fields[3], fields[4], rest[0], set(rest[2].split(","))))
    return mounts


def _folder(mount_root: str, mount_point: str, path: str) -> Path | None:
    """The folder of the cgroup ``path`` under a mount of its hierarchy whose root is ``mount_root``."""
    if path != mount_root and not path.startswith(mount_root.rstrip("/") + "/"):
        return None
    return Path(mount_point) / path[len(mount_root) :].lstrip("/")


def _find() -> Hierarchy | None:
    """The hierarchy this process's memory cgroup is in, where it can be read: v1's memory controller first
    (a v2 hierarchy beside it has no memory controller), else v2."""
    own = _own_cgroups()
    mounts = _mounts()
    if "memory" in own:
        for root, point, kind, options in mounts:
            if kind == "cgroup" and "memory" in options and (folder := _folder(root, point, own["memory"])):
                return Hierarchy(1, folder)
    if "" in own:
        for root, point, kind, _options in mounts:
            if kind == "cgroup2" and (folder := _folder(root, point, own[""])):
                return Hierarchy(2, folder)
    return None


@functools.lru_cache(maxsize=1)
def hierarchy() -> tuple[Hierarchy | None, str]:
    """Where sandboxes' memory cgroups are made, and why none are when none are (for the isolation report).
    Found once per process, by making and removing a cgroup there."""
    if os.environ.get(CGROUP_ENV, "").strip().lower() == "off":
        return None, f"{CGROUP_ENV}=off is set"
    try:
        found = _find()
    except (OSError, ValueError) as exc:
        return None, f"the cgroups of this process cannot be read ({exc})"
    if found is None:
        return None, "no memory cgroup controller is mounted for this process"
    if found.version == 2:
        try:
            delegated = "memory" in (found.parent / "cgroup.subtree_control").read_text().split()
        except OSError:
            delegated = False
        if not delegated:
            return None, "the memory controller is not delegated to the server's cgroup (cgroup v2)"
    probe = found.parent / f"{PREFIX}{os.getpid()}-probe"
    try:
        probe.mkdir(exist_ok=True)
        try:
            (probe / found.limit_file).write_text(str(1 << 30))
        finally:
            probe.rmdir()
    except OSError as exc:
        return None, f"a memory cgroup cannot be made in {found.parent} ({exc.strerror or exc})"
    return found, ""


def enforcement() -> str:
    """How the sandbox's memory limit is enforced here: ``"cgroup v1"`` or ``"cgroup v2"`` (the kernel, with the
    watchdog beside it), or ``"watchdog"`` (reports and ``--json``'s ``memory_limit`` show it)."""
    found, _why = hierarchy()
    return f"cgroup v{found.version}" if found is not None else "watchdog"


class MemoryCgroup:
    """One sandbox's memory cgroup, limited to ``limit`` bytes (swap included). Made by :meth:`create`; its first
    process joins it by writing to :attr:`procs`; :meth:`remove` once the sandbox is gone."""

    def __init__(self, path: Path, version: int) -> None:
        self.path, self.version = path, version
        self.procs = str(path / "cgroup.procs")

    @classmethod
    def create(cls, limit: int) -> MemoryCgroup | None:
        """A new cgroup with the limit, or None where none can be made (the watchdog alone then)."""
        found, _why = hierarchy()
        if found is None:
            return None
        if not _swept.is_set():
            _swept.set()
            _sweep(found.parent)
        path = found.parent / f"{PREFIX}{os.getpid()}-{next(_numbers)}"
        try:
            path.mkdir()
        except OSError:
            return None
        group = cls(path, found.version)
        with _made_lock:
            _made.add(path)
        try:
            if found.version == 1:
                (path / "memory.limit_in_bytes").write_text(str(limit))
                _write_if_there(path / "memory.memsw.limit_in_bytes", str(limit))  # swap accounting, where on
            else:
                (path / "memory.max").write_text(str(limit))
                _write_if_there(path / "memory.swap.max", "0")
                _write_if_there(path / "memory.oom.group", "1")  # the kernel stops the whole sandbox at once
        except OSError:
            group.remove()
            return None
        return group

    def oom_kills(self) -> int:
        """How many of the sandbox's processes the kernel stopped at the limit."""
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            text = (self.path / name).read_text()
        except OSError:
            return 0
        for line in text.splitlines():
            key, _space, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit():
                return int(value)
        return 0

    def peak(self) -> int | None:
        """The most bytes the kernel counted for the sandbox at once (None where the kernel does not say)."""
        name = "memory.max_usage_in_bytes" if self.version == 1 else "memory.peak"
        try:
            return int((self.path / name).read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    def remove(self) -> bool:
        """Remove the cgroup once its processes are gone (it waits a moment for the kernel to let them go)."""
        for _try in range(REMOVE_TRIES):
            try:
                self.path.rmdir()
            except FileNotFoundError:
                pass
            except OSError:
                time.sleep(REMOVE_WAIT_S)
                continue
            with _made_lock:
                _made.discard(self.path)
            return True
        return False


@atexit.register
def _remove_left() -> None:
    """At exit, one try at each cgroup of a sandbox whose teardown a daemon thread was still waiting for; never a
    wait (a spare sandbox still runs until this process is gone). The next process to make one removes what is
    left (:func:`_sweep`)."""
    with _made_lock:
        left = list(_made)
    for path in left:
        try:
            path.rmdir()
        except OSError:
            continue


def _write_if_there(path: Path, text: str) -> None:
    try:
        path.write_text(text)
    except FileNotFoundError:
        pass


def _sweep(parent: Path) -> None:
    """Remove the empty cgroups left by servers that are gone (a sandbox torn down as its server exited)."""
    try:
        names = [entry.name for entry in parent.iterdir() if entry.name.startswith(PREFIX)]
    except OSError:
        return
    for name in names:
        owner = name[len(PREFIX) :].partition("-")[0]
        if owner.isdigit() and int(owner) != os.getpid() and not Path(f"/proc/{owner}").exists():
            try:
                (parent / name).rmdir()
            except OSError:
                continue


def kernel_limit_message(limit: int, peak: int | None) -> str:
    """What a call stopped by the kernel's memory limit says (in the current language)."""
    peak_mib = f"{(peak if peak is not None else limit) / (1 << 20):,.0f}"
    return _(
        "the metric's processes together held {peak} MiB at the most and asked for more, over the sandbox's "
        "{limit} GiB memory limit, so the kernel stopped them; use less memory (fewer or smaller processes, "
        "shared-memory files and segments, files in /tmp and data left waiting in sockets)"
    ).format(peak=peak_mib, limit=f"{limit / (1 << 30):g}")
