"""Reading a metric folder from disk (the CLI, the engines' snippets): what comes along, and what never does.

``read_metric_folder(path)`` takes metric.py or its folder:

- a **folder** brings its files (``*.py`` and small data files, at the top and one folder down), within
  the limits of :class:`~skynet_core.metric.source.MetricSource`;
- **metric.py in a folder that fits those limits** brings the folder's files the same way;
- **metric.py in a busy folder** (a project's root, ``/tmp``) brings only what it needs: the helper
  modules it imports and the files it names (:mod:`skynet_core.metric.needs`), and says which.

Nothing is followed out of the folder: a symbolic link among the files that would come along is
refused by name (``notes.txt -> /proc/self/environ`` would hand the metric the server's
environment), a linked folder is left out, and every file is opened without following links and
must be a regular file. Files left out for a reason people should know (not UTF-8, over 1 MB, a
name that is not plain, a linked folder) are listed in ``notes``; hidden, environment and export
folders are left out silently, as are the data files given with the metric (``exclude``).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from ..i18n import _
from ..paths import file_identity, path_problem
from .needs import FolderView, needed_files
from .source import (
    DATA_SUFFIXES,
    EXPORT_MARKER,
    MAIN_FILE,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    MetricSource,
    MetricSourceError,
    check_name,
)

MAX_DATA_FILE_BYTES = 1_000_000  # a data file beside metric.py over this is a dataset, not the metric's
MAX_WALK_ENTRIES = 2000  # entries looked at before a folder counts as busy
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env"})


@dataclass(frozen=True)
class FolderRead:
    """A metric read from disk: the ``source``, the ``folder`` it came from, whether only what metric.py
    needs came along (``by_need``), and ``notes`` for people about files left out."""

    source: MetricSource
    main: Path
    by_need: bool
    notes: tuple[str, ...]

    @property
    def folder(self) -> Path:
        return self.main.parent

    def paths(self) -> list[Path]:
        """The files on disk the source was read from, metric.py (``main``) first."""
        return [self.main, *(self.folder / name for name in self.source.files if name != MAIN_FILE)]


class _Busy(Exception):
    """The folder holds more than a metric folder may: take only what metric.py needs."""


def read_metric(path: str | Path, *, exclude: tuple[str | Path, ...] = ()) -> MetricSource:
    """The metric at ``path``: metric.py (with what it needs of its folder) or the folder; see
    :func:`read_metric_folder`. ``exclude`` (the dataset given with it) never comes along."""
    return read_metric_folder(path, exclude=exclude).source


def read_metric_folder(path: str | Path, *, exclude: Iterable[str | Path] = ()) -> FolderRead:
    """Read metric.py (``path``, or ``path/metric.py`` for a folder) and the files that come along with it.

    A file of another name is read as metric.py. Raises :class:`MetricSourceError` naming the file
    and the fix.
    """
    if problem := path_problem(path):
        raise MetricSourceError(_("{path}: {problem}").format(path=path, problem=problem))
    path = Path(path)
    is_folder = path.is_dir()
    folder, main = (path, path / MAIN_FILE) if is_folder else (path.parent, path)
    main_text = _read(main, required=True)
    excluded = {file_identity(item) for item in (main, *exclude)}
    reader = _Reader(folder, excluded)
    try:
        files = reader.take_all()
    except _Busy as busy:
        if is_folder:
            raise MetricSourceError(str(busy)) from None
        return reader.take_needed(main, main_text, busy)
    return FolderRead(MetricSource({MAIN_FILE: main_text, **files}), main, False, tuple(reader.notes))


class _Reader:
    def __init__(self, folder: Path, excluded: set[tuple[int, int] | Path]) -> None:
        self.folder, self.excluded = folder, excluded
        self.notes: list[str] = []
        self.texts: dict[str, str | None] = {}  # the needed files read so far (None: left out)
        self.seen = 0  # entries the walk has looked at

    def take_all(self) -> dict[str, str]:
        """Every file that may come along, as long as they fit; raises :class:`_Busy` when they do not.

        A file that refuses the folder (a link, a Python file that is not UTF-8) is reported once the walk
        is over: in a busy folder only what metric.py needs comes along, and that file may not be among it.
        """
        files: dict[str, str] = {}
        total = 0
        refused: MetricSourceError | None = None
        for name in self._walk():
            try:
                text = self._take(name)
            except MetricSourceError as exc:
                refused = refused or exc
                continue
            if text is None:
                continue
            files[name] = text
            total += len(text.encode("utf-8", "surrogatepass"))
            if len(files) + 1 > MAX_FILES:
                raise _Busy(
                    _(
                        "{folder} holds more than {limit} Python and data files; "
                        "put metric.py and its helper files in a folder of their own."
                    ).format(folder=self.folder, limit=MAX_FILES)
                )
            if total > MAX_TOTAL_BYTES:
                raise _Busy(
                    _(
                        "{folder} holds more than {limit:,} bytes of Python and data files; "
                        "put metric.py and its helper files in a folder of their own."
                    ).format(folder=self.folder, limit=MAX_TOTAL_BYTES)
                )
        if refused is not None:
            raise refused
        return files

    def take_needed(self, main: Path, main_text: str, busy: _Busy) -> FolderRead:
        """Only the files metric.py imports or names; refused, naming them, when even they do not fit."""
        self.notes = []
        view = FolderView(is_file=self._is_file, is_folder=self._is_folder, read=self._read_needed, files_in=self._in)
        names = needed_files(main_text, view)
        for name in names:
            self._read_needed(name)
        files = {name: text for name in names if (text := self.texts[name]) is not None}
        total = sum(len(text.encode("utf-8", "surrogatepass")) for text in (main_text, *files.values()))
        taken = ", ".join([MAIN_FILE, *files]) or MAIN_FILE
        if len(files) + 1 > MAX_FILES or total > MAX_TOTAL_BYTES:
            raise MetricSourceError(
                _(
                    "{reason} Only what metric.py imports or names would come along, but that is {count} files and "
                    "{total:,} bytes (at most {files} files and {limit:,} bytes): {taken}."
                ).format(
                    reason=busy,
                    count=len(files) + 1,
                    total=total,
                    files=MAX_FILES,
                    limit=MAX_TOTAL_BYTES,
                    taken=taken,
                )
            )
        self.notes.insert(
            0,
            _(
                "{folder} holds too many files to take whole, so only what metric.py imports or names came along: "
                "{taken}."
            ).format(folder=self.folder, taken=taken),
        )
        return FolderRead(MetricSource({MAIN_FILE: main_text, **files}), main, True, tuple(self.notes))

    # --- the walk of a whole folder ------------------------------------------------------------

    def _walk(self) -> Iterator[str]:
        """The names of the folder's files that may come along, top level first, then one folder down."""
        folders: list[str] = []
        for entry, name in self._entries("", counted=True):
            if entry.is_dir(follow_symlinks=False):
                if self._is_folder(name):
                    folders.append(name)
            elif entry.is_symlink() and entry.is_dir():
                self.notes.append(
                    _("{name}/ was left out: it is a link to a folder, and links are never followed.").format(name=name)
                )
            elif self._may_come(name):
                yield name
        for sub in folders:
            for entry, name in self._entries(sub, counted=True):
                if not entry.is_dir(follow_symlinks=False) and self._may_come(name):
                    yield name

    def _entries(self, sub: str, counted: bool = False) -> Iterator[tuple[os.DirEntry[str], str]]:
        """The entries of the folder ``sub`` (``""``: the top) that are not hidden, with their relative names;
        ``counted`` entries count towards :data:`MAX_WALK_ENTRIES`, past which the folder is busy."""
        try:
            with os.scandir(self.folder / sub) as entries:
                found = sorted(entries, key=lambda entry: entry.name)
        except OSError:
            return
        for entry in found:
            if counted:
                self.seen += 1
                if self.seen > MAX_WALK_ENTRIES:
                    raise _Busy(
                        _(
                            "{folder} holds more than {limit} entries; "
                            "put metric.py and its helper files in a folder of their own."
                        ).format(folder=self.folder, limit=MAX_WALK_ENTRIES)
                    )
            if not entry.name.startswith("."):
                yield entry, f"{sub}/{entry.name}" if sub else entry.name

    def _may_come(self, name: str) -> bool:
        """Whether a file's name is one a metric folder holds (suffix, not metric.py itself, not excluded)."""
        if name == MAIN_FILE or Path(name).suffix.lower() not in DATA_SUFFIXES:
            return False
        return file_identity(self.folder / name) not in self.excluded

    # --- one file ------------------------------------------------------------------------------

    def _take(self, name: str, needed: bool = False) -> str | None:
        """The text of the file ``name``, or None when it stays out (with a note when people should know)."""
        try:
            check_name(name)
        except MetricSourceError as exc:
            if name.endswith(".py") or needed:
                raise
            self.notes.append(_("{name!r} was left out: {reason}").format(name=name, reason=exc))
            return None
        path = self.folder / name
        try:
            info = os.lstat(path)
        except OSError:
            return None
        if stat.S_ISLNK(info.st_mode):
            if not _links_to_a_file(path):
                return None  # a link to a device, a pipe or nothing would not have come along anyway
            raise MetricSourceError(
                _(
                    "{path} is a symbolic link; files of a metric folder are never read through a link. Replace it "
                    "with a copy of the file, or move it out of the folder."
                ).format(path=path)
            )
        if not stat.S_ISREG(info.st_mode):
            return None  # a FIFO or a device would block the reader or never end
        if not name.endswith(".py") and info.st_size > MAX_DATA_FILE_BYTES:
            self.notes.append(
                _("{name} was left out: it is over {limit:,} bytes, more a dataset than the metric's data.").format(
                    name=name, limit=MAX_DATA_FILE_BYTES
                )
            )
            return None
        try:
            return _read(path)
        except _NotText:
            if name.endswith(".py"):
                raise MetricSourceError(
                    _(
                        "{path} is not UTF-8 text; it was read as part of the metric folder {folder}. Save it as "
                        "UTF-8, or move it out of the folder."
                    ).format(path=path, folder=self.folder)
                ) from None
            self.notes.append(_("{name} was left out: it is not UTF-8 text.").format(name=name))
            return None

    # --- the folder as metric_needs sees it -----------------------------------------------------

    def _is_file(self, name: str) -> bool:
        try:
            check_name(name)
        except MetricSourceError:
            return False
        if name == MAIN_FILE or file_identity(self.folder / name) in self.excluded or not _inside(self.folder, name):
            return False
        try:
            mode = os.lstat(self.folder / name).st_mode
        except (OSError, ValueError):
            return False
        return stat.S_ISREG(mode) or stat.S_ISLNK(mode)  # a link is taken, then refused by name

    def _is_folder(self, name: str) -> bool:
        if "/" in name or name.startswith(".") or name in SKIPPED_DIRS:
            return False
        path = self.folder / name
        try:
            if not stat.S_ISDIR(os.lstat(path).st_mode):
                return False
        except (OSError, ValueError):
            return False
        return not (path / "pyvenv.cfg").exists() and not (path / EXPORT_MARKER).exists()

    def _read_needed(self, name: str) -> str:
        if name not in self.texts:
            self.texts[name] = self._take(name, needed=True)
        return self.texts[name] or ""

    def _in(self, folder: str) -> list[str]:
        names = [name for entry, name in self._entries(folder) if not entry.is_dir(follow_symlinks=False)]
        return [name for name in names[: MAX_FILES + 1] if self._may_come(name)]


def _links_to_a_file(path: Path) -> bool:
    """Whether the link ``path`` leads to a regular file (looked at, never read)."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _inside(folder: Path, name: str) -> bool:
    """Whether ``name``'s folder, if it has one, is a real folder of ``folder`` (not a link out of it)."""
    if "/" not in name:
        return True
    try:
        return stat.S_ISDIR(os.lstat(folder / name.split("/")[0]).st_mode)
    except OSError:
        return False


class _NotText(Exception):
    """The file is not UTF-8 text."""


def _read(path: Path, required: bool = False) -> str:
    """The UTF-8 text of the regular file ``path``, opened without following a link.

    With ``required`` (metric.py itself), anything else is a :class:`MetricSourceError` saying what the
    path is; otherwise a file that is not UTF-8 raises :class:`_NotText` for the caller to decide.
    """
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError as exc:
        raise _open_error(path, exc) from None
    with os.fdopen(fd, "rb") as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            kind = (
                _("{path} is a folder. Give metric.py or the folder that holds it.")
                if stat.S_ISDIR(info.st_mode)
                else _(
                    "{path} is not a regular file (a pipe, socket or device). Give metric.py or the folder that "
                    "holds it."
                )
            )
            raise MetricSourceError(kind.format(path=path))
        if info.st_size > MAX_TOTAL_BYTES:
            raise MetricSourceError(
                _("{path} is {size:,} bytes; a metric is at most {limit:,}.").format(
                    path=path, size=info.st_size, limit=MAX_TOTAL_BYTES
                )
            )
        data = handle.read(MAX_TOTAL_BYTES + 1)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        if required:
            raise MetricSourceError(_("{path} is not UTF-8 text. Save it as UTF-8.").format(path=path)) from None
        raise _NotText from None


def _open_error(path: Path, exc: OSError) -> MetricSourceError:
    if exc.errno == errno.ELOOP:
        return MetricSourceError(
            _(
                "{path} is a symbolic link; files of a metric folder are never read through a link. Replace it "
                "with a copy of the file, or move it out of the folder."
            ).format(path=path)
        )
    if isinstance(exc, FileNotFoundError):
        return MetricSourceError(
            _("{path}: no such file. Give metric.py or the folder that holds it.").format(path=path)
        )
    return MetricSourceError(_("Cannot read {path}: {reason}.").format(path=path, reason=exc.strerror or exc))
