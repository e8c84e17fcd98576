"""CSV and Parquet case files into a pandas frame, every column's kind checked, within the limits."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skynet_core.i18n import _

from .disk import (
    _JSONL_SUFFIXES,
    _PARQUET_BATCH_ROWS,
    _check_file,
    _check_width,
    _read_text,
    _suffix,
    _too_big_decoded,
    _too_many_rows,
    max_decoded_bytes,
    max_rows,
    refuse_folder,
)
from .jsonl import _flatten_jsonl, _jsonl_objects
from .model import (
    DatasetError,
)

if TYPE_CHECKING:
    import pandas as pd


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
