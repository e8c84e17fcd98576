"""A metric is a folder: ``metric.py`` plus the helper modules and small data files beside it.

``MetricSource`` is the one value that the editor, the drafts and versions, the contract check,
the runner, the CLI and the exports pass around (contract Part B, rule 13). Invariants:

- ``files`` maps a relative POSIX path (no ``..``, no leading ``/``, no hidden parts) to its text;
- ``metric.py`` is always present: it defines ``score``;
- the folder is small: at most ``MAX_FILES`` files and ``MAX_TOTAL_BYTES`` of UTF-8 text.

A plain ``str`` is still accepted wherever a metric is expected: it is ``metric.py`` alone
(``MetricSource.of(text)``).
"""

from __future__ import annotations

import hashlib
import io
import os
import stat
import zipfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from skynet_core.i18n import _

MAIN_FILE = "metric.py"
MAX_FILES = 64
MAX_TOTAL_BYTES = 4_000_000
# What a metric folder may hold besides Python modules: small text data the metric reads.
DATA_SUFFIXES = (".py", ".json", ".jsonl", ".txt", ".csv", ".yaml", ".yml", ".toml", ".md", ".tsv")
# Reading a folder from disk stays bounded however large the folder around metric.py is: data files
# over MAX_DATA_FILE_BYTES (a dataset kept beside the metric) stay out, the walk goes MAX_DEPTH folders
# down and looks at MAX_WALK_ENTRIES entries at most, and never into hidden or environment folders.
MAX_DATA_FILE_BYTES = 1_000_000
MAX_DEPTH = 3
MAX_WALK_ENTRIES = 2000
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", "env"})
EXPORT_MARKER = ".skynet-export.json"  # a folder an export wrote (engines/export.py): its copy is not the metric's


class MetricSourceError(ValueError):
    """A metric folder that cannot be used; the message names the file and the fix."""


def check_name(name: str) -> str:
    """Return ``name`` as a clean relative POSIX path, or raise MetricSourceError saying why not."""
    path = PurePosixPath(name.replace("\\", "/"))
    if not name or path.is_absolute() or any(part in ("", ".", "..") for part in path.parts):
        raise MetricSourceError(
            _("{name!r} is not a file name inside the metric folder. Use a name like helpers.py.").format(name=name)
        )
    if any(part.startswith(".") for part in path.parts):
        raise MetricSourceError(
            _("{name!r} is hidden. Give the file a name that does not start with a dot.").format(name=name)
        )
    if path.suffix.lower() not in DATA_SUFFIXES:
        allowed = ", ".join(DATA_SUFFIXES)
        raise MetricSourceError(
            _("{name!r} is not a kind of file a metric folder holds. Allowed: {allowed}.").format(
                name=name, allowed=allowed
            )
        )
    return str(path)


@dataclass(frozen=True)
class MetricSource:
    """metric.py and the files beside it. Immutable; build changed copies with ``with_file``."""

    files: Mapping[str, str]
    digest: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        clean = {check_name(name): text for name, text in self.files.items()}
        if MAIN_FILE not in clean:
            raise MetricSourceError(_("The metric folder has no metric.py. Add metric.py with a function score."))
        if len(clean) > MAX_FILES:
            raise MetricSourceError(
                _("The metric folder has {count} files; at most {limit} are allowed.").format(
                    count=len(clean), limit=MAX_FILES
                )
            )
        total = sum(len(text.encode("utf-8", "surrogatepass")) for text in clean.values())
        if total > MAX_TOTAL_BYTES:
            raise MetricSourceError(
                _(
                    "The metric folder holds {total:,} bytes; at most {limit:,} are allowed. "
                    "Keep large data out of the metric folder."
                ).format(total=total, limit=MAX_TOTAL_BYTES)
            )
        ordered = dict(sorted(clean.items(), key=lambda item: (item[0] != MAIN_FILE, item[0])))
        object.__setattr__(self, "files", MappingProxyType(ordered))
        hasher = hashlib.sha256()
        for name, text in ordered.items():
            hasher.update(name.encode() + b"\0" + text.encode("utf-8", "surrogatepass") + b"\0")
        object.__setattr__(self, "digest", hasher.hexdigest()[:16])

    @classmethod
    def of(cls, metric: str | MetricSource) -> MetricSource:
        """``metric`` as a MetricSource: a plain string is metric.py alone."""
        return metric if isinstance(metric, MetricSource) else cls({MAIN_FILE: metric})

    @property
    def main(self) -> str:
        """The text of metric.py."""
        return self.files[MAIN_FILE]

    @property
    def is_single_file(self) -> bool:
        return len(self.files) == 1

    def with_file(self, name: str, text: str) -> MetricSource:
        return MetricSource({**self.files, name: text})

    def without_file(self, name: str) -> MetricSource:
        if name == MAIN_FILE:
            raise MetricSourceError(_("metric.py cannot be removed: it defines score."))
        return MetricSource({key: value for key, value in self.files.items() if key != name})

    def renamed(self, old: str, new: str) -> MetricSource:
        if old == MAIN_FILE:
            raise MetricSourceError(_("metric.py cannot be renamed: Skynet looks for score in metric.py."))
        if check_name(new) in self.files:
            raise MetricSourceError(
                _("{name} already exists in the metric folder. Choose another name.").format(name=new)
            )
        return MetricSource({(new if key == old else key): value for key, value in self.files.items()})

    def __eq__(self, other: object) -> bool:
        return isinstance(other, MetricSource) and dict(self.files) == dict(other.files)

    def __hash__(self) -> int:
        return hash(self.digest)

    # --- files on disk and zip archives -------------------------------------------------------

    @classmethod
    def from_path(cls, path: str | Path, *, exclude: tuple[str | Path, ...] = ()) -> MetricSource:
        """Read a metric from ``path``: metric.py (its folder's other files come along) or the folder.

        A file of another name is read as metric.py. The folder's ``*.py`` files and small data
        files come along; ``exclude`` (such as the dataset given with it) and data files over
        ``MAX_DATA_FILE_BYTES`` stay out. Anything but a regular file is refused: a FIFO or a
        device would block the reader or never end.
        """
        path = Path(path)
        folder, main = (path, path / MAIN_FILE) if path.is_dir() else (path.parent, path)
        _regular_size(main, required=True)
        excluded = {_resolved(item) for item in (main, *exclude)}
        files = {MAIN_FILE: _read_text(main)}
        seen = 0
        for root, dirs, names in os.walk(folder):
            relative = Path(root).relative_to(folder)
            dirs[:] = sorted(
                name
                for name in dirs
                if len(relative.parts) < MAX_DEPTH
                and not name.startswith(".")
                and name not in SKIPPED_DIRS
                and not (Path(root) / name / "pyvenv.cfg").exists()
                and not (Path(root) / name / EXPORT_MARKER).exists()
            )
            for name in sorted(names):
                seen += 1
                if seen > MAX_WALK_ENTRIES:
                    raise MetricSourceError(
                        _(
                            "{folder} holds more than {limit} entries; "
                            "put metric.py and its helper files in a folder of their own."
                        ).format(folder=folder, limit=MAX_WALK_ENTRIES)
                    )
                item = Path(root) / name
                rel = (relative / name).as_posix()
                if name.startswith(".") or item.suffix.lower() not in DATA_SUFFIXES or rel == MAIN_FILE:
                    continue
                size = _regular_size(item)
                if size is None or _resolved(item) in excluded:
                    continue
                if item.suffix.lower() != ".py" and size > MAX_DATA_FILE_BYTES:
                    continue
                files[rel] = _read_text(item)
                if len(files) > MAX_FILES:
                    raise MetricSourceError(
                        _(
                            "{folder} holds more than {limit} Python and data files; "
                            "put metric.py and its helper files in a folder of their own."
                        ).format(folder=folder, limit=MAX_FILES)
                    )
        return cls(files)

    def write_to(self, folder: str | Path) -> Path:
        """Write the files under ``folder`` (created if missing); return the path of metric.py."""
        return write_files(self.files, folder) / MAIN_FILE

    def to_zip(self) -> bytes:
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in self.files.items():
                archive.writestr(name, text)
        return buffer.getvalue()

    @classmethod
    def from_zip(cls, data: bytes) -> MetricSource:
        """Read a zip of a metric folder; a single top folder inside the archive is stripped."""
        try:
            archive = zipfile.ZipFile(io.BytesIO(data))
        except zipfile.BadZipFile:
            raise MetricSourceError(
                _("The upload is not a zip archive. Upload metric.py or a .zip of the folder.")
            ) from None
        with archive:
            members = [info for info in archive.infolist() if not info.is_dir()]
            members = [m for m in members if "__pycache__" not in m.filename and "__MACOSX" not in m.filename]
            if len(members) > MAX_FILES:
                raise MetricSourceError(
                    _("The archive has {count} files; at most {limit} are allowed.").format(
                        count=len(members), limit=MAX_FILES
                    )
                )
            if sum(m.file_size for m in members) > MAX_TOTAL_BYTES:
                raise MetricSourceError(
                    _("The archive unpacks to more than {limit:,} bytes.").format(limit=MAX_TOTAL_BYTES)
                )
            names = [m.filename for m in members]
            tops = {PurePosixPath(name).parts[0] for name in names}
            strip = len(tops) == 1 and MAIN_FILE not in names and all("/" in name for name in names)
            files: dict[str, str] = {}
            for member in members:
                name = member.filename.split("/", 1)[1] if strip else member.filename
                try:
                    files[name] = archive.read(member).decode("utf-8")
                except UnicodeDecodeError:
                    raise MetricSourceError(_("{name} in the archive is not UTF-8 text.").format(name=name)) from None
        return cls(files)


def _resolved(path: str | Path) -> Path:
    try:
        return Path(path).resolve()
    except (OSError, RuntimeError):
        return Path(path).absolute()


def _regular_size(path: Path, required: bool = False) -> int | None:
    """The size of ``path`` when it is a regular file (following links); else None, or
    MetricSourceError saying why when ``required``."""
    try:
        info = path.stat()
    except OSError as exc:
        if not required:
            return None
        if isinstance(exc, FileNotFoundError):
            raise MetricSourceError(
                _("{path}: no such file. Give metric.py or the folder that holds it.").format(path=path)
            ) from None
        raise MetricSourceError(
            _("Cannot read {path}: {reason}.").format(path=path, reason=exc.strerror or exc)
        ) from None
    if stat.S_ISREG(info.st_mode):
        if required and info.st_size > MAX_TOTAL_BYTES:
            raise MetricSourceError(
                _("{path} is {size:,} bytes; a metric is at most {limit:,}.").format(
                    path=path, size=info.st_size, limit=MAX_TOTAL_BYTES
                )
            )
        return info.st_size
    if required:
        message = (
            _("{path} is a folder. Give metric.py or the folder that holds it.")
            if stat.S_ISDIR(info.st_mode)
            else _(
                "{path} is not a regular file (a pipe, socket or device). Give metric.py or the folder that holds it."
            )
        )
        raise MetricSourceError(message.format(path=path))
    return None


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise MetricSourceError(_("{path} is not UTF-8 text. Save it as UTF-8.").format(path=path)) from None
    except OSError as exc:
        raise MetricSourceError(
            _("Cannot read {path}: {reason}.").format(path=path, reason=exc.strerror or exc)
        ) from None


def write_files(files: Mapping[str, str], folder: str | Path) -> Path:
    """Write ``files`` (relative path to text) under ``folder``, creating what is missing; return the folder."""
    folder = Path(folder)
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder
