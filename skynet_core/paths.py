"""Paths given to the studio: only regular files are read, so a named pipe or a device cannot hang or flood
it, and a path typed in the browser reaches only the configured data roots."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from skynet_core.i18n import N_, _

_KINDS = (
    (stat.S_ISFIFO, N_("a named pipe (FIFO)")),
    (stat.S_ISCHR, N_("a character device")),
    (stat.S_ISBLK, N_("a block device")),
    (stat.S_ISSOCK, N_("a socket")),
)


def special_file(path: str | Path) -> str | None:
    """What ``path`` is when it is neither a regular file nor a folder (``"a named pipe (FIFO)"``, …, in the
    current language, for messages), else None.

    Reading a FIFO waits forever for a writer and a device such as ``/dev/zero`` never ends; a
    caller refuses such a path before opening it. Symbolic links are followed; a path that
    does not exist is None (the caller's own "not found" applies).
    """
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):  # ValueError: a NUL in the path (path_problem says so)
        return None
    return next((_(kind) for test, kind in _KINDS if test(mode)), None)


MAX_NAME_BYTES = 255  # a file or folder name, on every common Linux file system
MAX_PATH_BYTES = 4096


def path_problem(path: str | Path) -> str | None:
    """Why ``path`` cannot name a file at all, for people (a NUL character, a name or path too long for the
    file system), or None. Checked before the path is used: the system's own errors (``ValueError: embedded
    null byte``, ``OSError: [Errno 36] File name too long``) would otherwise escape as tracebacks."""
    text = os.fspath(path)
    if "\0" in text:
        return _("the path holds a NUL character, which no file name can; check how it was typed or pasted")
    encoded = os.fsencode(text)
    longest = max((len(part) for part in encoded.split(b"/")), default=0)
    if longest > MAX_NAME_BYTES:
        return _("a name in the path is {size} bytes long, but a file system allows at most {limit}").format(
            size=longest, limit=MAX_NAME_BYTES
        )
    if len(encoded) > MAX_PATH_BYTES:
        return _("the path is {size} bytes long, but a file system allows at most {limit}").format(
            size=len(encoded), limit=MAX_PATH_BYTES
        )
    return None


def output_problem(path: str | Path) -> str | None:
    """Why a new file cannot be written at ``path``, for people, or None when it can (checked before the work)."""
    if problem := path_problem(path):
        return problem
    path = Path(path)
    folder = path.parent
    if path.is_dir():
        return _("{path} is a folder; give a file name inside it").format(path=path)
    if kind := special_file(path):
        return _("{path} is {kind}, not a file; give a regular file name").format(path=path, kind=kind)
    if not folder.exists():
        return _("the folder {folder} does not exist; create it first or write somewhere else").format(folder=folder)
    if not folder.is_dir():
        return _("{folder} is not a folder; write somewhere else").format(folder=folder)
    if not os.access(folder, os.W_OK | os.X_OK) or (path.exists() and not os.access(path, os.W_OK)):
        return _("{path} is not writable by this user; write somewhere else").format(path=path)
    return None


def file_identity(path: str | Path) -> tuple[int, int] | Path:
    """What makes two paths the same file: its device and inode when it exists (so a hard link or another
    spelling of the path is the same file), else its absolute path with ``..`` resolved."""
    try:
        info = os.stat(path)
    except (OSError, ValueError):
        return Path(os.path.abspath(path))
    return info.st_dev, info.st_ino


def same_file_as(path: str | Path, others: Iterable[str | Path]) -> str | Path | None:
    """The first of ``others`` that is the same file as ``path`` (see :func:`file_identity`), or None."""
    identity = file_identity(path)
    return next((other for other in others if file_identity(other) == identity), None)


DATA_ROOTS_ENV = "SKYNET_DATA_ROOTS"


class PathRefused(ValueError):
    """A path typed in the browser is outside the folders the studio may read."""


def data_roots(env: Mapping[str, str] | None = None) -> list[Path]:
    """The folders whose files a page visitor may open by path: the data directory, the bundled examples,
    and the folders in ``SKYNET_DATA_ROOTS`` (separated by ``:``), each fully resolved."""
    from .examples import __file__ as examples_init
    from .store import data_dir

    env = os.environ if env is None else env
    extra = [Path(item).expanduser() for item in env.get(DATA_ROOTS_ENV, "").split(os.pathsep) if item.strip()]
    roots: list[Path] = []
    for root in (data_dir(), Path(examples_init).parent, *extra):
        resolved = root.resolve()
        if resolved not in roots:
            roots.append(resolved)
    return roots


def server_path(typed: str, env: Mapping[str, str] | None = None) -> Path:
    """The file a page visitor typed, resolved (``~``, ``..`` and symbolic links followed) and inside one of
    :func:`data_roots`; a relative path is taken from the data directory. Raises :class:`PathRefused`.

    The server may be able to read far more than its visitors should (``/root/creds.json``,
    ``../../etc/shadow``): a path typed in the browser reaches only the configured roots.
    """
    if problem := path_problem(typed.strip()):
        raise PathRefused(_("{path}: {problem}").format(path=typed.strip()[:200], problem=problem))
    roots = data_roots(env)
    path = Path(typed.strip()).expanduser()
    resolved = (path if path.is_absolute() else roots[0] / path).resolve()
    if not any(resolved == root or resolved.is_relative_to(root) for root in roots):
        shown = ", ".join(str(root) for root in roots)
        raise PathRefused(
            _(
                "{path} is outside the folders the studio may read ({roots}). Upload the file, put it in one "
                "of them, or add its folder to {variable} in the server's environment (then restart it)."
            ).format(path=typed.strip(), roots=shown, variable=DATA_ROOTS_ENV)
        )
    return resolved
