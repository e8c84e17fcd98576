"""How the child process is started: the bubblewrap sandbox, or the best reduced isolation available.

``full``: bubblewrap with new PID, network, IPC and UTS namespaces, an empty
root holding only the Python installation, the site-packages and our sandbox
files (read-only), a private size-limited /tmp, and the child running as an
unprivileged user, a private size-limited writable /dev/shm (for
``multiprocessing``), the metric folder at ``METRIC_MOUNT`` and the metric
packages folder at ``PACKAGES_MOUNT`` (both read-only). ``reduced``: a plain
child process in its own session with the same resource limits and scrubbed
environment but the host's file system (the metric folder is a private temp dir),
started by ``launcher.py``, which keeps all its processes where they can be killed
(in a PID namespace of its own where the server runs as root).

As root, the runner makes the sandbox's IPC namespace itself, before bubblewrap or the
launcher starts, and caps SysV shared memory, message queues and semaphores in it
(:func:`ipc_sysctls`): a namespace's limits can be set only from inside it, by its root,
and bubblewrap's ``/proc/sys`` is read-only.

The child runs ``python -s -S -P`` with an environment we build from nothing,
not ``python -I``: ``-I`` (like ``-E``) ignores every ``PYTHON*`` variable,
including ``PYTHONHASHSEED``, and no command-line flag sets the hash seed. What
``-I`` protects against, a caller's ``PYTHONPATH`` or ``PYTHONSTARTUP``, cannot
reach the child because it sees only ``child_env()``; ``-s`` (no user site),
``-S`` (no site) and ``-P`` (no script directory on sys.path) are the rest of
``-I``. So ``hash()`` of a string is the same in every case and every run.
"""

from __future__ import annotations

import fcntl
import functools
import os
import resource
import secrets
import shutil
import subprocess
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...i18n import N_
from ...results import Isolation

if TYPE_CHECKING:
    import ctypes

SANDBOX_SRC = Path(__file__).resolve().parent.parent / "sandbox"
SANDBOX_MOUNT = "/opt/skynet"
METRIC_MOUNT = "/opt/metric"
PACKAGES_MOUNT = "/opt/metric-packages"
# -I minus -E: see the module docstring (PYTHONHASHSEED must take effect).
PYTHON_FLAGS = ("-s", "-S", "-P")
# As root, each sandbox runs as its own unused uid from this range, so that the process limit
# (counted per uid) caps each sandbox alone: one metric's fork storm cannot starve the others.
SANDBOX_UID_MIN = 1 << 20
SANDBOX_UID_SPAN = 1 << 20
GIB = 1 << 30
MIB = 1 << 20


@dataclass(frozen=True)
class Limits:
    """Resource limits for the child (and everything it starts)."""

    memory_bytes: int = 2 * GIB
    file_bytes: int = 64 * MIB
    processes: int = 64
    open_files: int = 256
    tmp_bytes: int = 64 * MIB
    shm_bytes: int = 64 * MIB
    """The private /dev/shm's size (full isolation), and the SysV shared memory allowed in all (as root)."""
    message_queue_bytes: int = 1 * MIB
    """POSIX message queues (``RLIMIT_MSGQUEUE``), and SysV message queues in all (as root)."""


# Variables a child may see; nothing else from the parent's environment crosses (no keys, no tokens).
_ENV = {
    "PATH": "/usr/local/bin:/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "HOME": "/tmp",
    "TMPDIR": "/tmp",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONIOENCODING": "utf-8",
    "PYTHONHASHSEED": "0",
    "OPENBLAS_NUM_THREADS": "1",
    "OMP_NUM_THREADS": "1",
}


def child_env() -> dict[str, str]:
    env = dict(_ENV)
    for name in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE"):  # keeps numpy from crashing on some CPUs
        if name in os.environ:
            env[name] = os.environ[name]
    return env


def python_paths() -> list[str]:
    """The import roots the metric may use: the stdlib and the installed packages, not our project."""
    # Real paths: the sandbox binds real directories, so a symlinked virtualenv's own path would not exist there
    # (and the child would lose the installed packages, orjson among them).
    found = sysconfig.get_paths()
    roots = {os.path.realpath(found[name]) for name in ("stdlib", "platstdlib", "purelib", "platlib")}
    lib_dynload = os.path.join(os.path.realpath(found["platstdlib"]), "lib-dynload")
    paths = [SANDBOX_MOUNT] + sorted(roots) + [lib_dynload]
    project_root = str(SANDBOX_SRC.parents[2])  # the checkout (skynet_core/scoring/sandbox)
    return [
        path
        for path in dict.fromkeys(paths)
        if os.path.isdir(path) or path == SANDBOX_MOUNT
        if not (path.startswith(project_root + os.sep) and ".venv" not in path)
    ]


def _interpreter() -> str:
    return os.path.realpath(sys.executable)


def _bind_roots() -> list[str]:
    """Host directories the sandbox sees read-only, besides /usr."""
    roots = {os.path.realpath(sys.base_prefix), os.path.realpath(sys.prefix)}
    roots.update(os.path.realpath(path) for path in python_paths() if path != SANDBOX_MOUNT)
    roots.add(os.path.dirname(_interpreter()))
    kept: list[str] = []
    for root in sorted(roots, key=len):
        if root.startswith("/usr") or any(root == k or root.startswith(k + os.sep) for k in kept):
            continue
        kept.append(root)
    return kept


def _dirs_for(path: str, made: set[str]) -> list[str]:
    """`--dir` arguments so every parent of a bind target exists and can be traversed by the child."""
    args: list[str] = []
    parts = Path(path).parts[1:-1]
    current = ""
    for part in parts:
        current += "/" + part
        if current not in made and current not in ("/usr", "/tmp", "/proc", "/dev"):
            made.add(current)
            args += ["--perms", "0755", "--dir", current]
    return args


def sandbox_uid() -> int:
    """A fresh uid for one sandbox (collisions between live sandboxes are one in a million)."""
    return SANDBOX_UID_MIN + secrets.randbelow(SANDBOX_UID_SPAN)


def bwrap_command(
    python_args: list[str],
    limits: Limits,
    uid: int | None = None,
    metric_dir: str | None = None,
    packages_dir: str | None = None,
) -> list[str]:
    """The bubblewrap command line; ``metric_dir`` and ``packages_dir`` (host paths) are mounted read-only
    at ``METRIC_MOUNT`` and ``PACKAGES_MOUNT`` when given."""
    bwrap = shutil.which("bwrap")
    assert bwrap is not None
    return [
        bwrap,
        *_namespaces_and_system(limits),
        *_mounts(metric_dir, packages_dir),
        *(arg for name, value in child_env().items() for arg in ("--setenv", name, value)),
        *_user(uid),
        _interpreter(),
        *python_args,
    ]


def _namespaces_and_system(limits: Limits) -> list[str]:
    """bwrap's namespaces, and the system's files read-only with a private /tmp and /dev/shm of bounded size."""
    return [
        "--unshare-pid",
        "--unshare-net",
        *([] if own_ipc_namespace() else ["--unshare-ipc"]),  # else made by child_setup()
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--clearenv",
        "--ro-bind",
        "/usr",
        "/usr",
        "--symlink",
        "usr/lib",
        "/lib",
        "--symlink",
        "usr/lib64",
        "/lib64",
        "--symlink",
        "usr/bin",
        "/bin",
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        "--perms",
        "1777",
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        "/tmp",  # writable by the sandbox user
        # multiprocessing's locks and queues are POSIX semaphores, files in /dev/shm.
        "--perms",
        "1777",
        "--size",
        str(limits.shm_bytes),
        "--tmpfs",
        "/dev/shm",
        "--chdir",
        "/tmp",
    ]


def _mounts(metric_dir: str | None, packages_dir: str | None) -> list[str]:
    """The interpreter's roots, the sandbox's own files, and the metric and packages folders, read-only."""
    args: list[str] = []
    made: set[str] = set()
    for root in _bind_roots():
        args += _dirs_for(root + "/x", made)
        args += ["--ro-bind", root, root]
    args += _dirs_for(SANDBOX_MOUNT + "/x", made)
    args += ["--ro-bind", str(SANDBOX_SRC), SANDBOX_MOUNT]
    for host, mount in ((metric_dir, METRIC_MOUNT), (packages_dir, PACKAGES_MOUNT)):
        if host is not None:
            args += _dirs_for(mount + "/x", made)
            args += ["--ro-bind", host, mount]
    return args


def _user(uid: int | None) -> list[str]:
    """Who the metric runs as (an unused uid with no capabilities, or a user namespace), up to the ``--``
    that ends bwrap's options."""
    if os.geteuid() == 0:
        # Root sets up the namespaces, then the metric runs as an unused uid with no capabilities.
        uid = uid if uid is not None else sandbox_uid()
        setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
        return [
            "--",
            setpriv,
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--no-new-privs",
        ]
    return ["--unshare-user", "--cap-drop", "ALL", "--"]


def reduced_command(python_args: list[str], watch_fd: int) -> list[str]:
    """The launcher (see ``sandbox/launcher.py``) starting the child; it kills everything when ``watch_fd``,
    the child's end of the request pipe, hangs up."""
    launcher = str(SANDBOX_SRC / "launcher.py")
    return [_interpreter(), *PYTHON_FLAGS, launcher, str(watch_fd), "--", _interpreter(), *python_args]


def child_args(
    request_fd: int,
    reply_fd: int,
    isolation: Isolation,
    progress_fd: int,
    metric_dir: str,
    packages_dir: str | None = None,
) -> list[str]:
    """The interpreter's arguments. ``metric_dir`` and ``packages_dir`` are paths as the child sees them.

    sys.path: our sandbox modules, the metric folder (as ``python metric.py`` would put it), the
    stdlib and the studio's packages, then the metric packages folder: a package installed for
    metrics never shadows one the studio has.
    """
    import orjson

    script_dir = SANDBOX_MOUNT if isolation is Isolation.FULL else str(SANDBOX_SRC)
    paths = [script_dir if path == SANDBOX_MOUNT else path for path in python_paths()]
    paths.insert(1, metric_dir)
    if packages_dir is not None:
        paths.append(packages_dir)
    return [
        *PYTHON_FLAGS,
        f"{script_dir}/child.py",
        str(request_fd),
        str(reply_fd),
        orjson.dumps(paths).decode(),
        str(progress_fd),
        metric_dir,
    ]


CLONE_NEWIPC = 0x08000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
SYSV_SEGMENTS = 256
SYSV_MESSAGE_QUEUES = 16
SYSV_SEMAPHORES = "250 32000 32 128"  # per array, in all, per semop call, arrays: about 2 MB of kernel memory


def own_ipc_namespace() -> bool:
    """Whether :func:`child_setup` gives the sandbox an IPC namespace, with limits (root only), rather than
    leaving it to bubblewrap (``--unshare-ipc``, with the kernel's defaults)."""
    return os.geteuid() == 0


def reduced_pid_namespace() -> bool:
    """Whether a reduced sandbox's launcher gets a PID namespace for its children (as root), rather than
    being their subreaper (see ``sandbox/launcher.py``)."""
    return os.geteuid() == 0


def ipc_sysctls(limits: Limits) -> dict[str, int | str]:
    """The limits set in the sandbox's own IPC namespace (files under /proc/sys): SysV shared memory in all
    at most ``limits.shm_bytes`` (the private /dev/shm's size), SysV message queues at most
    ``limits.message_queue_bytes`` in all, and about 2 MB of semaphores. The kernel's defaults allow
    petabytes of shared memory and gigabytes of queues and semaphores, none of it in any process's memory."""
    queue_bytes = limits.message_queue_bytes // SYSV_MESSAGE_QUEUES
    return {
        "kernel/shmmax": limits.shm_bytes,
        "kernel/shmall": limits.shm_bytes // os.sysconf("SC_PAGE_SIZE"),
        "kernel/shmmni": SYSV_SEGMENTS,
        "kernel/msgmni": SYSV_MESSAGE_QUEUES,
        "kernel/msgmnb": queue_bytes,
        "kernel/msgmax": min(8192, queue_bytes),
        "kernel/sem": SYSV_SEMAPHORES,
    }


def child_setup(limits: Limits, isolation: Isolation, cgroup_procs: str | None = None) -> Callable[[], None]:
    """What the forked child does before it starts bubblewrap or the launcher (Popen's ``preexec_fn``): it joins
    its memory cgroup (``cgroup_procs``, the cgroup's ``cgroup.procs``: see :mod:`.memcg`), so that everything
    it starts is counted there; the resource limits every process it starts inherits; as root, its own
    namespaces.

    As root: a new IPC namespace with :func:`ipc_sysctls` (both levels; a full sandbox that cannot have one
    does not start), and for the reduced level a new network namespace (no network) and a PID namespace
    for the launcher's children (best effort: without them the launcher falls back to a subreaper).
    Everything is prepared here, in the parent: the child only makes system calls.
    """
    import ctypes

    rlimits = [
        (kind, _within_hard_limit(kind, value))
        for kind, value in (
            (resource.RLIMIT_AS, limits.memory_bytes),
            (resource.RLIMIT_FSIZE, limits.file_bytes),
            (resource.RLIMIT_NOFILE, limits.open_files),
            (resource.RLIMIT_CORE, 0),
            # Counted per user: effective when the child runs as its own unprivileged user (full isolation as root).
            (resource.RLIMIT_NPROC, limits.processes),
            (resource.RLIMIT_MSGQUEUE, limits.message_queue_bytes),
        )
    ]
    flags = CLONE_NEWIPC if own_ipc_namespace() else 0
    if flags and isolation is Isolation.REDUCED:
        flags |= CLONE_NEWNET | (CLONE_NEWPID if reduced_pid_namespace() else 0)
    unshare = libc().unshare if flags else None
    host_ipc = os.readlink("/proc/self/ns/ipc")
    writes = [(f"/proc/sys/{name}", str(value).encode()) for name, value in ipc_sysctls(limits).items()]

    def setup() -> None:
        if cgroup_procs is not None:
            try:
                fd = os.open(cgroup_procs, os.O_WRONLY)
                try:
                    os.write(fd, b"0")  # this process; the watchdog still enforces the limit if the kernel cannot
                finally:
                    os.close(fd)
            except OSError:
                pass
        if unshare is not None and unshare(flags) != 0:
            if isolation is Isolation.FULL:
                raise OSError(ctypes.get_errno(), "the sandbox's IPC namespace could not be made")
            for flag in (CLONE_NEWIPC, CLONE_NEWNET, CLONE_NEWPID):
                unshare(flag)
        # Never the host's own limits: only in a namespace just made for this sandbox.
        if unshare is not None and os.readlink("/proc/self/ns/ipc") != host_ipc:
            for path, text in writes:
                try:
                    fd = os.open(path, os.O_WRONLY)
                except OSError:
                    continue  # a kernel without this kind of IPC
                try:
                    os.write(fd, text)
                finally:
                    os.close(fd)
        for kind, value in rlimits:
            resource.setrlimit(kind, (value, value))

    return setup


def _within_hard_limit(kind: int, value: int) -> int:
    """``value``, or the hard limit already in force when it is lower (raising it needs CAP_SYS_RESOURCE)."""
    hard = resource.getrlimit(kind)[1]
    return value if hard == resource.RLIM_INFINITY else min(value, hard)


@functools.lru_cache(maxsize=1)
def libc() -> ctypes.CDLL:
    """The C library, for the system calls Python 3.11 lacks (``unshare``, ``setns``); ctypes is imported
    on first use, not with the runner."""
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


# N_: cached once per process, so shown translated (``_(reason)``) in each session's language.
FULL_REASON = N_("bubblewrap sandbox: no network, private /tmp, unprivileged user")
"""Why the isolation is full: what :func:`detect_isolation` says, and a pool whose first sandbox started."""


def full_may_work() -> bool:
    """Whether :func:`detect_isolation` may find full isolation (its quick checks, without the probe)."""
    return (
        os.environ.get("SKYNET_ISOLATION", "").lower() != "reduced"
        and sys.platform.startswith("linux")
        and shutil.which("bwrap") is not None
    )


@functools.lru_cache(maxsize=1)
def detect_isolation() -> tuple[Isolation, str]:
    """The isolation this machine gives, and why (a reason to show when it is reduced).

    ``SKYNET_ISOLATION=reduced`` forces the reduced level (for machines where
    bubblewrap misbehaves); nothing can force ``full`` when it does not work.
    """
    if os.environ.get("SKYNET_ISOLATION", "").lower() == "reduced":
        return Isolation.REDUCED, N_("SKYNET_ISOLATION=reduced is set")
    if not sys.platform.startswith("linux"):
        return Isolation.REDUCED, f"bubblewrap needs Linux; this is {sys.platform}"
    if shutil.which("bwrap") is None:
        return Isolation.REDUCED, N_("bubblewrap is not installed (Debian/Ubuntu: apt-get install bubblewrap)")
    probe = bwrap_command(["-I", "-S", "-c", "import os; print(os.getuid())"], Limits())
    try:
        done = subprocess.run(probe, capture_output=True, text=True, timeout=20, env={})
    except (OSError, subprocess.TimeoutExpired) as exc:
        return Isolation.REDUCED, f"bubblewrap could not start ({exc})"
    if done.returncode != 0:
        reason = (done.stderr.strip().splitlines() or ["no message"])[-1]
        return Isolation.REDUCED, f"bubblewrap could not start: {reason}"
    return Isolation.FULL, FULL_REASON


def widen_pipe(fd: int) -> None:
    """A 1 MiB pipe lets a whole batch of cases or results cross in one write (Linux only)."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, 1 << 20)
    except (AttributeError, OSError):
        pass  # the default size works, only with more round trips
