"""A metric is a folder: ``metric.py`` plus the helper modules and small data files beside it.

``MetricSource`` is the one value that the editor, the drafts and versions, the contract check,
the runner, the CLI and the exports pass around (contract Part B, rule 13). Invariants:

- ``files`` maps a plain relative POSIX name to its text: each part letters, digits, ``_``, ``-``
  and ``.`` only (no space, control character or newline), not hidden, at most
  ``MAX_NAME_CHARS`` long, at most one folder deep (``helpers.py``, ``data/labels.json``), with a
  suffix of ``DATA_SUFFIXES``; no name is both a file and a folder (``helpers.py`` and
  ``helpers.py/inner.py``), so the folder can always be written to disk;
- ``metric.py`` is always present: it defines ``score``;
- the folder is small: at most ``MAX_FILES`` files and ``MAX_TOTAL_BYTES`` of UTF-8 text.

A plain ``str`` is still accepted wherever a metric is expected: it is ``metric.py`` alone
(``MetricSource.of(text)``). Reading a folder from disk is :mod:`skynet_core.metric.folder`, from a
zip archive :mod:`skynet_core.metric.archive`.
"""

from __future__ import annotations

import hashlib
import io
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from types import MappingProxyType

from skynet_core.i18n import _

MAIN_FILE = "metric.py"
MAX_FILES = 64
MAX_TOTAL_BYTES = 4_000_000
MAX_NAME_CHARS = 100  # per part of a name; every part also fits a file system's 255 bytes
MAX_FOLDERS = 1  # helpers.py and data/labels.json, not data/raw/labels.json
# What a metric folder may hold besides Python modules: small text data the metric reads.
DATA_SUFFIXES = (".py", ".json", ".jsonl", ".txt", ".csv", ".yaml", ".yml", ".toml", ".md", ".tsv")
EXPORT_MARKER = ".skynet-export.json"  # a folder an export wrote (engines/export.py): its copy is not the metric's
_PLAIN_PART = re.compile(r"[\w.-]+")


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
    if not all(_PLAIN_PART.fullmatch(part) for part in path.parts):
        raise MetricSourceError(
            _(
                "{name!r} is not a plain file name: names in a metric folder use letters, digits, _, - and . only "
                "(no spaces, newlines or other characters). Rename it, e.g. to helpers.py."
            ).format(name=name)
        )
    if any(len(part) > MAX_NAME_CHARS or len(part.encode()) > 255 for part in path.parts):
        raise MetricSourceError(
            _(
                "{name!r} is too long: each part of a name is at most {limit} characters. Give it a shorter name."
            ).format(name=name[:60] + "…", limit=MAX_NAME_CHARS)
        )
    if len(path.parts) > MAX_FOLDERS + 1:
        raise MetricSourceError(
            _(
                "{name!r} is more than one folder deep; a metric folder holds its files at the top or in one level "
                "of folders (e.g. data/labels.json)."
            ).format(name=name)
        )
    if path.suffix.lower() not in DATA_SUFFIXES:
        allowed = ", ".join(DATA_SUFFIXES)
        raise MetricSourceError(
            _("{name!r} is not a kind of file a metric folder holds. Allowed: {allowed}.").format(
                name=name, allowed=allowed
            )
        )
    return str(path)


def check_layout(names: list[str]) -> None:
    """Refuse a name that is a file and also the folder of another file (``helpers.py`` and
    ``helpers.py/inner.py``): such a folder cannot be written to disk."""
    files = set(names)
    for name in names:
        folder = name.split("/")[0] if "/" in name else None
        if folder is not None and folder in files:
            raise MetricSourceError(
                _(
                    "{folder} is a file of the metric folder and also the folder of {name}; a name cannot be both. "
                    "Rename the folder or the file."
                ).format(folder=folder, name=name)
            )


@dataclass(frozen=True)
class MetricSource:
    """metric.py and the files beside it. Immutable; build changed copies with ``with_file``."""

    files: Mapping[str, str]
    digest: str = field(init=False, compare=False)

    def __post_init__(self) -> None:
        clean = {check_name(name): text for name, text in self.files.items()}
        check_layout(list(clean))
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

    def names_llm(self) -> bool:
        """Whether the metric may ask a model, as far as reading its files tells (it is never run to find out):
        one of them names ``llm``."""
        return any("llm" in text for text in self.files.values())

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

    # --- files on disk, zip archives, old saved folders --------------------------------------

    def write_to(self, folder: str | Path) -> Path:
        """Write the files under ``folder`` (created if missing); return the path of metric.py."""
        return write_files(self.files, folder) / MAIN_FILE

    def to_zip(self) -> bytes:
        import zipfile  # here: the command line and the runner never zip a metric

        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in self.files.items():
                archive.writestr(name, text)
        return buffer.getvalue()

    @classmethod
    def from_stored(cls, files: Mapping[str, str]) -> MetricSource:
        """A folder saved before its names were checked as they are now: each file whose name is no longer
        allowed (or clashes with a folder) is kept under a plain name, so an old draft still opens and runs."""
        try:
            return cls(files)
        except MetricSourceError:
            pass
        fixed: dict[str, str] = {}
        for name in sorted(files, key=lambda item: (item != MAIN_FILE, item.count("/"), item)):
            fixed[_plain_name(name, fixed)] = files[name]
        return cls(fixed)


def _plain_name(name: str, taken: Mapping[str, str]) -> str:
    """A plain name for ``name`` (see :func:`check_name`) that clashes with nothing in ``taken``."""
    parts = [
        re.sub(r"[^\w.-]", "_", part).lstrip(".")[-MAX_NAME_CHARS:] or "file"
        for part in name.replace("\\", "/").split("/")
        if part not in ("", ".", "..")
    ] or ["file"]
    parts = [*parts[:MAX_FOLDERS], "_".join(parts[MAX_FOLDERS:])] if len(parts) > MAX_FOLDERS + 1 else parts
    if PurePosixPath(parts[-1]).suffix.lower() not in DATA_SUFFIXES:
        parts[-1] += ".txt"
    folders = {item.split("/")[0] for item in taken if "/" in item}
    if len(parts) > 1 and parts[0] in taken:  # a file of that name exists: the folder goes
        parts = ["_".join(parts)]
    candidate, number = "/".join(parts), 1
    while candidate in taken or candidate in folders:
        number += 1
        stem, dot, suffix = parts[-1].rpartition(".")
        candidate = "/".join([*parts[:-1], f"{stem}_{number}{dot}{suffix}"])
    return candidate


def write_files(files: Mapping[str, str], folder: str | Path) -> Path:
    """Write ``files`` (relative path to text) under ``folder``, creating what is missing; return the folder."""
    folder = Path(folder)
    for name, text in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")
    return folder
