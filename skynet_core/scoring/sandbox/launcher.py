"""The reduced sandbox's first process: it keeps every process of the metric where it can be killed.

STDLIB ONLY. Started by ``skynet_core.scoring.runner`` (reduced isolation) as

    python -s -S -P launcher.py WATCH_FD -- PYTHON CHILD_ARGS...

A process group is not enough: metric code that forks twice and calls ``setsid`` leaves it.
Two ways, the first where the runner could give this process a PID namespace for its children
(as root):

- **PID namespace.** This process forks the namespace's init, which starts the child and reaps
  the orphans that are reparented to it. When the child exits, init exits, and the kernel kills
  every process left in the namespace, whatever session or process group it is in.
- **Child subreaper** (``PR_SET_CHILD_SUBREAPER``). Orphans of the child's tree are reparented to
  this process instead of the system's init; when the child exits, this process kills every
  process below it, then exits. (The runner, which kills this process with SIGKILL, first kills
  what is below it the same way.)

Either way, when the runner goes away (``WATCH_FD``, the read end of its request pipe, hangs up)
everything is killed, and this process exits with the child's status: its exit code, or 128 + N
after signal N (as bubblewrap reports it).
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time

PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
KILL_ROUNDS = 100


def _prctl(option: int, value: int) -> None:
    import ctypes  # here, not with the module: the runner imports it for kill_below

    ctypes.CDLL(None, use_errno=True).prctl(option, value, 0, 0, 0)


def _status_code(status: int) -> int:
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1


def _keep_only(*kept: int) -> None:
    """Let go of every descriptor but ``kept``; the standard ones now lead nowhere, so that the runner sees
    the end of the child's output and of its channel when the child, not this process, is gone."""
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    for name in os.listdir("/proc/self/fd"):
        fd = int(name)
        if fd > 2 and fd not in kept:
            try:
                os.close(fd)
            except OSError:
                pass  # the listing's own descriptor, closed already


def _start(command: list[str]) -> int:
    child = os.fork()
    if child == 0:
        try:
            signal.set_wakeup_fd(-1)
            os.execv(command[0], command)
        finally:
            os._exit(127)
    return child


def _init(command: list[str]) -> None:
    """PID 1 of the namespace: start the child, reap every orphan, exit with the child's status."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    _prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    child = _start(command)
    _keep_only()
    while True:
        pid, status = os.wait()
        if pid == child:
            os._exit(_status_code(status))


def _children(pid: int) -> list[int]:
    """``pid``'s children, made by any of its threads."""
    found: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return found
    for task in tasks:
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(child) for child in handle.read().split()]
        except OSError:
            continue
    return found


def running(pid: int) -> bool:
    """Whether ``pid`` is running (not gone, not a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rpartition(")")[2].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def descendants(root: int) -> list[int]:
    """Every process below ``root`` that has not exited yet."""
    found, todo = [], _children(root)
    while todo:
        pid = todo.pop()
        if running(pid):
            found.append(pid)
            todo += _children(pid)
    return found


def kill_below(root: int) -> None:
    """SIGKILL every process below ``root`` until none is left (a process cannot fork once killed, so each
    round finds fewer); ``root`` reaps its children meanwhile when it is this process. The runner calls it
    too (it imports this module), for a launcher without a PID namespace, before killing the launcher."""
    for _ in range(KILL_ROUNDS):
        below = descendants(root)
        if not below:
            return
        for pid in below:
            try:
                os.kill(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if root == os.getpid():
            _reap_orphans()
        time.sleep(0.001)  # the killed take a moment to exit


def _pid_namespace_for_children() -> bool:
    """Whether the runner gave this process's children a PID namespace of their own."""
    try:
        return os.readlink("/proc/self/ns/pid_for_children") != os.readlink("/proc/self/ns/pid")
    except FileNotFoundError:
        return True  # made and still empty: the kernel names it once its first process exists


def _reap_orphans() -> None:
    try:
        while os.waitpid(-1, os.WNOHANG)[0] > 0:
            pass
    except ChildProcessError:
        pass


def main(argv: list[str]) -> None:
    watch, command = int(argv[1]), argv[3:]
    # SIGCHLD wakes the loop below through a pipe (set before the first fork, so no exit is missed).
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda *_: None)
    if _pid_namespace_for_children():
        main_pid = os.fork()
        if main_pid == 0:
            _init(command)
    else:
        _prctl(PR_SET_CHILD_SUBREAPER, 1)
        main_pid = _start(command)
    _keep_only(watch, wake_read, wake_write)
    poller = select.poll()
    poller.register(watch, 0)  # only a hang-up is reported: the runner closed its end, or is gone
    poller.register(wake_read, select.POLLIN)
    while True:
        pid, status = os.waitpid(main_pid, os.WNOHANG)
        if pid == main_pid:
            break
        _reap_orphans()  # reparented to this subreaper
        events = poller.poll()
        if any(fd == watch for fd, _ in events):
            os.kill(main_pid, signal.SIGKILL)
        try:
            while os.read(wake_read, 4096):
                pass
        except BlockingIOError:
            pass
    kill_below(os.getpid())
    os._exit(_status_code(status))


if __name__ == "__main__":
    main(sys.argv)
