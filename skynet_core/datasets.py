"""Datasets: read case files, assign column roles, plan splits, sample cases for the contract check.

The rules a reader can rely on:

Formats (chosen by extension; anything else is refused with a clear message)
    ``.jsonl`` / ``.json`` are JSON Lines, the canonical format: one object a line
    with ``input`` (object), ``output`` (any JSON value), ``expected`` (object or
    null, may be left out) and optional ``id``, ``split``, ``candidate`` and
    ``observation`` (``{"latency_ms": number|null, "cost_usd": number|null}``).
    Blank lines are skipped but still counted, so line numbers match an editor's.
    ``.csv`` and ``.parquet`` are tables whose column names carry a role prefix:
    ``input.question``, ``expected.label``, ``output`` (or ``output.field`` for an
    object output), ``observation.latency_ms``, ``observation.cost_usd``, ``split``,
    ``id``, ``candidate``. A column named exactly ``input``, ``expected`` or
    ``observation`` holds the whole object (a Parquet struct or a JSON cell).

CSV cells are text
    A CSV has no types, so a cell is passed to the metric as the text written,
    with two exceptions: an empty cell is ``None``, and a cell in an input,
    expected or ``output.<field>`` column that starts with ``{`` or ``[`` and
    parses as JSON becomes that object or list. The whole ``output`` column is
    always passed exactly as written, because an artifact's output is often
    JSON *text* that the metric is meant to parse (as it would in Skynet).
    Parquet keeps its own types. In any table, a row whose expected cells are
    all empty has ``expected=None``.

Ids
    A case without an id gets its 1-based line (JSON Lines) or row (tables; row 1
    is the first row after the header) number. With candidates, cases line up by
    id, so a missing id is instead the case's 1-based position among that
    candidate's cases. Each (candidate, id) pair is unique, and every candidate
    must have exactly the same ids with the same input and expected.

Candidate files
    Several candidates come from a ``candidate`` column, or from one file per
    candidate (:class:`CandidateFile`, :func:`join_candidates`): such a file has an
    id column and the candidate's output and observations, and is joined to the
    main file's cases by id; its ids must be exactly the main file's.

Mixed types
    A typed file (JSON Lines, Parquet) passes each value as written, so an input
    or expected field may mix kinds. A column whose role needs one kind says
    which row breaks it: a whole-object column needs objects, an id, split or
    candidate text or whole numbers, and a measurement numbers (a measurement
    column mixing numbers and text is refused as a whole).

Uploads
    :func:`save_upload` keeps an uploaded file on disk under its content hash, so
    a choice of it survives a restart.

Splits (contract Part B rule 11)
    See :func:`split_plan` and :func:`assign_splits`. A ``split`` column overrides
    the plan; it must then give every case a split, the same for every candidate.

Sampling (contract Part B rule 7)
    See :func:`sample_for_check`.

Every problem with a file is a :class:`DatasetError` whose message names the file,
the line or column, what is wrong and how to fix it; nothing here raises a bare
traceback for bad data.
"""

from __future__ import annotations

import codecs
import csv
import datetime
import decimal
import hashlib
import io
import json
import math
import numbers
import re
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO

import orjson

from skynet_core.cases import Case, Observation

if TYPE_CHECKING:
    import pandas as pd

MAX_FILE_BYTES = 250_000_000
"""Largest case file we read. Whole files are held in memory (and JSON cells parsed
in Python), so far larger files would stall the server for every user."""

MAX_COLUMNS = 1000
"""Most columns a table may have; wider files are nearly always a wrong export."""

EXAMPLE_PATH = Path(__file__).parent / "examples" / "tickets.jsonl"

SPLITS = ("train", "val", "test")

_JSONL_SUFFIXES = (".jsonl", ".json")
_SUFFIXES = (*_JSONL_SUFFIXES, ".csv", ".parquet")
_MEASUREMENTS = {"latency_ms": ("the latency in milliseconds", "850"), "cost_usd": ("the cost in US dollars", "0.002")}
_NUMBER_TEXT = re.compile(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")
_UNSAFE_NAME = re.compile(r"[^\w.\- ()+]")
_CHUNK_BYTES = 1 << 20


class DatasetError(ValueError):
    """A case file (or a table built from one) that cannot become a dataset.

    The message is for people: the file, the line (JSON Lines) or column and row
    (tables) where it applies, what is wrong and what to do, in one or two
    sentences. ``line`` and ``column`` repeat the location for a page that wants
    to highlight it.
    """

    def __init__(self, message: str, *, line: int | None = None, column: str | None = None) -> None:
        super().__init__(message)
        self.line = line
        self.column = column


class Role(StrEnum):
    """What a column means. ``IGNORED`` columns are shown but not passed to the metric."""

    INPUT = "input"
    EXPECTED = "expected"
    OUTPUT = "output"
    OBSERVATION = "observation"
    CANDIDATE = "candidate"
    SPLIT = "split"
    ID = "id"
    IGNORED = "ignored"


@dataclass
class Dataset:
    """The cases of one file.

    ``cases`` holds every candidate's cases in file order. ``candidates`` lists the
    candidate names in order of first appearance, ``[""]`` when the file has no
    candidate column. All candidates have the same case ids, and a case id has the
    same split (and input and expected) for every candidate. ``source`` is the
    file's path, or ``"example"`` for the bundled example. ``splits_from_column``
    is true when a ``split`` column gave the splits instead of the planner.
    """

    name: str
    cases: list[Case]
    candidates: list[str]
    source: str
    splits_from_column: bool = False

    def for_candidate(self, candidate: str) -> list[Case]:
        """The cases of one candidate, in file order. Raises ``ValueError`` for an unknown name."""
        if candidate not in self.candidates:
            raise ValueError(f"The dataset has no candidate {candidate!r}; its candidates are {self.candidates}.")
        return [case for case in self.cases if case.candidate == candidate]

    def split_counts(self) -> dict[str, int]:
        """How many distinct case ids each split has (one candidate's worth, since all line up).

        With planned splits the keys are always ``train``, ``val``, ``test`` (zeros
        included) and the counts equal ``split_plan(number of ids)``. With a split
        column the keys are the names present: ``train``, ``val``, ``test`` first,
        then the others in order of first appearance.
        """
        per_id = {case.id: case.split for case in self.cases}
        counts = dict.fromkeys(SPLITS, 0)
        for split in per_id.values():
            counts[split] = counts.get(split, 0) + 1
        if self.splits_from_column:
            counts = {split: count for split, count in counts.items() if count}
        return counts

    def by_split(self, split: str | None) -> list[Case]:
        """The cases (every candidate's) in ``split``, in file order; all cases when ``split`` is ``None``."""
        if split is None:
            return list(self.cases)
        return [case for case in self.cases if case.split == split]


@dataclass
class _Row:
    """One parsed line or row, before ids and splits are settled."""

    number: int
    where: str
    input: dict[str, Any]
    output: Any
    expected: dict[str, Any] | None
    observation: Observation
    id: str | None
    split: str | None
    candidate: str | None


def split_plan(n: int) -> dict[str, int]:
    """How many of ``n`` cases go to each split (contract Part B rule 11).

    - fewer than 30: all train;
    - 30 to 79: val = round(n / 5) (20%), the rest train;
    - 80 to 299: val = test = round(n / 5), the rest train (60/20/20);
    - 300 or more: val = min(round(n / 5), 200), test = min(round(n / 5), 500), the rest train.

    ``n / 5`` is never exactly halfway between two integers, so the rounding has no ties.
    """
    if n < 0:
        raise ValueError(f"A dataset cannot have {n} cases.")
    fifth = round(n / 5)
    if n < 30:
        val, test = 0, 0
    elif n < 80:
        val, test = fifth, 0
    elif n < 300:
        val, test = fifth, fifth
    else:
        val, test = min(fifth, 200), min(fifth, 500)
    return {"train": n - val - test, "val": val, "test": test}


def _stable_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def assign_splits(ids: list[str]) -> dict[str, str]:
    """Map each distinct id to ``train``, ``val`` or ``test`` following :func:`split_plan`.

    The ids are ordered by the SHA-256 of their text (not by file order, not at
    random), then the first ``train`` of them go to train, the next ``val`` to val,
    the rest to test. So the same ids always get the same splits, whatever their
    order in the file; duplicates in ``ids`` count once.
    """
    distinct = list(dict.fromkeys(ids))
    plan = split_plan(len(distinct))
    ordered = sorted(distinct, key=lambda case_id: (_stable_key(case_id), case_id))
    names = ["train"] * plan["train"] + ["val"] * plan["val"] + ["test"] * plan["test"]
    return dict(zip(ordered, names, strict=True))


def sample_for_check(cases: list[Case], k: int = 3) -> list[Case]:
    """The cases the contract check runs on (contract Part B rule 7).

    Takes the ``k`` cases first in SHA-256 order of ``candidate`` and ``id``: the same
    cases for the same dataset every time, all of them when there are fewer than
    ``k``. When the cases include both some with ``expected`` and some without, and
    ``k`` is at least 2, the sample has at least one of each: the last pick is
    swapped for the first case (in the same order) of the missing kind.
    """
    if k <= 0:
        return []
    ordered = sorted(cases, key=lambda case: (_stable_key(f"{case.candidate}\n{case.id}"), case.candidate, case.id))
    picked = ordered[:k]
    if len(picked) >= 2:
        for labelled in (True, False):
            if not any(_labelled(case) == labelled for case in picked):
                missing = next((case for case in ordered if _labelled(case) == labelled), None)
                if missing is not None:
                    picked[-1] = missing
    return picked


def _labelled(case: Case) -> bool:
    return case.expected is not None


def infer_roles(columns: list[str]) -> dict[str, tuple[Role, str]]:
    """Guess each column's role and field name from its name.

    ``input.X`` / ``expected.X`` / ``output.X`` give that role with field ``X`` (the
    text after the first dot, so ``input.a.b`` is field ``a.b``). ``input``,
    ``expected``, ``output`` and ``observation`` alone give the role with field
    ``""`` (the whole value). ``observation.latency_ms`` and ``observation.cost_usd``
    are measurements; other ``observation.*`` columns are ignored, as are extra
    keys of a JSON Lines observation. ``id``, ``split`` and ``candidate`` go by
    name. Everything else is ignored. Prefixes and names match case-insensitively
    and around spaces; field names keep their case.
    """
    roles: dict[str, tuple[Role, str]] = {}
    for column in columns:
        name = str(column).strip()
        prefix, dot, rest = name.partition(".")
        prefix = prefix.strip().lower()
        field = rest.strip()
        role = Role.IGNORED
        if not dot and prefix in ("id", "split", "candidate", "input", "expected", "output", "observation"):
            role = Role(prefix)
        elif dot and field and prefix in ("input", "expected", "output"):
            role = Role(prefix)
        elif dot and prefix == "observation" and field.lower() in _MEASUREMENTS:
            role, field = Role.OBSERVATION, field.lower()
        roles[column] = (role, field if role in (Role.INPUT, Role.EXPECTED, Role.OUTPUT, Role.OBSERVATION) else "")
    return roles


def roles_to_json(roles: dict[str, tuple[Role, str]]) -> dict[str, list[str]]:
    """Roles as JSON, ``{column: [role, field]}``: what the store and ``score --roles`` hold."""
    return {str(column): [Role(role).value, str(field)] for column, (role, field) in roles.items()}


def roles_from_json(value: Any, source: str = "The roles") -> dict[str, tuple[Role, str]]:
    """Roles from JSON: ``{column: [role, field]}``, ``{column: [role]}`` or ``{column: role}``.

    ``source`` starts the messages (e.g. the roles file's name). Raises
    :class:`DatasetError` naming the column and the role names that exist.
    """
    example = '{"question": ["input", "question"], "gold": ["expected", "label"], "answer": ["output", ""]}'
    if not isinstance(value, dict):
        raise DatasetError(f"{source} must map each column to [role, field], e.g. {example}; not {_describe(value)}.")
    roles: dict[str, tuple[Role, str]] = {}
    for column, entry in value.items():
        parts = [entry] if isinstance(entry, str) else entry
        if not isinstance(parts, list) or not 1 <= len(parts) <= 2 or not all(isinstance(p, str) for p in parts):
            raise DatasetError(
                f"{source}: the role of column {column!r} is {_describe(entry)}. Write it as [role, field], e.g. "
                '["input", "question"] or ["output", ""].',
                column=str(column),
            )
        try:
            role = Role(parts[0].strip().lower())
        except ValueError:
            raise DatasetError(
                f"{source}: column {column!r} has the role {parts[0]!r}, which does not exist. Use one of "
                f"{', '.join(role.value for role in Role)}.",
                column=str(column),
            ) from None
        roles[str(column)] = (role, parts[1].strip() if len(parts) == 2 else "")
    return roles


def _file_label(source: str | Path) -> str:
    return Path(str(source)).name or str(source)


def _suffix(path: Path) -> str:
    suffix = path.suffix.lower()
    if suffix not in _SUFFIXES:
        shown = f"{suffix} files are" if suffix else "Files without an extension are"
        raise DatasetError(
            f"{path.name}: {shown} not supported. Save the cases as JSON Lines (.jsonl), CSV (.csv) or Parquet "
            "(.parquet) and load that file."
        )
    return suffix


def _check_file(path: Path) -> int:
    """The file's size, after checking it exists, is a file and is under the limit."""
    if not path.exists():
        raise DatasetError(f"{path.name} was not found at {path}. Check the path, or upload the file again.")
    if not path.is_file():
        raise DatasetError(f"{path.name} is a folder, not a file. Choose the case file inside it.")
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
            f"{name} is {size / 1e6:,.1f} MB, over the {MAX_FILE_BYTES / 1e6:,.0f} MB limit. "
            "Keep a sample of the cases (or split the file) so each file is under the limit."
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
        f"{path.name} could not be read ({exc.strerror or exc}). Check that the file exists and that you may read it."
    )


def _empty(path: Path) -> DatasetError:
    return DatasetError(f"{path.name} is empty. Add at least one case and load it again.")


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
            f"{path.name} is not UTF-8 text: byte 0x{data[offset]:02X} at byte offset {offset} (line {line}) is not "
            'valid UTF-8. Save it as UTF-8 (in Excel: "CSV UTF-8") and load it again.',
            line=line,
        ) from exc


def _describe(value: Any) -> str:
    """How a value's type reads in a message."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, numbers.Number):
        return f"the number {value}"
    if isinstance(value, str):
        shown = value if len(value) <= 40 else value[:37] + "..."
        return f"the text {shown!r}"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return f"a {type(value).__name__}"


def _reject_constant(name: str) -> None:
    raise ValueError(f"{name} is not allowed in JSON; write null or a number")


def _parse_json(text: str) -> Any:
    """Parse with orjson for speed; on failure, the standard parser gives the message people read
    (and accepts what orjson refuses but JSON allows, such as integers beyond 64 bits)."""
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        return json.loads(text, parse_constant=_reject_constant)


def _jsonl_objects(path: Path) -> list[tuple[int, dict[str, Any]]]:
    """Each non-blank line's object with its 1-based line number."""
    text = _read_text(path)
    objects: list[tuple[int, dict[str, Any]]] = []
    # Split on "\n" only: str.splitlines would also split on U+2028, which JSON allows inside strings.
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            value = _parse_json(line)
        except ValueError as exc:
            detail = f"{exc.msg} at column {exc.colno}" if isinstance(exc, json.JSONDecodeError) else str(exc)
            fix = (
                "If the file is one JSON array of cases, write each object on its own line instead (JSON Lines)."
                if line.strip() == "["
                else "Each line must hold one complete JSON object; check for a trailing comma, a missing quote, "
                "or an object spread over several lines."
            )
            raise DatasetError(f"{path.name}, line {number} is not valid JSON ({detail}). {fix}", line=number) from exc
        if not isinstance(value, dict):
            fix = (
                "If the file is one JSON array of cases, write each object on its own line instead (JSON Lines)."
                if isinstance(value, list)
                else 'Each line must be one object like {"input": {...}, "output": ...}.'
            )
            raise DatasetError(
                f"{path.name}, line {number} is {_describe(value)}, not a JSON object. {fix}", line=number
            )
        objects.append((number, value))
    if not objects:
        raise DatasetError(f"{path.name} has no cases, only blank lines. Add one JSON object per line.")
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
            f"{where}: {what} is {_describe(value)}, not a number. Write {meaning} as a number (e.g. {example}), "
            "or leave it empty (null) when it was not measured."
        )
    if not math.isfinite(number) or number < 0:
        raise DatasetError(
            f"{where}: {what} is {number}. Write {meaning} as a finite number of 0 or more, or leave it empty "
            "(null) when it was not measured."
        )
    return number


def _observation(value: Any, where: str, *, text_ok: bool) -> Observation:
    if value is None:
        return Observation()
    if not isinstance(value, dict):
        raise DatasetError(
            f'{where}: observation is {_describe(value)}, not an object. Write it as {{"latency_ms": 850, '
            '"cost_usd": 0.002}, using null for a value that was not measured.'
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
    raise DatasetError(f"{where}: {what} is {_describe(value)}. Write the {what} as text or a whole number.")


def _jsonl_row(file: str, number: int, obj: dict[str, Any]) -> _Row:
    where = f"{file}, line {number}"
    if "input" not in obj:
        raise DatasetError(
            f'{where} has no "input". Give every line an input object, e.g. {{"input": {{"question": "..."}}, '
            '"output": "..."}.',
        )
    if not isinstance(obj["input"], dict):
        raise DatasetError(
            f'{where}: "input" is {_describe(obj["input"])}, not an object. Write the input fields as an object, '
            'e.g. "input": {"question": "..."}.',
        )
    if "output" not in obj:
        raise DatasetError(
            f'{where} has no "output". Add the output to score to every line (any JSON value; null if there was none).',
        )
    expected = obj.get("expected")
    if expected is not None and not isinstance(expected, dict):
        raise DatasetError(
            f'{where}: "expected" is {_describe(expected)}, not an object. Key it by output field, e.g. '
            '"expected": {"label": "billing"}, or write null when the case has no expected value.',
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
    )


def _flatten_jsonl(file: str, objects: list[tuple[int, dict[str, Any]]]) -> pd.DataFrame:
    """One row per object: ``input``, ``expected`` and ``observation`` objects spread into
    prefixed columns (null ones add nothing), ``output`` kept whole (its shape may differ from line to line,
    and the metric must see exactly what the artifact returned)."""
    import pandas as pd  # tables only: the CLI's JSONL path starts faster without pandas

    records = []
    columns: dict[str, None] = {}
    for _, obj in objects:
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
    frame.index = pd.Index([number for number, _ in objects], name="line")
    return frame


def _check_width(file: str, count: int) -> None:
    if count > MAX_COLUMNS:
        raise DatasetError(
            f"{file} has {count:,} columns; at most {MAX_COLUMNS:,} are supported. Keep only the columns the metric "
            "needs (input.*, expected.*, output, observation.*, id, split, candidate) and load it again."
        )


def _read_csv(path: Path) -> pd.DataFrame:
    import pandas as pd

    text = _read_text(path)
    try:
        header = next(csv.reader(io.StringIO(text)))
    except (csv.Error, StopIteration) as exc:
        raise DatasetError(
            f"{path.name} has no readable header row ({exc}). Put the column names on the first line."
        ) from exc
    _check_width(path.name, len(header))
    seen: dict[str, int] = {}
    for position, column in enumerate(header, start=1):
        if column in seen:
            raise DatasetError(
                f"{path.name}: the column name {column!r} appears twice (columns {seen[column]} and {position}). "
                "Rename one so every column name is unique.",
                column=column,
            )
        seen[column] = position
    try:
        # Read every cell as text: CSV has no types, and pandas' guessing would turn "007" into 7.
        frame = pd.read_csv(io.StringIO(text), dtype=str, keep_default_na=False, na_filter=False)
    except (pd.errors.ParserError, csv.Error) as exc:
        raise DatasetError(
            f"{path.name} could not be read as CSV ({exc}). Check that every row has as many fields as the header "
            "and that every quote is closed."
        ) from exc
    frame.index = pd.RangeIndex(1, len(frame) + 1, name="row")
    return frame


def _read_parquet(path: Path) -> pd.DataFrame:
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    _check_file(path)
    try:
        _check_width(path.name, len(pq.read_schema(path).names))
        frame = pd.read_parquet(path)
    except (OSError, ValueError, pa.ArrowException) as exc:
        if isinstance(exc, DatasetError):
            raise
        raise DatasetError(
            f"{path.name} could not be read as Parquet ({exc}). Check that it is a Parquet file, or save the cases "
            "as CSV or JSON Lines."
        ) from exc
    frame.index = pd.RangeIndex(1, len(frame) + 1, name="row")
    return frame


def read_table(path: str | Path) -> pd.DataFrame:
    """The file as a table, for a page to preview and assign roles to.

    JSON Lines objects are flattened with the role prefixes (``input.question``,
    ``expected.label``, ``observation.latency_ms``; ``output`` stays one column).
    CSV cells are the text written (empty cells are ``""``). The index is the
    1-based line (JSON Lines, named ``line``) or row (tables, named ``row``) number
    that messages refer to. Raises :class:`DatasetError` for an unreadable file.
    """
    path = Path(path)
    suffix = _suffix(path)
    if suffix in _JSONL_SUFFIXES:
        frame = _flatten_jsonl(path.name, _jsonl_objects(path))
    elif suffix == ".csv":
        frame = _read_csv(path)
    else:
        frame = _read_parquet(path)
    _check_width(path.name, len(frame.columns))
    if frame.empty:
        raise DatasetError(f"{path.name} has column names but no rows. Add one row per case and load it again.")
    return frame


def _plain(value: Any) -> Any:
    """A cell as plain Python: numpy and pandas values converted, missing values ``None``."""
    import numpy as np
    import pandas as pd

    if value is None or value is pd.NA or value is pd.NaT:
        return None
    if isinstance(value, np.ndarray):
        return [_plain(item) for item in value.tolist()]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if isinstance(value, (datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    return value


def _json_cell(text: str) -> Any:
    stripped = text.strip()
    if stripped[:1] in ("{", "["):
        try:
            return _parse_json(stripped)
        except ValueError:
            return text
    return text


def _csv_cell(text: Any, role: Role, field: str) -> Any:
    if not isinstance(text, str):
        return text
    if role is Role.OUTPUT and not field:
        return text
    if text == "":
        return None
    if role in (Role.INPUT, Role.EXPECTED, Role.OUTPUT, Role.OBSERVATION):
        return _json_cell(text)
    return text


def _check_roles(
    file: str, columns: list[str], roles: dict[str, tuple[Role, str]], *, joined_to: str | None = None
) -> None:
    """Refuse role assignments that cannot make cases: no input, no output, clashes.

    ``joined_to`` names the main file when ``file`` is a candidate file: it then needs
    an id column instead of an input column, and may not have a candidate column.
    """
    by_role: dict[Role, list[str]] = {}
    targets: dict[tuple[Role, str], str] = {}
    for column in columns:
        role, field = roles[column]
        by_role.setdefault(role, []).append(column)
        if role is Role.OBSERVATION and field not in ("", *_MEASUREMENTS):
            raise DatasetError(
                f"{file}: column {column!r} has the observation role with field {field!r}. Use latency_ms or "
                "cost_usd, or ignore the column.",
                column=column,
            )
        if role in (Role.INPUT, Role.EXPECTED, Role.OUTPUT, Role.OBSERVATION) and field:
            if (role, field) in targets:
                raise DatasetError(
                    f"{file}: columns {targets[role, field]!r} and {column!r} are both {role.value} field {field!r}. "
                    "Give one another field name or ignore it.",
                    column=column,
                )
            targets[role, field] = column
    for role in (Role.ID, Role.SPLIT, Role.CANDIDATE):
        if len(by_role.get(role, [])) > 1:
            first, second = by_role[role][:2]
            raise DatasetError(
                f"{file}: columns {first!r} and {second!r} both have the {role.value} role. Keep one and ignore "
                "the other.",
                column=second,
            )
    if joined_to is not None and by_role.get(Role.CANDIDATE):
        raise DatasetError(
            f"{file}: column {by_role[Role.CANDIDATE][0]!r} has the candidate role, but a candidate file holds the "
            "outputs of one candidate, named when the file is added. Set the column's role to ignored, or use this "
            "file as the main file.",
            column=by_role[Role.CANDIDATE][0],
        )
    if joined_to is not None and not by_role.get(Role.ID):
        raise DatasetError(
            f"{file} has no id column. A candidate file is joined to the cases of {joined_to} by id: add an id "
            f"column with the same ids as {joined_to}, or give a column the id role."
        )
    if joined_to is None and not by_role.get(Role.INPUT):
        raise DatasetError(
            f"{file} has no input column. Name input columns with the input. prefix (e.g. input.question), or give "
            "a column the input role."
        )
    outputs = by_role.get(Role.OUTPUT, [])
    if not outputs:
        raise DatasetError(
            f"{file} has no output column. Add a column named output (or output.<field> for an object output), or "
            "give a column the output role."
        )
    whole = [column for column in outputs if not roles[column][1]]
    if whole and len(outputs) > 1:
        other = next(column for column in outputs if column != whole[0])
        raise DatasetError(
            f"{file}: column {whole[0]!r} holds the whole output but {other!r} is an output field too. Keep either "
            "one output column or only output.<field> columns.",
            column=other,
        )


def _object_part(target: dict[str, Any], value: Any, role: Role, field: str, where: str) -> None:
    """Put one cell into the input, expected or output object being built."""
    if field:
        target[field] = value
        return
    if value is None:
        return
    if not isinstance(value, dict):
        raise DatasetError(
            f"{where}: the column holds the whole {role.value} but this cell is {_describe(value)}, not an object. "
            f'Write a JSON object such as {{"question": "..."}}, or give the column a field name (name it '
            f"{role.value}.<field>)."
        )
    target.update(value)


def cases_from_frame(
    df: pd.DataFrame,
    roles: dict[str, tuple[Role, str]] | None,
    source: str,
    *,
    name: str | None = None,
) -> Dataset:
    """Build a dataset from a table and its column roles.

    ``roles`` maps a column name to ``(Role, field name)``; columns it leaves out
    get :func:`infer_roles`' guess, so ``None`` means infer every role. ``source``
    names the file in messages (its extension also says whether cells are CSV
    text). Rows are numbered by the index when it is the ``line``/``row`` index
    :func:`read_table` makes, else 1, 2, 3... Raises :class:`DatasetError`.
    """
    file = _file_label(source)
    columns = list(df.columns)
    _check_width(file, len(columns))
    if df.empty:
        raise DatasetError(f"{file} has column names but no rows. Add one row per case and load it again.")
    final = _final_roles(file, columns, roles)
    _check_roles(file, columns, final)
    rows, unit = _frame_rows(df, final, source)
    return _dataset(rows, name=name or Path(str(source)).stem or file, source=str(source), file=file, unit=unit)


def _final_roles(
    file: str, columns: list[str], roles: dict[str, tuple[Role, str]] | None
) -> dict[str, tuple[Role, str]]:
    """Every column's role: the given ones, :func:`infer_roles`' guess for the rest."""
    given = dict(roles or {})
    unknown = [column for column in given if column not in columns]
    if unknown:
        raise DatasetError(
            f"{file} has no column {unknown[0]!r}, but a role was given for it. Choose roles only for the columns "
            f"shown: {', '.join(map(str, columns[:10]))}{', ...' if len(columns) > 10 else ''}.",
            column=str(unknown[0]),
        )
    final = infer_roles(columns)
    for column, (role, field) in given.items():
        final[column] = (Role(role), str(field).strip())
    return final


def _frame_rows(df: pd.DataFrame, final: dict[str, tuple[Role, str]], source: str) -> tuple[list[_Row], str]:
    """The table's rows with their roles applied, and the unit (``line`` or ``row``) messages count in."""
    file = _file_label(source)
    unit = "line" if df.index.name == "line" else "row"
    if df.index.name in ("line", "row"):
        row_numbers = [int(label) for label in df.index]
    else:
        row_numbers = list(range(1, len(df) + 1))
    is_csv = Path(str(source)).suffix.lower() == ".csv"
    used = [column for column in df.columns if final[column][0] is not Role.IGNORED]
    cells: list[list[Any]] = []
    for column in used:
        role, field = final[column]
        # read_table's CSV cells are already plain text: converting only the others saves a call per cell.
        values = [value if type(value) is str else _plain(value) for value in df[column].tolist()]
        if is_csv:
            values = [_csv_cell(value, role, field) for value in values]
        elif role is Role.OBSERVATION and field:
            _check_measurement_kinds(file, unit, str(column), zip(row_numbers, values, strict=True))
        cells.append(values)

    plans = [_column_plan(file, unit, column, *final[column]) for column in used]
    rows = []
    for number, values in zip(row_numbers, zip(*cells, strict=True) if cells else [()] * len(row_numbers),
                              strict=True):
        try:
            rows.append(_frame_row(file, unit, number, plans, values))
        except DatasetError as exc:
            exc.line = number
            raise
    return rows, unit


def _check_measurement_kinds(file: str, unit: str, column: str, cells: Iterable[tuple[int, Any]]) -> None:
    """Refuse a measurement column of a typed file (JSON Lines, Parquet) that mixes numbers and text.

    A table cell may hold a number written as text, but a typed column holding both
    is a broken export: say so for the column, not for one cell. (CSV cells are all text.)
    """
    first: dict[str, tuple[int, Any]] = {}
    for number, value in cells:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            kind = "number"
        elif isinstance(value, str) and value.strip():
            kind = "text"
        else:
            continue
        first.setdefault(kind, (number, value))
        if len(first) == 2:
            (one, one_value), (two, two_value) = sorted(first.values(), key=lambda item: item[0])
            raise DatasetError(
                f"{file}: the measurement column {column!r} mixes numbers and text ({unit} {one} has "
                f"{_describe(one_value)}, {unit} {two} has {_describe(two_value)}). Write every value as a number, "
                "leaving it empty (null) when it was not measured.",
                line=two,
                column=column,
            )


_NAME, _MEASUREMENT, _OBSERVATION, _WHOLE_OUTPUT, _PART = range(5)


def _column_plan(file: str, unit: str, column: Any, role: Role, field: str) -> tuple[Any, ...]:
    """What :func:`_frame_row` does with a column's cells, worked out once per column."""
    if role in (Role.ID, Role.SPLIT, Role.CANDIDATE):
        kind = _NAME
    elif role is Role.OBSERVATION:
        kind = _MEASUREMENT if field else _OBSERVATION
    elif role is Role.OUTPUT and not field:
        kind = _WHOLE_OUTPUT
    else:
        kind = _PART
    return column, role, field, kind, role.value, f"{file}, column {str(column)!r}, {unit} "


def _frame_row(file: str, unit: str, number: int, plans: list[tuple[Any, ...]], values: tuple[Any, ...]) -> _Row:
    """One table row from its cells, one per :func:`_column_plan`."""
    objects: dict[Role, dict[str, Any]] = {Role.INPUT: {}, Role.EXPECTED: {}, Role.OUTPUT: {}}
    measured: dict[str, float | None] = {}
    names: dict[Role, str | None] = {Role.ID: None, Role.SPLIT: None, Role.CANDIDATE: None}
    output: Any = None
    has_expected = False
    for (column, role, field, kind, what, prefix), value in zip(plans, values, strict=True):
        where = prefix + str(number)
        try:
            if kind == _NAME:
                names[role] = _name_value(value, what, where)
            elif kind == _MEASUREMENT:
                measured[field] = _measurement(value, f"observation.{field}", where, text_ok=True)
            elif kind == _OBSERVATION:
                measured.update(
                    (key, item)
                    for key, item in _observation(value, where, text_ok=True).to_json().items()
                    if item is not None
                )
            elif kind == _WHOLE_OUTPUT:
                output = value
            else:
                _object_part(objects[role], value, role, field, where)
                has_expected = has_expected or (role is Role.EXPECTED and value is not None)
        except DatasetError as exc:
            exc.column = str(column)
            raise
    return _Row(
        number=number,
        where=f"{file}, {unit} {number}",
        input=objects[Role.INPUT],
        output=objects[Role.OUTPUT] or output,
        expected=objects[Role.EXPECTED] if has_expected else None,
        observation=Observation(latency_ms=measured.get("latency_ms"), cost_usd=measured.get("cost_usd")),
        id=names[Role.ID],
        split=names[Role.SPLIT],
        candidate=names[Role.CANDIDATE],
    )


def _dataset(rows: list[_Row], *, name: str, source: str, file: str, unit: str) -> Dataset:
    """Settle ids, candidates and splits, checking that candidates line up."""
    with_candidate = [row for row in rows if row.candidate is not None]
    if with_candidate and len(with_candidate) < len(rows):
        row = next(row for row in rows if row.candidate is None)
        raise DatasetError(
            f"{row.where} has no candidate, but other {unit}s do. Give every {unit} a candidate, or none.",
            line=row.number,
        )
    positions: dict[str, int] = {}
    first_seen: dict[tuple[str, str], _Row] = {}
    ids: list[str] = []
    for row in rows:
        candidate = row.candidate or ""
        positions[candidate] = positions.get(candidate, 0) + 1
        case_id = row.id or str(positions[candidate] if with_candidate else row.number)
        earlier = first_seen.get((candidate, case_id))
        if earlier is not None:
            whose = f" for candidate {candidate!r}" if candidate else ""
            raise DatasetError(
                f"{file}: id {case_id!r} appears twice{whose} ({unit}s {earlier.number} and {row.number}). Give every "
                "case its own id.",
                line=row.number,
            )
        first_seen[candidate, case_id] = row
        ids.append(case_id)

    candidates = list(dict.fromkeys(row.candidate or "" for row in rows))
    reference = candidates[0]
    reference_rows = {case_id: row for (candidate, case_id), row in first_seen.items() if candidate == reference}
    for candidate in candidates[1:]:
        own = {case_id: row for (name_, case_id), row in first_seen.items() if name_ == candidate}
        missing = next((case_id for case_id in reference_rows if case_id not in own), None)
        extra = next((case_id for case_id in own if case_id not in reference_rows), None)
        if missing is not None or extra is not None:
            lacking, having, case_id = (
                (candidate, reference, missing) if missing is not None else (reference, candidate, extra)
            )
            found = (reference_rows if missing is not None else own)[case_id]
            raise DatasetError(
                f"{file}: candidate {lacking!r} has no case with id {case_id!r}, which candidate {having!r} has "
                f"({unit} {found.number}). Every candidate needs the same case ids: add the missing case, or give "
                "the cases an id column so they line up by id rather than by order.",
                line=found.number,
            )
        for case_id, row in own.items():
            ref = reference_rows[case_id]
            for part in ("input", "expected"):
                if getattr(row, part) != getattr(ref, part):
                    raise DatasetError(
                        f"{file}: case {case_id!r} has a different {part} for candidate {candidate!r} ({unit} "
                        f"{row.number}) than for {reference!r} ({unit} {ref.number}). The candidates must answer the "
                        "same cases: check that ids match the right rows.",
                        line=row.number,
                    )

    from_column = any(row.split is not None for row in rows)
    if from_column:
        without = next((row for row in rows if row.split is None), None)
        if without is not None:
            raise DatasetError(
                f"{without.where} has no split, but other {unit}s do. Give every {unit} a split (train, val or "
                "test), or remove all splits to let the planner assign them.",
                line=without.number,
            )
        for row, case_id in zip(rows, ids, strict=True):
            ref = reference_rows[case_id]
            if row.split != ref.split:
                raise DatasetError(
                    f"{file}: case {case_id!r} is in split {row.split!r} at {unit} {row.number} but "
                    f"{ref.split!r} at {unit} {ref.number}. Give each case id one split for all candidates.",
                    line=row.number,
                )
        splits = {case_id: row.split or "" for row, case_id in zip(rows, ids, strict=True)}
    else:
        splits = assign_splits(list(reference_rows))

    cases = [
        Case(
            id=case_id,
            input=row.input,
            output=row.output,
            expected=row.expected,
            split=splits[case_id],
            observation=row.observation,
            candidate=row.candidate or "",
        )
        for row, case_id in zip(rows, ids, strict=True)
    ]
    return Dataset(name=name, cases=cases, candidates=candidates, source=source, splits_from_column=from_column)


@dataclass(frozen=True)
class CandidateFile:
    """One more candidate's outputs, in a file of their own, joined to the main file's cases by id.

    The file needs an id column and an output column; its observations are this
    candidate's own. Input, expected and split columns may be left out (the main
    file's are used); when present they must agree with the main file for every id.
    Columns get roles like the main file's: the main file's roles for columns of the
    same name, then ``roles`` here, then :func:`infer_roles`' guess.
    """

    name: str
    path: str
    roles: dict[str, tuple[Role, str]] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "roles": roles_to_json(self.roles) if self.roles else None}

    @classmethod
    def from_json(cls, value: Any) -> CandidateFile:
        if not isinstance(value, dict) or not isinstance(value.get("path"), str):
            raise DatasetError(f'A candidate file is written as {{"name": ..., "path": ...}}, not {_describe(value)}.')
        roles = value.get("roles")
        return cls(
            name=str(value.get("name") or ""),
            path=value["path"],
            roles=roles_from_json(roles, f"the roles of {value['path']}") if roles else None,
        )


def join_candidates(
    base: Dataset,
    files: Sequence[CandidateFile],
    *,
    roles: dict[str, tuple[Role, str]] | None = None,
    main_candidate: str | None = None,
) -> Dataset:
    """``base`` with each file's candidate added, its cases lined up with ``base``'s by id.

    When ``base`` has no candidate column its cases become candidate
    ``main_candidate`` (default: its file name without the extension). Every
    file must have exactly the ids of ``base``'s first candidate, each once, and
    every candidate name must be new; the added cases take their input, expected
    and split from ``base``. ``roles`` are the main file's (see :class:`CandidateFile`).
    Raises :class:`DatasetError` naming the file, the row and the id.
    """
    if not files:
        return base
    main_file = _file_label(base.source)
    cases = list(base.cases)
    candidates = list(base.candidates)
    if candidates == [""]:
        main = (main_candidate or "").strip() or Path(base.source).stem or "main"
        cases = [replace(case, candidate=main) for case in cases]
        candidates = [main]
    reference = {case.id: case for case in cases if case.candidate == candidates[0]}
    for extra in files:
        name = extra.name.strip()
        file = _file_label(extra.path)
        if not name:
            raise DatasetError(f"{file}: name the candidate whose outputs this file holds.")
        if name in candidates:
            raise DatasetError(
                f"{file}: the candidate name {name!r} is already used. Give each candidate its own name."
            )
        cases.extend(_candidate_cases(extra, name, reference, roles, main_file))
        candidates.append(name)
    return Dataset(
        name=base.name,
        cases=cases,
        candidates=candidates,
        source=base.source,
        splits_from_column=base.splits_from_column,
    )


def _candidate_cases(
    extra: CandidateFile,
    name: str,
    reference: dict[str, Case],
    main_roles: dict[str, tuple[Role, str]] | None,
    main_file: str,
) -> list[Case]:
    file = _file_label(extra.path)
    frame = read_table(extra.path)
    columns = list(frame.columns)
    inherited = {column: role for column, role in (main_roles or {}).items() if column in columns}
    final = _final_roles(file, columns, {**inherited, **(extra.roles or {})})
    _check_roles(file, columns, final, joined_to=main_file)
    has = {role for role, _ in final.values()}
    rows, unit = _frame_rows(frame, final, extra.path)

    seen: dict[str, _Row] = {}
    for row in rows:
        if row.id is None:
            raise DatasetError(
                f"{row.where} has no id. Every row of a candidate file needs the id of the case it answers.",
                line=row.number,
            )
        if row.id in seen:
            raise DatasetError(
                f"{file}: id {row.id!r} appears twice ({unit}s {seen[row.id].number} and {row.number}). A candidate "
                "file has one row per case.",
                line=row.number,
            )
        if row.id not in reference:
            raise DatasetError(
                f"{row.where}: id {row.id!r} is not a case of {main_file}. Every candidate needs the same case ids: "
                f"remove the row, or check that this file's ids are the ones {main_file} uses.",
                line=row.number,
            )
        seen[row.id] = row
    missing = next((case_id for case_id in reference if case_id not in seen), None)
    if missing is not None:
        raise DatasetError(
            f"{file} has no row for case {missing!r} of {main_file} (candidate {name!r}: {len(seen)} of "
            f"{len(reference)} cases). Every candidate needs the same case ids: add the missing cases."
        )

    cases = []
    for row in rows:
        ref = reference[row.id or ""]
        for part, role in (("input", Role.INPUT), ("expected", Role.EXPECTED)):
            if role in has and getattr(row, part) != getattr(ref, part):
                raise DatasetError(
                    f"{row.where}: case {ref.id!r} has a different {part} than in {main_file}. The candidates must "
                    "answer the same cases: check that the ids match the right rows.",
                    line=row.number,
                )
        if Role.SPLIT in has and row.split != ref.split:
            raise DatasetError(
                f"{row.where}: case {ref.id!r} is in split {row.split!r} here but {ref.split!r} in {main_file}. Give "
                "each case one split, or drop the split column from the candidate file.",
                line=row.number,
            )
        cases.append(replace(ref, output=row.output, observation=row.observation, candidate=name))
    return cases


def load_dataset(
    path: str | Path,
    *,
    roles: dict[str, tuple[Role, str]] | None = None,
    name: str | None = None,
    candidate_files: Sequence[CandidateFile] = (),
    main_candidate: str | None = None,
) -> Dataset:
    """Load a ``.jsonl``/``.json`` (JSON Lines), ``.csv`` or ``.parquet`` case file.

    Without ``roles``, JSON Lines is read directly (values exactly as written);
    with ``roles``, or for a table, the file goes through :func:`read_table` and
    :func:`cases_from_frame`. ``name`` defaults to the file name without its
    extension. ``candidate_files`` add candidates from files of their own (see
    :func:`join_candidates`). Raises :class:`DatasetError` for any problem with a file.
    """
    path = Path(path)
    suffix = _suffix(path)
    if suffix in _JSONL_SUFFIXES and roles is None:
        rows = []
        for number, obj in _jsonl_objects(path):
            try:
                rows.append(_jsonl_row(path.name, number, obj))
            except DatasetError as exc:
                exc.line = number
                raise
        base = _dataset(rows, name=name or path.stem, source=str(path), file=path.name, unit="line")
    else:
        base = cases_from_frame(read_table(path), roles, str(path), name=name)
    return join_candidates(base, candidate_files, roles=roles, main_candidate=main_candidate)


def load_example() -> Dataset:
    """The bundled support-ticket dataset: 72 cases answered by 3 candidates."""
    dataset = load_dataset(EXAMPLE_PATH, name="Support tickets (example)")
    dataset.source = "example"
    return dataset
