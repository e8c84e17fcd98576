"""Case results as a table: for the Author page's grid, the CLI's `--out`, and exports.

One row per case; one ``score.<name>`` column per named score seen in the run, for the first
:data:`MAX_SCORE_COLUMNS` names; a run with more (names that differ from case to case) keeps the
rest of each case's named scores as one JSON object in the :data:`OTHER_SCORES` column.

Files are written as the results come (:func:`open_results`), so a run of a
million cases never holds them: JSONL goes straight to the file; CSV and
Parquet, whose columns are known only at the end (the named scores), spool
each result as a JSON line to a temporary file and write the table from it
when closed. Only Parquet needs pyarrow, and nothing here needs pandas except
:func:`results_frame`.
"""

from __future__ import annotations

import csv
import os
import tempfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import orjson

from ..display import escape_controls, terminal_text
from ..results import CaseResult

if TYPE_CHECKING:
    import pandas as pd

BASE_COLUMNS = ["id", "split", "candidate", "status", "score"]
TAIL_COLUMNS = ["feedback", "duration_ms", "judge_calls", "judge_ms", "judge_cost_usd", "error", "extra", "stdout"]
OUT_FORMATS = (".csv", ".jsonl", ".parquet")
NUMBER_COLUMNS = ("score", "judge_cost_usd")  # and every score.<name>
PARQUET_ROWS = 65536  # rows per Parquet row group: bounded memory while writing
SPOOL_IN_MEMORY = 8 << 20  # a spool stays in memory up to this size, then moves to a temporary file
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
MAX_SCORE_COLUMNS = 256  # as many as a case may return (the contract's cap): a table never gets wider
OTHER_SCORES = "other_scores"  # not "score.<name>": no named score can take its place


def safe_csv_cell(value: Any) -> Any:
    """A CSV cell a spreadsheet shows as text: a string that starts like a formula gets a leading ``'``, and its
    control and invisible characters are escaped as the terminal shows them (``\\e``, ``\\x07``, ``\\u200b``),
    line breaks and tabs kept (CSV quotes them).

    Feedback, case ids and candidates come from metric code and data files; a cell such as
    ``=HYPERLINK(...)`` would otherwise run as a formula when the CSV is opened, and an escape
    sequence would run when it is printed in a terminal. Every CSV the studio writes passes its
    cells through here; other values are returned unchanged.
    """
    if not isinstance(value, str):
        return value
    if not value.isascii() or not value.isprintable():
        value = escape_controls(value, keep="\n\t")
    return "'" + value if value.startswith(FORMULA_STARTS) else value


def safe_csv_header(name: str) -> str:
    """A column name for a CSV header: one line, every control character escaped, never a formula."""
    return str(safe_csv_cell(terminal_text(name)))


class ScoreNames:
    """The named scores that get a column: the first :data:`MAX_SCORE_COLUMNS` seen, in that order, and
    whether any other was seen (then the table has an :data:`OTHER_SCORES` column too)."""

    def __init__(self) -> None:
        self.names: dict[str, None] = {}
        self.more = False

    def add(self, result: CaseResult) -> None:
        for name in result.scores:
            if name not in self.names:
                if len(self.names) < MAX_SCORE_COLUMNS:
                    self.names[name] = None
                else:
                    self.more = True

    def columns(self) -> list[str]:
        return columns_for(list(self.names), self.more)

    @classmethod
    def of(cls, results: Iterable[CaseResult]) -> ScoreNames:
        seen = cls()
        for result in results:
            seen.add(result)
        return seen


def score_names(results: Iterable[CaseResult]) -> list[str]:
    """Named scores in the order they first appear (the first :data:`MAX_SCORE_COLUMNS`)."""
    return list(ScoreNames.of(results).names)


def columns_for(names: list[str], more: bool = False) -> list[str]:
    return BASE_COLUMNS + [f"score.{name}" for name in names] + ([OTHER_SCORES] if more else []) + TAIL_COLUMNS


def result_row(result: CaseResult, names: list[str], more: bool = False) -> dict[str, Any]:
    """One case's row; a named score the case did not report is ``None``. With ``more``, the named scores
    not in ``names`` go to :data:`OTHER_SCORES` as a JSON object (empty when there are none)."""
    row: dict[str, Any] = {
        "id": result.id,
        "split": result.split,
        "candidate": result.candidate,
        "status": result.status.value,
        "score": result.score,
    }
    for name in names:
        row[f"score.{name}"] = result.scores.get(name)
    if more:
        other = {name: value for name, value in result.scores.items() if f"score.{name}" not in row}
        row[OTHER_SCORES] = orjson.dumps(other).decode() if other else ""
    row.update(
        {
            "feedback": result.feedback,
            "duration_ms": round(result.duration_ms, 3),
            "judge_calls": result.judge.calls,
            "judge_ms": round(result.judge.latency_ms, 1),
            "judge_cost_usd": result.judge.cost_usd,
            "error": result.error,
            "extra": orjson.dumps(result.extra, option=orjson.OPT_NON_STR_KEYS).decode() if result.extra else "",
            "stdout": result.stdout,
        }
    )
    return row


def results_frame(results: list[CaseResult]) -> pd.DataFrame:
    """The per-case table. Missing named scores are NaN (the case did not report them)."""
    import pandas as pd

    seen = ScoreNames.of(results)
    names = list(seen.names)
    frame = pd.DataFrame([result_row(result, names, seen.more) for result in results], columns=seen.columns())
    for column in ["score", *[f"score.{name}" for name in names], "judge_cost_usd"]:
        frame[column] = pd.to_numeric(frame[column], errors="coerce")
    return frame


class ResultsWriter:
    """Writes results to a file as they come; :func:`open_results` picks the format.

    The results go to a temporary file beside ``path`` (``.<name>.<pid>.part``), created at once so
    a folder that cannot be written fails before any case runs; :meth:`close` finishes it and
    renames it over ``path``, :meth:`discard` removes it. An interrupted run so never leaves a
    half-written file where an old one was. As a context manager it closes on success and
    discards on an exception.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self.count = 0
        self.partial = path.with_name(f".{path.name}.{os.getpid()}.part")
        # Created as open() would create the file itself (0666 less the umask), never over an existing one.
        os.close(os.open(self.partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666))
        self._done = False

    def write(self, result: CaseResult, encoded: bytes | None = None) -> None:
        """Add one result; ``encoded`` is its ``to_json_bytes()`` when the caller has it already."""
        raise NotImplementedError

    def finish(self) -> None:
        """Complete the temporary file."""
        raise NotImplementedError

    def release(self) -> None:
        """Let go of what the writer holds open (called once, by :meth:`close` and :meth:`discard`)."""

    def close(self) -> Path:
        """Finish the file and put it in place; on failure the temporary file is removed and the old one kept."""
        if not self._done:
            self._done = True
            try:
                self.finish()
                self.release()
                os.replace(self.partial, self.path)
            except BaseException:
                self.release()
                self.partial.unlink(missing_ok=True)
                raise
        return self.path

    def discard(self) -> None:
        """Drop what was written: ``path`` stays as it was."""
        if not self._done:
            self._done = True
            self.release()
            self.partial.unlink(missing_ok=True)

    def __enter__(self) -> ResultsWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, *exc_info: object) -> None:
        if kind is None:
            self.close()
        else:
            self.discard()


class JsonlWriter(ResultsWriter):
    """One ``CaseResult.to_json()`` object a line, written as each result comes."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._file = self.partial.open("wb", buffering=1 << 20)

    def write(self, result: CaseResult, encoded: bytes | None = None) -> None:
        self._file.write((encoded or result.to_json_bytes()) + b"\n")
        self.count += 1

    def finish(self) -> None:
        self._file.flush()

    def release(self) -> None:
        self._file.close()


class _TableWriter(ResultsWriter):
    """Spools results until the columns are known, then writes the table in :meth:`write_table`."""

    def __init__(self, path: Path) -> None:
        super().__init__(path)
        self._spool: IO[bytes] = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)
        self._names = ScoreNames()

    def write(self, result: CaseResult, encoded: bytes | None = None) -> None:
        self._spool.write((encoded or result.to_json_bytes()) + b"\n")
        self._names.add(result)
        self.count += 1

    def rows(self) -> Iterator[dict[str, Any]]:
        names = list(self._names.names)
        self._spool.seek(0)
        for line in self._spool:
            yield result_row(CaseResult.from_json(orjson.loads(line)), names, self._names.more)

    def finish(self) -> None:
        self.write_table(self._names.columns())

    def release(self) -> None:
        self._spool.close()

    def write_table(self, columns: list[str]) -> None:
        """Write the whole table to ``self.partial``."""
        raise NotImplementedError


def csv_cell(value: Any) -> Any:
    """The one place a value becomes a CSV cell (``None`` is an empty cell, as pandas writes it)."""
    return safe_csv_cell(value)


class CsvWriter(_TableWriter):
    def write_table(self, columns: list[str]) -> None:
        with self.partial.open("w", encoding="utf-8", newline="") as handle:
            writer = csv.writer(handle, lineterminator="\n")
            writer.writerow([safe_csv_header(column) for column in columns])  # named-score keys come from metric code
            for row in self.rows():
                writer.writerow([csv_cell(row[column]) for column in columns])


class ParquetWriter(_TableWriter):
    def write_table(self, columns: list[str]) -> None:
        import pyarrow as pa
        import pyarrow.parquet as pq

        numbers = {*NUMBER_COLUMNS, *(column for column in columns if column.startswith("score."))}
        types = {"duration_ms": pa.float64(), "judge_ms": pa.float64(), "judge_calls": pa.int64()}
        schema = pa.schema(
            [(column, pa.float64() if column in numbers else types.get(column, pa.string())) for column in columns]
        )
        with pq.ParquetWriter(self.partial, schema) as writer:
            batch: list[dict[str, Any]] = []
            for row in self.rows():
                batch.append(row)
                if len(batch) == PARQUET_ROWS:
                    writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                    batch = []
            if batch or not self.count:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))


_WRITERS: dict[str, type[ResultsWriter]] = {".jsonl": JsonlWriter, ".csv": CsvWriter, ".parquet": ParquetWriter}


def open_results(path: str | Path) -> ResultsWriter:
    """A writer for CSV, JSONL or Parquet, chosen by the file's extension. Raises ``OSError``
    when the file cannot be created (before any result is written)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in OUT_FORMATS:
        raise ValueError(f"cannot write {path.name}: use a .csv, .jsonl or .parquet file name")
    return _WRITERS[suffix](path)


def write_results(results: Iterable[CaseResult], path: str | Path) -> Path:
    """Write results as CSV, JSONL or Parquet, chosen by the file's extension."""
    with open_results(path) as writer:
        for result in results:
            writer.write(result)
    return writer.path
