"""The runner's temporary metric folders: each named for the process that made it, and those of processes that
are gone removed when the next one starts.

A worker writes the metric folder into ``<tmp>/skynet-metric-<pid>-<namespace>-<random>`` and removes it when
it closes (and at exit). A server killed with ``kill -9`` cannot: its folders stay. The first metric folder a
process makes first removes the folders whose owner process no longer runs. Folders of a running process, of
another user, of another PID namespace (a container sharing the temporary folder, whose pids mean nothing here)
or made before the names carried the owner are left alone.
"""

from __future__ import annotations

import atexit
import os
import re
import shutil
import stat
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...metric.source import MetricSource

METRIC_PREFIX = "skynet-metric-"
_OWNED = re.compile(re.escape(METRIC_PREFIX) + r"(\d+)-(\d+)-")
_cleaned = threading.Event()
live_roots: set[str] = set()
"""Metric folders of workers not closed yet; removed at exit too (a spare being started when the interpreter
exits is never closed)."""


@atexit.register
def _remove_live_roots() -> None:
    for root in list(live_roots):
        shutil.rmtree(root, ignore_errors=True)


def _namespace() -> int:
    """This process's PID namespace (the inode of ``/proc/self/ns/pid``), 0 where there is none to read."""
    try:
        return os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return 0


def make_metric_root() -> str:
    """A new private folder for a worker's copy of the metric, named for this process (stale ones removed first,
    once per process)."""
    if not _cleaned.is_set():
        _cleaned.set()
        remove_stale()
    return tempfile.mkdtemp(prefix=owned_prefix())


def owned_prefix() -> str:
    """The start of this process's metric folders' names."""
    return f"{METRIC_PREFIX}{os.getpid()}-{_namespace()}-"


def remove_stale(folder: str | Path | None = None) -> list[Path]:
    """Remove the metric folders in ``folder`` (the temporary folder) whose owner process is gone; return them."""
    folder = Path(folder or tempfile.gettempdir())
    removed = []
    namespace = _namespace()
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        owner = _OWNED.match(entry.name)
        if owner is None or int(owner.group(2)) != namespace or not entry.is_dir(follow_symlinks=False):
            continue
        if _running(int(owner.group(1))):
            continue
        try:
            if entry.stat(follow_symlinks=False).st_uid != os.getuid():
                continue
        except OSError:
            continue
        shutil.rmtree(entry.path, ignore_errors=True)
        removed.append(Path(entry.path))
    return removed


def _running(pid: int) -> bool:
    """Whether a process ``pid`` exists (a pid reused by another process counts: leaving a folder is harmless)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (PermissionError, OverflowError):
        return True
    return True


def materialise(source: MetricSource, folder: str) -> None:
    """Write the metric folder's files (replacing what was there), readable by the sandbox's uid."""
    for entry in os.scandir(folder):
        if entry.is_dir(follow_symlinks=False):
            shutil.rmtree(entry.path, ignore_errors=True)
        else:
            os.unlink(entry.path)
    source.write_to(folder)
    for root, dirs, files in os.walk(folder):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), stat.S_IRUSR | stat.S_IWUSR | stat.S_IRGRP | stat.S_IROTH)
