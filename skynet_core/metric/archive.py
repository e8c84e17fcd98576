"""Reading a metric folder from a zip archive (the Author page's upload).

The whole archive is checked before it becomes the draft: a damaged or unreadable member (a bad
CRC, a wrong declared size, an unknown compression method, a password, corrupt deflate data), a
symbolic link, a name twice (``metric.py`` twice: the last one must not silently win), a name that is
both a file and a folder (``helpers.py`` and ``helpers.py/inner.py``) or that is not plain is refused
with a :class:`~skynet_core.metric.source.MetricSourceError` naming the member, which the upload
handler shows. A single top folder inside the archive is stripped. An archive of a busy folder (more
files or bytes than a metric folder holds) brings only what metric.py imports or names
(:mod:`skynet_core.metric.needs`).
"""

from __future__ import annotations

import io
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable
from pathlib import PurePosixPath

from ..i18n import _
from .needs import FolderView, needed_files
from .source import MAIN_FILE, MAX_FILES, MAX_TOTAL_BYTES, MetricSource, MetricSourceError, check_layout, check_name

MAX_MEMBERS = 10_000  # entries an archive may list at all (each costs memory before anything is read)
_IGNORED = ("__pycache__", "__MACOSX")
# What zipfile and zlib raise for a member they cannot read.
_UNREADABLE = (zipfile.BadZipFile, zipfile.LargeZipFile, NotImplementedError, RuntimeError, zlib.error, EOFError)


def read_zip(data: bytes) -> MetricSource:
    """The metric folder in the zip archive ``data``; raises :class:`MetricSourceError` saying what is wrong."""
    declared = _declared_entries(data)
    if declared > MAX_MEMBERS:  # before zipfile builds an object for each of them
        raise _too_many(declared)
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError, EOFError):
        raise MetricSourceError(
            _("The upload is not a zip archive. Upload metric.py or a .zip of the folder.")
        ) from None
    with archive:
        infos = archive.infolist()
        if len(infos) > MAX_MEMBERS:
            raise _too_many(len(infos))
        members = _members(infos)
        if MAIN_FILE not in members:
            return MetricSource({})  # raises: the folder has no metric.py
        chosen = list(members)
        if len(members) > MAX_FILES or sum(info.file_size for info in members.values()) > MAX_TOTAL_BYTES:
            chosen = [MAIN_FILE, *_needed(archive, members)]
            if len(chosen) > MAX_FILES or sum(members[name].file_size for name in chosen) > MAX_TOTAL_BYTES:
                raise MetricSourceError(
                    _(
                        "The archive holds more than a metric folder may ({files} files, {limit:,} bytes), and what "
                        "metric.py imports or names is too much as well: {taken}. Zip only the metric's folder."
                    ).format(files=MAX_FILES, limit=MAX_TOTAL_BYTES, taken=", ".join(chosen[:20]))
                )
        return MetricSource({name: _text(archive, members[name], name) for name in chosen})


def _too_many(count: int) -> MetricSourceError:
    return MetricSourceError(
        _("The archive lists {count:,} entries; a metric folder's archive has at most {limit:,}.").format(
            count=count, limit=MAX_MEMBERS
        )
    )


def _declared_entries(data: bytes) -> int:
    """How many entries the archive's end record says it holds (0 when there is no record to read)."""
    end = data.rfind(b"PK\x05\x06", max(0, len(data) - 65_557))
    if end < 0 or end + 12 > len(data):
        return 0
    (count,) = struct.unpack_from("<H", data, end + 10)
    if count == 0xFFFF:  # a ZIP64 archive keeps the real count in its own end record
        end64 = data.rfind(b"PK\x06\x06", 0, end)
        if end64 >= 0 and end64 + 40 <= len(data):
            (count,) = struct.unpack_from("<Q", data, end64 + 32)
    return int(count)


def _members(infos: list[zipfile.ZipInfo]) -> dict[str, zipfile.ZipInfo]:
    """The archive's files by their name in the metric folder (a single top folder stripped), each checked."""
    files = [info for info in infos if not info.is_dir() and not any(part in info.filename for part in _IGNORED)]
    names = [info.filename for info in files]
    tops = {PurePosixPath(name).parts[0] for name in names if PurePosixPath(name).parts}
    strip = len(tops) == 1 and MAIN_FILE not in names and all("/" in name for name in names)
    members: dict[str, zipfile.ZipInfo] = {}
    for info in files:
        name = info.filename.split("/", 1)[1] if strip else info.filename
        clean = check_name(name)
        if clean in members:
            raise MetricSourceError(
                _("{name} appears twice in the archive; keep one copy and zip the folder again.").format(name=clean)
            )
        if stat.S_ISLNK(info.external_attr >> 16):
            raise MetricSourceError(
                _(
                    "{name} in the archive is a symbolic link; a metric folder holds files only. Zip a copy of the "
                    "file instead of the link."
                ).format(name=clean)
            )
        if info.flag_bits & 0x1:
            raise MetricSourceError(
                _("{name} in the archive is encrypted; zip the folder again without a password.").format(name=clean)
            )
        members[clean] = info
    check_layout(list(members))
    return members


def _text(archive: zipfile.ZipFile, info: zipfile.ZipInfo, name: str) -> str:
    try:
        data = archive.read(info)
    except (*_UNREADABLE, OSError, ValueError) as exc:
        raise MetricSourceError(
            _(
                "{name} in the archive cannot be read ({error}): the archive is damaged or uses a compression the "
                "studio does not read. Zip the folder again (plain deflate, no password) and upload it."
            ).format(name=name, error=f"{type(exc).__name__}: {exc}"[:200])
        ) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise MetricSourceError(_("{name} in the archive is not UTF-8 text.").format(name=name)) from None


def _needed(archive: zipfile.ZipFile, members: dict[str, zipfile.ZipInfo]) -> list[str]:
    """What metric.py imports or names among the archive's members."""
    folders = {name.split("/")[0] for name in members if "/" in name}
    read: Callable[[str], str] = lambda name: _text(archive, members[name], name)  # noqa: E731
    view = FolderView(
        is_file=lambda name: name in members and name != MAIN_FILE,
        is_folder=lambda name: name in folders,
        read=read,
        files_in=lambda folder: [name for name in members if name.startswith(folder + "/")][: MAX_FILES + 1],
    )
    return needed_files(read(MAIN_FILE), view)
