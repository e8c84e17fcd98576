"""Human scores in files: CSV and JSON Lines with ``id``, ``human`` and optional ``candidate``, ``note``, ``rater``.

``human`` is a number on the metric's scale, or ``pass`` / ``fail`` (kept as 1 / 0); an empty cell
(or ``null``) means the case is not labelled and the row is skipped. Anything else is refused with
the file and line. Other columns or keys are ignored, so a case file with ``id`` and ``human`` reads
as labels too. A row without a candidate is for the candidate given (the one in use, or scored); a row's
rater follows the rules of a rater's name (:func:`.settings.check_rater_name`).

The file is read as a stream, a line at a time: given the data's cases (:class:`KnownCases`), only the rows
that name one are kept, and the others are counted with the first few ids (:class:`LabelFile`), so a file of a
million rows for other data costs its parse, not its rows in memory. Exports write the same five columns and
the ``escaped`` mark (:mod:`.label_cells`), so an export reads back exactly as it was.
"""

from __future__ import annotations

import csv
import io
import math
import numbers
from collections.abc import Collection, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

import orjson

from skynet_core.i18n import _
from skynet_core.paths import special_file

from .human_score import PASS_WORDS, HumanScore, LabelError, parse_human_value
from .label_cells import ESCAPED, MARK, escaped, restore
from .settings import check_rater_name

LABEL_COLUMNS = ("id", "human", "candidate", "note", "rater")
MAX_LABEL_BYTES = 64 << 20
UNKNOWN_KEPT = 20
"""The ids of rows for other cases an import keeps to show (the rest are only counted)."""
_JSONL = (".jsonl", ".json")
_TEXT_KEYS = ("id", "candidate", "note", "rater")


@dataclass(frozen=True)
class KnownCases:
    """The cases of the data the labels are for: their ids, and the names of their candidates (every candidate
    of a dataset has the same case ids)."""

    ids: Collection[str]
    candidates: Collection[str] = ("",)

    def __contains__(self, score: object) -> bool:
        return isinstance(score, HumanScore) and score.case_id in self.ids and score.candidate in self.candidates


@dataclass(frozen=True)
class LabelFile:
    """What a labels file holds for the data: the ``scores`` of its cases (every row's, when the data was not
    given), and the ``unknown_rows`` that name other cases (an id or a candidate the data does not have), with
    the first :data:`UNKNOWN_KEPT` of their ids in file order (each once); ``defaulted`` scores named no
    candidate and are the candidate given's. Iterating it gives the scores."""

    scores: tuple[HumanScore, ...]
    unknown_rows: int = 0
    unknown_sample: tuple[str, ...] = ()
    defaulted: int = 0

    def __iter__(self) -> Iterator[HumanScore]:
        return iter(self.scores)

    def __len__(self) -> int:
        return len(self.scores)


def read_labels(
    path: str | Path, *, dataset: str, rater: str, candidate: str = "", known: KnownCases | None = None
) -> LabelFile:
    """The human scores in a ``.csv`` or ``.jsonl`` file, for ``dataset``: a row without a rater is ``rater``'s, one
    without a candidate ``candidate``'s; with ``known``, only the rows of those cases are kept (see :class:`LabelFile`).

    Raises :class:`LabelError` naming the file and line: a value that is neither a number nor
    pass/fail, a row without an id, a rater's name that cannot be one, the same case, candidate and rater
    twice, a file that cannot be read.
    """
    path = Path(path)
    _check_suffix(path.name)
    file = path.name
    if kind := special_file(path):
        raise LabelError(_("{file} is {kind}, not a file of human scores.").format(file=file, kind=kind))
    try:
        if path.stat().st_size > MAX_LABEL_BYTES:
            raise _too_large(file)
        with path.open("rb") as handle:
            return _read(handle, file, dataset=dataset, rater=rater, candidate=candidate, known=known)
    except OSError as exc:
        raise LabelError(
            _("cannot read the human scores in {file} ({reason}).").format(file=path, reason=exc.strerror or exc)
        ) from None


def labels_from_bytes(
    data: bytes, name: str, *, dataset: str, rater: str, candidate: str = "", known: KnownCases | None = None
) -> LabelFile:
    """The human scores in the bytes of a file named ``name`` (an upload): as :func:`read_labels` reads a file."""
    file = Path(name).name
    _check_suffix(file)
    if len(data) > MAX_LABEL_BYTES:
        raise _too_large(file)
    return _read(io.BytesIO(data), file, dataset=dataset, rater=rater, candidate=candidate, known=known)


def _read(
    handle: IO[bytes], file: str, *, dataset: str, rater: str, candidate: str, known: KnownCases | None
) -> LabelFile:
    try:
        rater = check_rater_name(rater)
    except ValueError as exc:
        raise LabelError(
            _("{file}: rows without a rater would be the scores of {name!r}, but {problem}").format(
                file=file, name=rater, problem=_lower_first(str(exc))
            )
        ) from None
    others = _Others()
    ids = known.ids if known is not None else None
    rows = _jsonl_rows(file, handle) if Path(file).suffix.lower() in _JSONL else _csv_rows(file, handle, ids, others)
    found: dict[tuple[str, str, str], int] = {}
    scores: list[HumanScore] = []
    defaulted = 0
    for line, row in rows:
        if ids is not None and _quick_id(row) not in ids and _labelled(file, line, row):
            others.add(_text(file, line, row, "id"))  # its value checked, nothing else built (millions may come)
            continue
        score = _score(file, line, row, dataset, rater, candidate)
        if score is None:
            continue
        if known is not None and score not in known:
            others.add(score.case_id)
            continue
        key = (score.case_id, score.candidate, score.rater)
        if key in found:
            raise _twice(file, found[key], line, score)
        found[key] = line
        scores.append(score)
        defaulted += not _text(file, line, row, "candidate")
    return LabelFile(tuple(scores), others.rows, tuple(others.sample), defaulted)


class _Others:
    """The rows of a file that name cases the data does not have: counted, the first ids (each once) kept."""

    def __init__(self) -> None:
        self.rows = 0
        self.sample: dict[str, None] = {}

    def add(self, case_id: str) -> None:
        self.rows += 1
        if len(self.sample) < UNKNOWN_KEPT:
            self.sample[case_id] = None


def _plain_score(text: str) -> bool:
    """Whether a CSV cell is a score that needs no more checking: a finite number, pass or fail (an empty cell, or
    one to refuse, goes the whole way, which says why)."""
    text = text.strip()
    if text.lower() in PASS_WORDS:
        return True
    try:
        return math.isfinite(float(text))
    except ValueError:
        return False


def _quick_id(row: dict[str, Any]) -> str:
    """The row's id as :func:`_text` reads it, for the common cases (text, a whole number), else ``""``."""
    value = row.get("id")
    if type(value) is str:
        return value.strip()
    return str(value) if type(value) is int else ""


def _labelled(file: str, line: int, row: dict[str, Any]) -> bool:
    """Whether the row gives a score (an empty value does not); raises :class:`LabelError` for a bad value. The
    common values (a number, pass or fail, as text or JSON) are checked without :func:`parse_human_value`'s
    generality."""
    value = row.get("human")
    kind = type(value)
    if kind is float or kind is int:
        return _finite(file, line, row, float(value))  # type: ignore[arg-type]
    if kind is str:
        text = value.strip()  # type: ignore[union-attr]
        if not text:
            return False
        if text.lower() in PASS_WORDS:
            return True
        try:
            return _finite(file, line, row, float(text))
        except ValueError:
            pass
    return _score_value(file, line, row) is not None


def _finite(file: str, line: int, row: dict[str, Any], number: float) -> bool:
    return math.isfinite(number) or _score_value(file, line, row) is not None


def _score_value(file: str, line: int, row: dict[str, Any]) -> float | None:
    try:
        return parse_human_value(row.get("human"))
    except ValueError as exc:
        raise LabelError(
            _("{file}, line {line}: {problem}").format(file=file, line=line, problem=exc), line=line
        ) from None


def _twice(file: str, first: int, second: int, score: HumanScore) -> LabelError:
    message = (
        _(
            "{file}, lines {first} and {second}: case {id!r} has two scores by {rater!r} for candidate "
            "{candidate!r}. Keep one."
        )
        if score.candidate
        else _("{file}, lines {first} and {second}: case {id!r} has two scores by {rater!r}. Keep one.")
    )
    return LabelError(
        message.format(
            file=file, first=first, second=second, id=score.case_id, rater=score.rater, candidate=score.candidate
        ),
        line=second,
    )


def _lower_first(text: str) -> str:
    return text[:1].lower() + text[1:]


def _check_suffix(file: str) -> str:
    suffix = Path(file).suffix.lower()
    if suffix not in (".csv", *_JSONL):
        raise LabelError(
            _("{file}: human scores are read from a .csv or .jsonl file with the columns id and human.").format(
                file=file
            )
        )
    return suffix


def _too_large(file: str) -> LabelError:
    return LabelError(
        _("{file} is larger than {limit} MB; human scores fit in far less.").format(
            file=file, limit=MAX_LABEL_BYTES >> 20
        )
    )


def _text_lines(file: str, handle: IO[bytes]) -> Iterator[str]:
    """The file's lines as text, split at ``\\n`` only (JSON text may hold a raw U+2028 or ``\\r`` that
    ``str.splitlines()`` would break at), each decoded on its own so a byte that is not UTF-8 is named by its line."""
    for number, raw in enumerate(handle, start=1):
        try:
            line = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise LabelError(
                _("{file}, line {line}: the file is not UTF-8 text; save it as UTF-8.").format(file=file, line=number),
                line=number,
            ) from None
        yield line.removeprefix("\ufeff") if number == 1 else line


def _csv_rows(
    file: str, handle: IO[bytes], known: Collection[str] | None, others: _Others
) -> Iterator[tuple[int, dict[str, Any]]]:
    """The rows as dicts by the header's names; a plain row of a case not ``known`` is only counted in ``others``
    (no dict is built: a file of millions of such rows is read at the speed of the csv module)."""
    reader = csv.reader(_text_lines(file, handle))
    try:
        header = [name.strip().lower() for name in next(reader)]
    except StopIteration:
        header = []
    except csv.Error as exc:
        raise LabelError(_("{file}, line 1: {error}").format(file=file, error=exc), line=1) from None
    missing = [name for name in ("id", "human") if name not in header]
    if missing:
        raise LabelError(
            _("{file}, line 1: the header has no {columns} column; name the columns id and human.").format(
                file=file, columns=" / ".join(missing)
            ),
            line=1,
        )
    marked = header.index(ESCAPED) if ESCAPED in header else None
    id_at, human_at = header.index("id"), header.index("human")
    needed = max(id_at, human_at) + 1
    while True:
        try:
            cells = next(reader)
        except StopIteration:
            return
        except csv.Error as exc:
            raise LabelError(
                _("{file}, line {line}: {error}").format(file=file, line=reader.line_num, error=exc),
                line=reader.line_num,
            ) from None
        escaped_row = marked is not None and marked < len(cells) and cells[marked] == MARK
        if known is not None and not escaped_row and len(cells) >= needed:
            case_id = cells[id_at].strip()
            if case_id and case_id not in known and _plain_score(cells[human_at]):
                others.add(case_id)
                continue
        if not (cells and (cells[0].strip() or any(cell.strip() for cell in cells))):
            continue
        row = dict(zip(header, cells, strict=False))
        if escaped_row:
            row.update((key, restore(row[key])) for key in _TEXT_KEYS if key in row)
        yield reader.line_num, row


def _jsonl_rows(file: str, handle: IO[bytes]) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(_text_lines(file, handle), start=1):
        if not line.strip():
            continue
        try:
            row = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            raise LabelError(
                _("{file}, line {line}: not valid JSON ({error}).").format(file=file, line=number, error=exc),
                line=number,
            ) from None
        if not isinstance(row, dict):
            raise LabelError(
                _('{file}, line {line}: write an object such as {{"id": "t1", "human": 0.8}}.').format(
                    file=file, line=number
                ),
                line=number,
            )
        yield number, row


def _text(file: str, line: int, row: dict[str, Any], key: str) -> str:
    value = row.get(key)
    if value is None:
        return ""
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return str(value)
    if isinstance(value, str):
        return value.strip() if key != "note" else value
    raise LabelError(
        _("{file}, line {line}: {key} is {value!r}; write it as text.").format(
            file=file, line=line, key=key, value=value
        ),
        line=line,
    )


def _score(file: str, line: int, row: dict[str, Any], dataset: str, rater: str, candidate: str) -> HumanScore | None:
    value = _score_value(file, line, row)
    if value is None:
        return None
    case_id = _text(file, line, row, "id")
    if not case_id:
        raise LabelError(
            _("{file}, line {line}: the score has no id; give the id of the case it scores.").format(
                file=file, line=line
            ),
            line=line,
        )
    named = _text(file, line, row, "rater")
    if named:
        try:
            named = check_rater_name(named)
        except ValueError as exc:
            raise LabelError(
                _("{file}, line {line}: {problem}").format(file=file, line=line, problem=exc), line=line
            ) from None
    return HumanScore(
        dataset=dataset,
        case_id=case_id,
        candidate=_text(file, line, row, "candidate") or candidate,
        value=value,
        rater=named or rater,
        note=_text(file, line, row, "note"),
    )


def _row(score: HumanScore) -> dict[str, Any]:
    return {
        "id": score.case_id,
        "human": score.value,
        "candidate": score.candidate,
        "note": score.note,
        "rater": score.rater,
    }


def labels_csv(scores: Iterable[HumanScore]) -> bytes:
    """Human scores as UTF-8 CSV (``id, human, candidate, note, rater, escaped``): each text cell guarded and
    escaped (:func:`.label_cells.escaped`) and each row marked so, so the import restores it exactly."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow((*LABEL_COLUMNS, ESCAPED))
    for score in scores:
        cells = [escaped(value) if isinstance(value, str) else repr(value) for value in _row(score).values()]
        writer.writerow((*cells, MARK))
    return buffer.getvalue().encode("utf-8")


def labels_jsonl(scores: Iterable[HumanScore]) -> bytes:
    """Human scores as JSON Lines, one ``{"id", "human", "candidate", "note", "rater"}`` object a line."""
    return b"".join(orjson.dumps(_row(score)) + b"\n" for score in scores)


def write_labels(path: str | Path, scores: Iterable[HumanScore]) -> Path:
    """Write human scores to a ``.csv`` or ``.jsonl`` file (chosen by the extension)."""
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in (".csv", *_JSONL):
        raise ValueError(_("{file}: write human scores to a .csv or .jsonl file.").format(file=path.name))
    data = labels_jsonl(scores) if suffix in _JSONL else labels_csv(scores)
    path.write_bytes(data)
    return path
