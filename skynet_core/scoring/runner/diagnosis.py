"""Why a child stopped and where it was: the message for a child that died, the metric folder's frame in a
stack dump, and the child's process under its sandbox's launcher."""

from __future__ import annotations

import os
import re
import signal

from ... import i18n
from ...results import Isolation

CHANNEL_BROKEN_EXIT = 86  # the child's exit code when metric code broke its channel (as in sandbox/child_channel.py)


def death_message(what: str, code: int | None, text: str, metric_dir: str) -> str:
    """``what`` happened to the child (its exit ``code``, None when unknown), told with what its stderr
    ``text`` shows: a signal's meaning, a fatal Python error, the metric folder's innermost frame."""
    if code == CHANNEL_BROKEN_EXIT:
        return i18n._(
            "metric code closed or replaced the runner's channel (its inherited file descriptors) during "
            "this case, so the sandbox stopped; leave file descriptors you did not open alone"
        )
    if code is not None and code > 128:
        code = 128 - code  # bubblewrap and the launcher report the child's death by signal N as 128 + N
    if code is not None and code < 0:
        try:
            name = signal.Signals(-code).name
        except ValueError:
            name = f"signal {-code}"
        template = {
            "SIGSEGV": i18n._("{what}: {signal} (a segmentation fault: a crash in native code or unbounded recursion)"),
            "SIGKILL": i18n._("{what}: {signal} (killed: by metric code, or the machine ran out of memory)"),
            "SIGXFSZ": i18n._("{what}: {signal} (a file grew past the sandbox's file size limit)"),
        }.get(name) or i18n._("{what}: {signal}")
        what = template.format(what=what, signal=name)
    elif code is not None:
        # sys.exit in score is caught and reported by the child, so an exit comes from os._exit
        # or from the child failing to answer on a channel that metric code closed.
        what = i18n._(
            "{what} with code {code} (did metric code call os._exit, or close the runner's file descriptors?)"
        ).format(what=what, code=code)
    if "Fatal Python error" in text:
        fatal = text[text.index("Fatal Python error") :].splitlines()[0]
        what = i18n._("{what}: {fatal}").format(what=what, fatal=fatal)
    frame = last_metric_frame(text, metric_dir)
    if not frame:
        return what
    where = i18n._("{file} line {line}").format(file=frame[0], line=frame[1])
    return i18n._("{what} at {where}").format(what=what, where=where)


def first_child(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/task/{pid}/children") as handle:
            children = handle.read().split()
    except OSError:
        return None
    return int(children[0]) if children else None


def has_pid_namespace(pid: int) -> bool:
    """Whether ``pid`` (a launcher or bubblewrap) started its children in a PID namespace of their own."""
    try:
        return os.readlink(f"/proc/{pid}/ns/pid_for_children") != os.readlink(f"/proc/{pid}/ns/pid")
    except OSError:
        return True  # gone: so is what it started in one; else nothing is left to find


def python_pid(pid: int, isolation: Isolation) -> int | None:
    """The child's Python process under the sandbox process ``pid``: bubblewrap → its PID-1 reaper → the
    child; the reduced launcher → (its PID 1 →) the child."""
    levels = 1 if isolation is Isolation.REDUCED and not has_pid_namespace(pid) else 2
    for _level in range(levels):
        found = first_child(pid)
        if found is None:
            return None
        pid = found
    return pid


def last_metric_frame(text: str, metric_dir: str) -> tuple[str, int] | None:
    """The innermost frame in the metric folder of a faulthandler dump (it lists the innermost
    frame first), as (file relative to the folder, line)."""
    pattern = re.compile(r'File "' + re.escape(metric_dir.rstrip("/")) + r'/([\w.-][\w./-]{0,254}\.py)", line (\d+)')
    blocks = text.strip().split("\n\n")
    for block in reversed(blocks):
        found = pattern.findall(block)
        if found:
            return found[0][0], int(found[0][1])
    return None
