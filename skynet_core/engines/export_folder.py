"""An engine export written into its folder, and written again: the folder holds what the newest export wrote
and what its user put there, never a file of an earlier export that the newest no longer writes.

Every export writes :data:`MARKER`, which lists the files it wrote with each one's SHA-256. Writing again:

- ``metric/`` is replaced as a whole (the new one is written beside it, then the two are swapped), so the
  exported metric can import no module of an earlier one. A file in the old ``metric/`` that the earlier export
  did not write, or that changed since, is the user's: the export is refused, naming it, before anything is
  written. (An export of the kind before this list, whose marker lists nothing, may replace in ``metric/`` only
  the files the new export writes again; any other file there refuses it.)
- the other files are each written through a temporary file renamed over the old one;
- a file the earlier export wrote that the new one does not (``run_dspy.py`` after an export for GEPA, a
  vendored module no longer needed) is removed when it is still as the studio wrote it, and kept otherwise.
"""

from __future__ import annotations

import hashlib
import os
import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

import orjson

from ..i18n import _
from ..metric.source import EXPORT_MARKER, MAX_TOTAL_BYTES

MARKER = EXPORT_MARKER
WRITTEN_BY = "Skynet Metric Studio export"
METRIC = "metric"
SHOWN = 8


class ExportError(ValueError):
    """An export that cannot be written; the message says what to change."""


def marker_text(files: Mapping[str, str]) -> str:
    """The marker of an export of ``files`` (relative path → text): who wrote the folder, and each file's hash.
    ``written_by`` comes first: a reader recognises an export's marker by its first 200 characters."""
    written = {name: _digest(text.encode("utf-8")) for name, text in files.items() if name != MARKER}
    return orjson.dumps({"written_by": WRITTEN_BY, "files": written}, option=orjson.OPT_INDENT_2).decode() + "\n"


def is_marker(path: Path) -> bool:
    """Whether ``path`` is an export's marker (a regular file, not a link, saying who wrote it)."""
    try:
        return path.is_file() and not path.is_symlink() and WRITTEN_BY in path.read_text()[:200]
    except (OSError, UnicodeDecodeError):
        return False


def write_folder(folder: Path, files: Mapping[str, str]) -> None:
    """Write ``files`` into ``folder`` (new, empty, or an export's: :func:`is_marker`), as the module says.
    Raises :class:`ExportError` naming the user's files in ``metric/`` before writing anything."""
    earlier = _earlier_files(folder)
    _refuse_users_metric_files(folder, files, earlier)
    folder.mkdir(parents=True, exist_ok=True)
    _swap_metric(folder, {name: text for name, text in files.items() if name.startswith(METRIC + "/")})
    for name, text in files.items():
        if not name.startswith(METRIC + "/") and name != MARKER:
            _replace(folder, name, text)
    for name, digest in (earlier or {}).items():
        if name not in files and not name.startswith(METRIC + "/"):
            _remove_if_unchanged(folder, name, digest)
    if MARKER in files:
        _replace(folder, MARKER, files[MARKER])  # last: until it is written, the folder's marker is the earlier one


def _earlier_files(folder: Path) -> dict[str, str] | None:
    """What the earlier export in ``folder`` wrote (relative path → SHA-256), or None when its marker lists
    nothing (an export of the kind before the list, or no export at all)."""
    if not is_marker(folder / MARKER):
        return None
    try:
        value = orjson.loads((folder / MARKER).read_bytes())
    except (OSError, orjson.JSONDecodeError):
        return None
    listed = value.get("files") if isinstance(value, dict) else None
    if not isinstance(listed, dict):
        return None
    return {name: digest for name, digest in listed.items() if isinstance(name, str) and isinstance(digest, str)}


def _refuse_users_metric_files(folder: Path, files: Mapping[str, str], earlier: dict[str, str] | None) -> None:
    metric = folder / METRIC
    if metric.is_symlink() or (metric.exists() and not metric.is_dir()):
        raise ExportError(
            _("{path} is not the folder an export wrote; move it out of {folder} or export into a new folder.").format(
                path=metric, folder=folder
            )
        )
    theirs = [
        name
        for name, path in _entries(metric)
        if not (_unchanged(path, earlier.get(name)) if earlier is not None else name in files)
    ]
    if theirs:
        shown = ", ".join(theirs[:SHOWN]) + (", …" if len(theirs) > SHOWN else "")
        raise ExportError(
            _(
                "{metric} holds {files}, which the earlier export did not write or which changed since it did; an "
                "export replaces that folder as a whole. Move them out, or export into a new folder."
            ).format(metric=metric, files=shown)
        )


def _entries(metric: Path) -> Iterator[tuple[str, Path]]:
    """Everything in ``metric`` that is not a folder (links not followed), by its name in the export."""
    if not metric.is_dir():
        return
    for root, folders, names in os.walk(metric):
        here = Path(root)
        for name in [*names, *(item for item in folders if (here / item).is_symlink())]:
            yield (here / name).relative_to(metric.parent).as_posix(), here / name


def _unchanged(path: Path, digest: str | None) -> bool:
    """Whether ``path`` is a regular file whose content has the SHA-256 ``digest`` (an export's own file)."""
    if digest is None or path.is_symlink() or not path.is_file():
        return False
    try:
        if path.stat().st_size > MAX_TOTAL_BYTES:  # more than a metric folder may hold: not one the export wrote
            return False
        return _digest(path.read_bytes()) == digest
    except OSError:
        return False


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _swap_metric(folder: Path, files: Mapping[str, str]) -> None:
    """Write ``metric/`` beside the old one, then put it in the old one's place and remove the old one."""
    new, old = folder / f".{METRIC}.{os.getpid()}.new", folder / f".{METRIC}.{os.getpid()}.old"
    shutil.rmtree(new, ignore_errors=True)
    try:
        for name, text in files.items():
            target = new / name.removeprefix(METRIC + "/")
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
        if (folder / METRIC).exists():
            os.rename(folder / METRIC, old)
        os.rename(new, folder / METRIC)
    except BaseException:
        shutil.rmtree(new, ignore_errors=True)
        raise
    shutil.rmtree(old, ignore_errors=True)


def _replace(folder: Path, name: str, text: str) -> None:
    """Write ``folder/name`` through a temporary file renamed over it; its folder must lie inside ``folder``."""
    target = folder / name
    target.parent.mkdir(parents=True, exist_ok=True)
    if not target.parent.resolve().is_relative_to(folder.resolve()):
        raise ExportError(
            _("{path} leads outside {folder} (a link); remove the link or export into a new folder.").format(
                path=target.parent, folder=folder
            )
        )
    partial = target.with_name(f".{target.name}.{os.getpid()}.part")
    try:
        partial.write_text(text, encoding="utf-8")
        os.replace(partial, target)
    except BaseException:
        partial.unlink(missing_ok=True)
        raise


def _remove_if_unchanged(folder: Path, name: str, digest: str) -> None:
    """Remove ``folder/name``, a file the earlier export wrote, when it is still as written (and the folders it
    leaves empty, up to ``folder``); a file the user changed is theirs and stays."""
    path = folder / name
    if not path.resolve().is_relative_to(folder.resolve()) or not _unchanged(path, digest):
        return
    path.unlink()
    parent = path.parent
    while parent != folder and parent.is_relative_to(folder):
        try:
            parent.rmdir()
        except OSError:  # not empty: the rest is still there
            return
        parent = parent.parent
