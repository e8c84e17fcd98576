"""Case files on disk: sizes, uploads, JSON Lines, CSV and Parquet into plain rows or a frame.

One face over the modules that do it, so that ``from .files import …`` keeps working: ``disk`` (the limits, a
file's kind, uploads, reading bytes), ``cell_values`` (JSON text, measurements, names, places), ``jsonl`` (JSON
Lines files) and ``tables`` (CSV and Parquet into a frame). The limits live in ``disk``: change them there.
"""

from __future__ import annotations

from .cell_values import _NUMBER_TEXT as _NUMBER_TEXT
from .cell_values import _SURROGATE as _SURROGATE
from .cell_values import LoneSurrogate as LoneSurrogate
from .cell_values import TooDeep as TooDeep
from .cell_values import _describe as _describe
from .cell_values import _holds_surrogate as _holds_surrogate
from .cell_values import _human_value as _human_value
from .cell_values import _measurement as _measurement
from .cell_values import _name_value as _name_value
from .cell_values import _observation as _observation
from .cell_values import _parse_json as _parse_json
from .cell_values import _place_parts as _place_parts
from .cell_values import _reject_constant as _reject_constant
from .cell_values import place as place
from .disk import _CHUNK_BYTES as _CHUNK_BYTES
from .disk import _JSONL_SUFFIXES as _JSONL_SUFFIXES
from .disk import _PARQUET_BATCH_ROWS as _PARQUET_BATCH_ROWS
from .disk import _SUFFIXES as _SUFFIXES
from .disk import _UNSAFE_NAME as _UNSAFE_NAME
from .disk import MAX_COLUMNS as MAX_COLUMNS
from .disk import MAX_DECODED_BYTES as MAX_DECODED_BYTES
from .disk import MAX_FILE_BYTES as MAX_FILE_BYTES
from .disk import MAX_ROWS as MAX_ROWS
from .disk import MAX_UPLOAD_NAME_CHARS as MAX_UPLOAD_NAME_CHARS
from .disk import _check_file as _check_file
from .disk import _check_width as _check_width
from .disk import _empty as _empty
from .disk import _env_limit as _env_limit
from .disk import _file_label as _file_label
from .disk import _read_bytes as _read_bytes
from .disk import _read_text as _read_text
from .disk import _suffix as _suffix
from .disk import _too_big_decoded as _too_big_decoded
from .disk import _too_many_rows as _too_many_rows
from .disk import _unreadable as _unreadable
from .disk import check_size as check_size
from .disk import max_decoded_bytes as max_decoded_bytes
from .disk import max_rows as max_rows
from .disk import refuse_folder as refuse_folder
from .disk import save_upload as save_upload
from .jsonl import _flatten_jsonl as _flatten_jsonl
from .jsonl import _jsonl_objects as _jsonl_objects
from .jsonl import _jsonl_row as _jsonl_row
from .tables import _column_refused as _column_refused
from .tables import _is_binary as _is_binary
from .tables import _json_ready as _json_ready
from .tables import _parquet_frame as _parquet_frame
from .tables import _read_csv as _read_csv
from .tables import _read_parquet as _read_parquet
from .tables import _unsupported as _unsupported
from .tables import read_table as read_table
