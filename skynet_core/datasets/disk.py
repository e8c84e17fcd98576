"""A case file on disk before it is parsed: the limits on its size, rows and columns, its kind by
extension, a saved upload, and its bytes or text read with a clear error."""

from __future__ import annotations

import codecs
import hashlib
import io
import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

from skynet_core.i18n import _
from skynet_core.paths import path_problem, special_file

from .model import (
    DatasetError,
)

if TYPE_CHECKING:
    pass

MAX_FILE_BYTES = 250_000_000
"""Largest case file we read. Whole files are held in memory (and JSON cells parsed
in Python), so far larger files would stall the server for every user."""
MAX_COLUMNS = 1000
"""Most columns a table may have; wider files are nearly always a wrong export."""
MAX_ROWS = 1_000_000
"""Most cases (rows, lines) a file may hold; ``SKYNET_MAX_ROWS`` changes it."""
MAX_DECODED_BYTES = 1_000_000_000
"""Most bytes a file's data may take once decoded (a compressed Parquet file of 16 KB can hold gigabytes);
``SKYNET_MAX_DECODED_MB`` changes it. Checked while reading, batch by batch."""
_PARQUET_BATCH_ROWS = 65_536


def max_rows() -> int:
    return _env_limit("SKYNET_MAX_ROWS", MAX_ROWS, 1)


def max_decoded_bytes() -> int:
    return _env_limit("SKYNET_MAX_DECODED_MB", MAX_DECODED_BYTES, 1_000_000)


def _env_limit(name: str, default: int, unit: int) -> int:
    text = os.environ.get(name, "").strip()
    try:
        value = int(float(text) * unit) if text else default
    except ValueError:
        return default
    return value if value > 0 else default


def _too_many_rows(name: str, limit: int) -> DatasetError:
    return DatasetError(
        _(
            "{name} has more than {limit} cases, the most a file may hold. Keep a sample of the cases (or split the "
            "file), or raise the limit with SKYNET_MAX_ROWS."
        ).format(name=name, limit=f"{limit:,}")
    )


def _too_big_decoded(name: str, limit: int) -> DatasetError:
    return DatasetError(
        _(
            "{name} holds more than {limit} MB of data once decoded (a compressed file can be far larger "
            "inside than on disk). Keep a sample of the cases, or raise the limit with SKYNET_MAX_DECODED_MB."
        ).format(name=name, limit=f"{limit / 1e6:,.0f}")
    )


_JSONL_SUFFIXES = (".jsonl", ".json")
_SUFFIXES = (*_JSONL_SUFFIXES, ".csv", ".parquet")
_UNSAFE_NAME = re.compile(r"[^\w.\- ()+]")
_CHUNK_BYTES = 1 << 20
MAX_UPLOAD_NAME_CHARS = 60  # of an upload's name and of its extension; UTF-8 takes up to 4 bytes a character


def _file_label(source: str | Path) -> str:
    return Path(str(source)).name or str(source)


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        fix = _("Save the cases as JSON Lines (.jsonl), CSV (.csv) or Parquet (.parquet) and load that file.")
        message = (
            _("{name}: {suffix} files are not supported. {fix}")
            if suffix
            else _("{name}: Files without an extension are not supported. {fix}")
        )
        raise DatasetError(message.format(name=path.name, suffix=suffix, fix=fix))
    return suffix


def refuse_folder(path: Path) -> None:
    """Refuse a path that cannot name a file (:func:`~skynet_core.paths.path_problem`), or a folder given where a
    case file belongs, naming the case files inside it to choose from."""
    if problem := path_problem(path):
        raise DatasetError(_("{path}: {problem}").format(path=path, problem=problem))
    try:
        if not path.is_dir():
            return
        inside = sorted(item.name for item in path.iterdir() if item.suffix.lower() in _SUFFIXES and item.is_file())
    except OSError:
        return  # the reading that follows says what is wrong with the path
    if inside:
        shown = ", ".join(inside[:5]) + (", …" if len(inside) > 5 else "")
        raise DatasetError(
            _("{path} is a folder, not a case file. Give the path of one case file inside it: {files}.").format(
                path=path, files=shown
            )
        )
    raise DatasetError(
        _(
            "{path} is a folder, not a case file, and it holds no .jsonl, .csv or .parquet file. Give the path "
            "of a case file (e.g. {example})."
        ).format(path=path, example=path / "cases.jsonl")
    )


def _check_file(path: Path) -> int:
    """The file's size, after checking it exists, is a file and is under the limit."""
    if problem := path_problem(path):
        raise DatasetError(_("{path}: {problem}").format(path=path, problem=problem))
    if not path.exists():
        raise DatasetError(
            _("{name} was not found at {path}. Check the path, or upload the file again.").format(
                name=path.name, path=path
            )
        )
    if kind := special_file(path):
        raise DatasetError(
            _(
                "{path} is {kind}, not a file. Save the cases to a .jsonl, .csv or .parquet file and load that file."
            ).format(path=path, kind=kind)
        )
    if not path.is_file():
        raise DatasetError(_("{name} is a folder, not a file. Choose the case file inside it.").format(name=path.name))
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    check_size(path.name, size)
    if size == 0:
        raise _empty(path)
    return size


def check_size(name: str, size: int) -> None:
    """Refuse a case file of ``size`` bytes when it is over :data:`MAX_FILE_BYTES`."""
    if size > MAX_FILE_BYTES:
        raise DatasetError(
            _(
                "{name} is {size} MB, over the {limit} MB limit. "
                "Keep a sample of the cases (or split the file) so each file is under the limit."
            ).format(name=name, size=f"{size / 1e6:,.1f}", limit=f"{MAX_FILE_BYTES / 1e6:,.0f}")
        )


def save_upload(name: str, data: BinaryIO, directory: str | Path) -> Path:
    """Keep an uploaded case file on disk, so a choice of it survives a restart; return its path.

    The file goes to ``directory/<first 16 hex digits of its SHA-256>/<name>``: the
    same file uploaded again lands on the same path, and two different files with
    one name do not overwrite each other. ``name`` is reduced to a plain file name.
    Raises :class:`DatasetError`, before anything is written, for an unsupported
    extension, an empty file or one over :data:`MAX_FILE_BYTES`.
    """
    safe = _UNSAFE_NAME.sub("_", Path(name.replace("\\", "/")).name).strip(" .") or "upload"
    stem, suffix = os.path.splitext(safe)
    safe = stem[:MAX_UPLOAD_NAME_CHARS] + suffix[:MAX_UPLOAD_NAME_CHARS]  # a file system takes 255 bytes a name
    _suffix(Path(safe))
    data.seek(0, io.SEEK_END)
    size = data.tell()
    data.seek(0)
    check_size(safe, size)
    if size == 0:
        raise _empty(Path(safe))
    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256()
    with tempfile.NamedTemporaryFile(dir=folder, prefix=".upload-", delete=False) as handle:
        partial = Path(handle.name)
        try:
            while chunk := data.read(_CHUNK_BYTES):
                digest.update(chunk)
                handle.write(chunk)
        except BaseException:
            partial.unlink(missing_ok=True)
            raise
    target = folder / digest.hexdigest()[:16] / safe
    if target.is_file():
        partial.unlink()
    else:
        target.parent.mkdir(exist_ok=True)
        partial.replace(target)
    data.seek(0)
    return target


def _unreadable(path: Path, exc: OSError) -> DatasetError:
    return DatasetError(
        _("{name} could not be read ({error}). Check that the file exists and that you may read it.").format(
            name=path.name, error=exc.strerror or exc
        )
    )


def _empty(path: Path) -> DatasetError:
    return DatasetError(_("{name} is empty. Add at least one case and load it again.").format(name=path.name))


def _read_bytes(path: Path) -> bytes:
    _check_file(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise _unreadable(path, exc) from exc
    if not data.strip():
        raise _empty(path)
    return data


def _read_text(path: Path) -> str:
    data = _read_bytes(path)
    # Spreadsheet programs often prepend a byte-order mark; it is not part of the data.
    skipped = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
    try:
        return data[skipped:].decode("utf-8")
    except UnicodeDecodeError as exc:
        offset = exc.start + skipped
        line = data[:offset].count(b"\n") + 1
        raise DatasetError(
            _(
                "{name} is not UTF-8 text: byte 0x{byte} at byte offset {offset} (line {line}) is not "
                'valid UTF-8. Save it as UTF-8 (in Excel: "CSV UTF-8") and load it again.'
            ).format(name=path.name, byte=f"{data[offset]:02X}", offset=offset, line=line),
            line=line,
        ) from exc


def _check_width(file: str, count: int) -> None:
    if count > MAX_COLUMNS:
        raise DatasetError(
            _(
                "{file} has {count:,} columns; at most {limit:,} are supported. Keep only the columns the metric "
                "needs (input.*, expected.*, output, observation.*, id, split, candidate) and load it again."
            ).format(file=file, count=count, limit=MAX_COLUMNS)
        )
