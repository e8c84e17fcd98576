"""Human scores in files: CSV and JSON Lines with ``id``, ``human`` and optional ``candidate``, ``note``, ``rater``.

``human`` is a number on the metric's scale, or ``pass`` / ``fail`` (kept as 1 / 0); an empty cell
(or ``null``) means the case is not labelled and the row is skipped. Anything else is refused with
the file and line. Other columns or keys are ignored, so a case file with ``id`` and ``human`` reads
as labels too. Exports write the same five columns, so an export reads back as it was.
"""

from __future__ import annotations

import csv
import io
import numbers
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import orjson

from skynet_core.i18n import _
from skynet_core.paths import special_file
from skynet_core.runs.export import FORMULA_STARTS, safe_csv_cell

from .human_score import HumanScore, LabelError, parse_human_value

LABEL_COLUMNS = ("id", "human", "candidate", "note", "rater")
MAX_LABEL_BYTES = 64 << 20
_JSONL = (".jsonl", ".json")


def read_labels(path: str | Path, *, dataset: str, rater: str) -> list[HumanScore]:
    """The human scores in a ``.csv`` or ``.jsonl`` file, for ``dataset``; a row without a rater is ``rater``'s.

    Raises :class:`LabelError` naming the file and line: a value that is neither a number nor
    pass/fail, a row without an id, the same case, candidate and rater twice, a file that cannot be read.
    """
    path = Path(path)
    _check_suffix(path.name)
    return labels_from_bytes(_read_bytes(path), path.name, dataset=dataset, rater=rater)


def labels_from_bytes(data: bytes, name: str, *, dataset: str, rater: str) -> list[HumanScore]:
    """The human scores in the bytes of a file named ``name`` (an upload): as :func:`read_labels` reads a file."""
    file = Path(name).name
    suffix = _check_suffix(file)
    if len(data) > MAX_LABEL_BYTES:
        raise _too_large(file)
    text = _decode(file, data)
    rows = _jsonl_rows(file, text) if suffix in _JSONL else _csv_rows(file, text)
    found: dict[tuple[str, str, str], int] = {}
    scores = []
    for line, row in rows:
        score = _score(file, line, row, dataset, rater)
        if score is None:
            continue
        key = (score.case_id, score.candidate, score.rater)
        if key in found:
            message = (
                _(
                    "{file}, lines {first} and {second}: case {id!r} has two scores by {rater!r} for candidate "
                    "{candidate!r}. Keep one."
                )
                if score.candidate
                else _("{file}, lines {first} and {second}: case {id!r} has two scores by {rater!r}. Keep one.")
            )
            raise LabelError(
                message.format(
                    file=file,
                    first=found[key],
                    second=line,
                    id=score.case_id,
                    rater=score.rater,
                    candidate=score.candidate,
                ),
                line=line,
            )
        found[key] = line
        scores.append(score)
    return scores


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


def _read_bytes(path: Path) -> bytes:
    file = path.name
    if kind := special_file(path):
        raise LabelError(_("{file} is {kind}, not a file of human scores.").format(file=file, kind=kind))
    try:
        if path.stat().st_size > MAX_LABEL_BYTES:
            raise _too_large(file)
        return path.read_bytes()
    except OSError as exc:
        raise LabelError(
            _("cannot read the human scores in {file} ({reason}).").format(file=path, reason=exc.strerror or exc)
        ) from None


def _decode(file: str, data: bytes) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise LabelError(
            _("{file}, line {line}: the file is not UTF-8 text; save it as UTF-8.").format(file=file, line=line),
            line=line,
        ) from None


def _csv_rows(file: str, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    reader = csv.reader(io.StringIO(text, newline=""))
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
        if any(cell.strip() for cell in cells):
            yield reader.line_num, dict(zip(header, map(_unguarded, cells), strict=False))


def _unguarded(cell: str) -> str:
    """A cell as written before :func:`safe_csv_cell` guarded it (the ``'`` before a formula-like start removed)."""
    return cell[1:] if cell.startswith("'") and cell[1:2] and cell[1:].startswith(FORMULA_STARTS) else cell


def _jsonl_rows(file: str, text: str) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(text.splitlines(), start=1):
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


def _score(file: str, line: int, row: dict[str, Any], dataset: str, rater: str) -> HumanScore | None:
    try:
        value = parse_human_value(row.get("human"))
    except ValueError as exc:
        raise LabelError(
            _("{file}, line {line}: {problem}").format(file=file, line=line, problem=exc), line=line
        ) from None
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
    return HumanScore(
        dataset=dataset,
        case_id=case_id,
        candidate=_text(file, line, row, "candidate"),
        value=value,
        rater=_text(file, line, row, "rater") or rater,
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
    """Human scores as UTF-8 CSV (``id, human, candidate, note, rater``); text that starts like a spreadsheet
    formula gets a leading ``'``."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(LABEL_COLUMNS)
    for score in scores:
        writer.writerow(
            [safe_csv_cell(value) if isinstance(value, str) else repr(value) for value in _row(score).values()]
        )
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
