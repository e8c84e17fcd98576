"""Paths given to the studio: only regular files are read, so a named pipe or a device cannot hang or flood it."""

from __future__ import annotations

import os
import stat
from pathlib import Path

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISSOCK, "a socket"),
)


def special_file(path: str | Path) -> str | None:
    """What ``path`` is when it is neither a regular file nor a folder (``"a named pipe (FIFO)"``, …), else None.

    Reading a FIFO waits forever for a writer and a device such as ``/dev/zero`` never ends; a
    caller refuses such a path before opening it. Symbolic links are followed; a path that
    does not exist is None (the caller's own "not found" applies).
    """
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    return next((kind for test, kind in _KINDS if test(mode)), None)


def output_problem(path: str | Path) -> str | None:
    """Why a new file cannot be written at ``path``, for people, or None when it can (checked before the work)."""
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        return f"{path} is a folder; give a file name inside it"
    if kind := special_file(path):
        return f"{path} is {kind}, not a file; give a regular file name"
    if not folder.exists():
        return f"the folder {folder} does not exist; create it first or write somewhere else"
    if not folder.is_dir():
        return f"{folder} is not a folder; write somewhere else"
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return f"{path} is not writable by this user; write somewhere else"
    return None
