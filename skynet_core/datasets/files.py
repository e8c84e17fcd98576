"""Case files on disk: sizes, uploads, JSON Lines, CSV and Parquet into plain rows or a frame."""

from __future__ import annotations

import codecs
import csv
import functools
import hashlib
import io
import json
import math
import numbers
import os
import re
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from skynet_core.cases import Observation
from skynet_core.i18n import _, language
from skynet_core.paths import path_problem, special_file

from .model import (
    _MEASUREMENTS,
    DatasetError,
    _Row,
)

if TYPE_CHECKING:
    import pandas as pd

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
_NUMBER_TEXT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
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


def _describe(value: Any) -> str:
    """How a value's type reads in a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, numbers.Number):
        return _("the number {value}").format(value=value)
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return _("the text {text!r}").format(text=shown)
    if isinstance(value, (list, tuple)):
        return _("a list")
    if isinstance(value, dict):
        return _("an object")
    return _("a {type}").format(type=type(value).__name__)


def _reject_constant(name: str) -> None:
    raise ValueError(_("{name} is not allowed in JSON; write null or a number").format(name=name))


def _parse_json(text: str) -> Any:
    """Parse with orjson for speed; on failure, the standard parser gives the message people read
    (and accepts what orjson refuses but JSON allows, such as integers beyond 64 bits). A lone
    surrogate escape (``"\\ud800"``), which the standard parser lets through as text no file or
    terminal can hold, raises :class:`LoneSurrogate`."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        try:
            value = json.loads(text, parse_constant=_reject_constant)
        except RecursionError:
            raise TooDeep() from None
        if _holds_surrogate(value):
            raise LoneSurrogate() from None
        return value


_SURROGATE = re.compile("[\ud800-\udfff]")


def _holds_surrogate(value: Any) -> bool:
    """Whether a parsed JSON value has a lone surrogate in any string or key (iteratively: it may be deep)."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            if _SURROGATE.search(item):
                return True
        elif isinstance(item, dict):
            stack.extend(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
    return False


class LoneSurrogate(ValueError):
    """A JSON string escapes half of a UTF-16 surrogate pair (``"\\ud800"``): not a character."""

    def __str__(self) -> str:
        return _("it holds a lone surrogate escape such as \\ud800, half of a UTF-16 pair and not a character")


class TooDeep(ValueError):
    """JSON nested deeper than the parsers go (orjson stops at 1,024 levels, the standard parser near 1,000)."""

    def __str__(self) -> str:
        return _("it is nested more than 1,000 levels deep")


def _jsonl_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Each non-blank line's object with its 1-based line number."""
    text = _read_text(path)
    limit = max_rows()
    objects: list[tuple[int, dict[str, Any]]] = []
    # Split on "\n" only: str.splitlines would also split on U+2028, which JSON allows inside strings.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = _parse_json(line)
        except TooDeep:
            raise DatasetError(
                _(
                    "{name}, line {line} is nested more than 1,000 levels deep, too deep to read. Flatten that "
                    "case, or store its deep part as a JSON string."
                ).format(name=path.name, line=number),
                line=number,
            ) from None
        except LoneSurrogate:
            raise DatasetError(
                _(
                    "{name}, line {line} holds a lone surrogate escape such as \\ud800: half of a UTF-16 pair, "
                    "not a character. Fix what wrote that line (the text was cut inside an emoji or a rare "
                    "character), or remove the escape."
                ).format(name=path.name, line=number),
                line=number,
            ) from None
        except ValueError as exc:
            detail = (
                _("{message} at column {column}").format(message=exc.msg, column=exc.colno)
                if isinstance(exc, json.JSONDecodeError)
                else str(exc)
            )
            fix = (
                _("If the file is one JSON array of cases, write each object on its own line instead (JSON Lines).")
                if line.strip() == "["
                else _(
                    "Each line must hold one complete JSON object; check for a trailing comma, a missing quote, "
                    "or an object spread over several lines."
                )
            )
            raise DatasetError(
                _("{name}, line {line} is not valid JSON ({detail}). {fix}").format(
                    name=path.name, line=number, detail=detail, fix=fix
                ),
                line=number,
            ) from exc
        if not isinstance(value, dict):
            fix = (
                _("If the file is one JSON array of cases, write each object on its own line instead (JSON Lines).")
                if isinstance(value, list)
                else _('Each line must be one object like {{"input": {{...}}, "output": ...}}.').format()
            )
            raise DatasetError(
                _("{name}, line {line} is {value}, not a JSON object. {fix}").format(
                    name=path.name, line=number, value=_describe(value), fix=fix
                ),
                line=number,
            )
        objects.append((number, value))
        if len(objects) > limit:
            raise _too_many_rows(path.name, limit)
    if not objects:
        raise DatasetError(
            _("{name} has no cases, only blank lines. Add one JSON object per line.").format(name=path.name)
        )
    return objects


def _measurement(value: Any, what: str, where: str, *, text_ok: bool) -> float | None:
    """A latency or cost: ``None`` when not measured, else a finite number of 0 or more.

    ``text_ok`` lets table cells hold numbers written as text; JSON has real numbers.
    """
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    number: float | None = None
    # Plain int and float only: cells have been through _plain, and the numbers.Real ABC check is slow per cell.
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        number = float(value)
    elif text_ok and isinstance(value, str):
        text = value.strip()
        if not text:
            return None
        if _NUMBER_TEXT.fullmatch(text):
            number = float(text)
    meaning, example = _MEASUREMENTS[what.rpartition(".")[2]]
    if number is None:
        raise DatasetError(
            _(
                "{where}: {what} is {value}, not a number. Write {meaning} as a number (e.g. {example}), "
                "or leave it empty (null) when it was not measured."
            ).format(where=where, what=what, value=_describe(value), meaning=_(meaning), example=example)
        )
    if not math.isfinite(number) or number < 0:
        raise DatasetError(
            _(
                "{where}: {what} is {number}. Write {meaning} as a finite number of 0 or more, or leave it empty "
                "(null) when it was not measured."
            ).format(where=where, what=what, number=number, meaning=_(meaning))
        )
    return number


def _observation(value: Any, where: str, *, text_ok: bool) -> Observation:
    if value is None:
        return Observation()
    if not isinstance(value, dict):
        raise DatasetError(
            _(
                '{where}: observation is {value}, not an object. Write it as {{"latency_ms": 850, '
                '"cost_usd": 0.002}}, using null for a value that was not measured.'
            ).format(where=where, value=_describe(value))
        )
    return Observation(
        latency_ms=_measurement(value.get("latency_ms"), "observation.latency_ms", where, text_ok=text_ok),
        cost_usd=_measurement(value.get("cost_usd"), "observation.cost_usd", where, text_ok=text_ok),
    )


def _name_value(value: Any, what: str, where: str) -> str | None:
    """An id, split or candidate: text or a whole number, ``None`` when empty."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(int(value))
    # Parquet stores a whole-number column with gaps as floats.
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, str):
        return value.strip() or None
    raise DatasetError(
        _("{where}: {what} is {value}. Write the {what} as text or a whole number.").format(
            where=where, what=what, value=_describe(value)
        )
    )


def _human_value(value: Any, where: str) -> float | None:
    """A human score cell: a number on the metric's scale, pass (1) or fail (0); ``None`` when empty."""
    from skynet_core.human.human_score import parse_human_value

    try:
        return parse_human_value(value)
    except ValueError as exc:
        raise DatasetError(f"{where}: {exc}") from None


def place(file: str, unit: str, number: int) -> str:
    """Where a line or row of ``file`` is, for messages ("cases.jsonl, line 3"; ``unit`` is line or row).

    Every loaded case gets one, so the sentence is translated once per file and language, not per case.
    """
    head, tail = _place_parts(file, unit, language())
    return f"{head}{number}{tail}"


@functools.lru_cache(maxsize=64)
def _place_parts(file: str, unit: str, _language: str) -> tuple[str, str]:
    text = _("{file}, line {line}") if unit == "line" else _("{file}, row {row}")
    head, _sep, tail = text.format(file=file, line="\x00", row="\x00").partition("\x00")
    return head, tail


def _jsonl_row(file: str, number: int, obj: dict[str, Any]) -> _Row:
    where = place(file, "line", number)
    if "input" not in obj:
        raise DatasetError(
            _(
                '{where} has no "input". Give every line an input object, e.g. {{"input": {{"question": "..."}}, '
                '"output": "..."}}.'
            ).format(where=where),
        )
    if not isinstance(obj["input"], dict):
        raise DatasetError(
            _(
                '{where}: "input" is {value}, not an object. Write the input fields as an object, '
                'e.g. "input": {{"question": "..."}}.'
            ).format(where=where, value=_describe(obj["input"])),
        )
    if "output" not in obj:
        raise DatasetError(
            _(
                '{where} has no "output". Add the output to score to every line '
                "(any JSON value; null if there was none)."
            ).format(where=where),
        )
    expected = obj.get("expected")
    if expected is not None and not isinstance(expected, dict):
        raise DatasetError(
            _(
                '{where}: "expected" is {value}, not an object. Key it by output field, e.g. '
                '"expected": {{"label": "billing"}}, or write null when the case has no expected value.'
            ).format(where=where, value=_describe(expected)),
        )
    return _Row(
        number=number,
        where=where,
        input=obj["input"],
        output=obj["output"],
        expected=expected,
        observation=_observation(obj.get("observation"), where, text_ok=False),
        id=_name_value(obj.get("id"), "id", where),
        split=_name_value(obj.get("split"), "split", where),
        candidate=_name_value(obj.get("candidate"), "candidate", where),
        human=_human_value(obj.get("human"), where),
    )


def _flatten_jsonl(file: str, objects: list[tuple[int, dict[str, Any]]]) -> pd.DataFrame:
    """One row per object: ``input``, ``expected`` and ``observation`` objects spread into
    prefixed columns (null ones add nothing), ``output`` kept whole (its shape may differ from line to line,
    and the metric must see exactly what the artifact returned)."""
    import pandas as pd  # tables only: the CLI's JSONL path starts faster without pandas

    records = []
    columns: dict[str, None] = {}
    for _number, obj in objects:
        record: dict[str, Any] = {}
        for key, value in obj.items():
            if key in ("input", "expected", "observation") and (value is None or isinstance(value, dict)):
                record.update({f"{key}.{field}": item for field, item in (value or {}).items()})
            else:
                record[key] = value
        records.append(record)
        columns.update(dict.fromkeys(record))
        # Lines with ever-new keys would otherwise build a huge table before the width check.
        _check_width(file, len(columns))
    frame = pd.DataFrame(
        [[record.get(column) for column in columns] for record in records], columns=list(columns), dtype=object
    )
    frame.index = pd.Index([number for number, _obj in objects], name="line")
    return frame


def _check_width(file: str, count: int) -> None:
    if count > MAX_COLUMNS:
        raise DatasetError(
            _(
                "{file} has {count:,} columns; at most {limit:,} are supported. Keep only the columns the metric "
                "needs (input.*, expected.*, output, observation.*, id, split, candidate) and load it again."
            ).format(file=file, count=count, limit=MAX_COLUMNS)
        )


def _read_csv(path: Path) -> pd.DataFrame:
    import pandas as pd

    text = _read_text(path)
    try:
        header = next(csv.reader(io.StringIO(text)))
    except (csv.Error, StopIteration) as exc:
        raise DatasetError(
            _("{name} has no readable header row ({error}). Put the column names on the first line.").format(
                name=path.name, error=exc
            )
        ) from exc
    _check_width(path.name, len(header))
    seen: dict[str, int] = {}
    for position, column in enumerate(header, start=1):
        if column in seen:
            raise DatasetError(
                _(
                    "{name}: the column name {column!r} appears twice (columns {first} and {second}). "
                    "Rename one so every column name is unique."
                ).format(name=path.name, column=column, first=seen[column], second=position),
                column=column,
            )
        seen[column] = position
    try:
        # Read every cell as text: CSV has no types, and pandas' guessing would turn "007" into 7.
        limit = max_rows()
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False, nrows=limit + 1)
    except (pd.errors.ParserError, csv.Error) as exc:
        raise DatasetError(
            _(
                "{name} could not be read as CSV ({error}). Check that every row has as many fields as the header "
                "and that every quote is closed."
            ).format(name=path.name, error=exc)
        ) from exc
    if len(frame) > limit:
        raise _too_many_rows(path.name, limit)
    frame.index = pd.RangeIndex(1, len(frame) + 1, name="row")
    return frame


def _read_parquet(path: Path) -> pd.DataFrame:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    _check_file(path)
    try:
        _check_width(path.name, len(pq.read_schema(path).names))
        frame = _parquet_frame(path)
    except (OSError, ValueError, pa.ArrowException) as exc:
        if isinstance(exc, DatasetError):
            raise
        raise DatasetError(
            _(
                "{name} could not be read as Parquet ({error}). Check that it is a Parquet file, or save the cases "
                "as CSV or JSON Lines."
            ).format(name=path.name, error=exc)
        ) from exc
    frame.index = pd.RangeIndex(1, len(frame) + 1, name="row")
    return frame


def _parquet_frame(path: Path) -> pd.DataFrame:
    """The Parquet file as a frame, refused before reading when its own metadata is over the limits, and while
    reading, batch by batch, when its data turns out larger (metadata can lie)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows_limit, bytes_limit = max_rows(), max_decoded_bytes()
    with pq.ParquetFile(path) as parquet:
        metadata = parquet.metadata
        if metadata.num_rows > rows_limit:
            raise _too_many_rows(path.name, rows_limit)
        declared = sum(metadata.row_group(index).total_byte_size for index in range(metadata.num_row_groups))
        if declared > bytes_limit:
            raise _too_big_decoded(path.name, bytes_limit)
        batches, rows, size = [], 0, 0
        for batch in parquet.iter_batches(batch_size=_PARQUET_BATCH_ROWS):
            rows += batch.num_rows
            size += batch.nbytes
            if rows > rows_limit:
                raise _too_many_rows(path.name, rows_limit)
            if size > bytes_limit:
                raise _too_big_decoded(path.name, bytes_limit)
            batches.append(batch)
        table = pa.Table.from_batches(batches, schema=parquet.schema_arrow)
    frame: pd.DataFrame = _json_ready(path.name, table).to_pandas()
    return frame


def _json_ready(file: str, table: Any) -> Any:
    """The Parquet table with every column something a case (JSON) can carry, checked when the file is read.

    Binary columns of UTF-8 text become text; decimals become numbers when a float holds them exactly
    (precision up to 15 digits), else text with every digit. Bytes that are not text, durations and
    intervals (also inside lists and structs) are refused, naming the column: they would otherwise
    reach the sandbox as values JSON cannot encode and be blamed on the metric.
    """
    import pyarrow as pa

    for index, field in enumerate(table.schema):
        kind = field.type
        target = None
        if _is_binary(kind):
            target = pa.large_string() if pa.types.is_large_binary(kind) else pa.string()
        elif pa.types.is_decimal(kind):
            target = pa.float64() if kind.precision <= 15 else pa.string()
        elif problem := _unsupported(kind):
            raise _column_refused(file, field.name, problem, kind)
        if target is not None:
            try:
                column = table.column(index).cast(target)
            except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
                raise _column_refused(file, field.name, "binary", kind) from None
            table = table.set_column(index, field.name, column)
    return table


def _is_binary(kind: Any) -> bool:
    import pyarrow as pa

    return bool(
        pa.types.is_binary(kind)
        or pa.types.is_large_binary(kind)
        or pa.types.is_fixed_size_binary(kind)
        or pa.types.is_binary_view(kind)
    )


def _unsupported(kind: Any) -> str | None:
    """``"binary"`` or ``"duration"`` when ``kind`` holds bytes, durations or intervals at any depth, else None."""
    import pyarrow as pa

    if _is_binary(kind):
        return "binary"
    if pa.types.is_duration(kind) or pa.types.is_interval(kind):
        return "duration"
    if pa.types.is_dictionary(kind):
        return _unsupported(kind.value_type)
    for child in range(getattr(kind, "num_fields", 0)):
        if problem := _unsupported(kind.field(child).type):
            return problem
    return None


def _column_refused(file: str, column: str, problem: str, kind: Any) -> DatasetError:
    message = (
        _(
            "{file}: column {column!r} holds binary data ({type}) that is not UTF-8 text, and a case is JSON, which "
            "cannot carry bytes. Store it as text (e.g. base64), or leave the column out of the file."
        )
        if problem == "binary"
        else _(
            "{file}: column {column!r} holds durations ({type}), and a case is JSON, which has none. Store them as "
            "numbers with the unit in the column name (e.g. latency_ms), or as text."
        )
    )
    return DatasetError(message.format(file=file, column=column, type=kind), column=column)


def read_table(path: str | Path) -> pd.DataFrame:
    """The file as a table, for a page to preview and assign roles to.

    JSON Lines objects are flattened with the role prefixes (``input.question``,
    ``expected.label``, ``observation.latency_ms``; ``output`` stays one column).
    CSV cells are the text written (empty cells are ``""``). The index is the
    1-based line (JSON Lines, named ``line``) or row (tables, named ``row``) number
    that messages refer to. Raises :class:`DatasetError` for an unreadable file.
    """
    path = Path(path)
    refuse_folder(path)
    suffix = _suffix(path)
    if suffix in _JSONL_SUFFIXES:
        frame = _flatten_jsonl(path.name, _jsonl_objects(path))
    elif suffix == ".csv":
        frame = _read_csv(path)
    else:
        frame = _read_parquet(path)
    _check_width(path.name, len(frame.columns))
    if frame.empty:
        raise DatasetError(
            _("{file} has column names but no rows. Add one row per case and load it again.").format(file=path.name)
        )
    return frame
