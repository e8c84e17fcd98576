"""A JSON Lines case file kept compact, for scoring a million cases in bounded memory.

:func:`read_case_lines` checks every line once, as :func:`load_dataset` does,
but keeps only the file's bytes and a few numbers a case; :class:`CaseLines`
builds each :class:`Case` when it is asked for (the runner asks a batch at a
time). A Case of a small line costs about 1 KB of Python objects, its line
about 100 bytes.

It takes the plain files only: one candidate, no column roles. Anything else,
and any problem with the file, is left to :func:`load_dataset` (the caller
falls back to it), so there is one reader of record and one wording of
every error.
"""

from __future__ import annotations

import codecs
import io
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any, overload

import orjson

from skynet_core.cases import Case, Observation

from .cell_values import _name_value, _observation
from .disk import _check_file
from .jsonl import _jsonl_row
from .model import DatasetError
from .settle import _at
from .splits import assign_splits
from .twins import nfc_twins, warning_of

MAX_RAW_BRACKETS = 200  # orjson encodes at most 255 levels; a line with more brackets than this is encoded anew
_UNMEASURED = Observation()  # frozen, so one serves every case without an observation


class CaseLines(Sequence[Case]):
    """The cases of one JSON Lines file, in file order, built from their lines when read.

    Holds the file's bytes, and for each case its line's bounds, line number
    and split (an index into ``split_names``).
    """

    def __init__(
        self,
        path: Path,
        data: bytes,
        bounds: array[int],
        numbers: array[int],
        splits: bytearray,
        split_names: list[str],
        ids: list[str] | None = None,
        plain: bytearray | None = None,
        warnings: list[str] | None = None,
    ) -> None:
        self.path, self.data = path, data
        self.bounds, self.numbers, self.splits, self.split_names = bounds, numbers, splits, split_names
        # Each case's id, and whether its line is of the usual shape (see _usual), for line_batch.
        self.ids, self.plain = ids, plain
        self.warnings = warnings or []  # as Dataset.warnings
        self._view = memoryview(data)

    def __len__(self) -> int:
        return len(self.numbers)

    @overload
    def __getitem__(self, index: int) -> Case: ...

    @overload
    def __getitem__(self, index: slice) -> list[Case]: ...

    def __getitem__(self, index: int | slice) -> Case | list[Case]:
        if isinstance(index, slice):
            return [self._case(position) for position in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self._case(index)

    def __iter__(self) -> Iterator[Case]:
        for position in range(len(self)):
            yield self._case(position)

    def _case(self, position: int) -> Case:
        number = self.numbers[position]
        obj: dict[str, Any] = orjson.loads(self._view[self.bounds[2 * position] : self.bounds[2 * position + 1]])
        # The line passed every check when it was read; only the normalising is repeated here, and the
        # message-ready helpers run only for values that need them (a million cases notice every step).
        raw_id = obj.get("id")
        case_id = raw_id.strip() if type(raw_id) is str else None
        if not case_id:
            case_id = _name_value(raw_id, "id", "") or str(number)
        observation = obj.get("observation")
        return Case(
            id=case_id,
            input=obj["input"],
            output=obj["output"],
            expected=obj.get("expected"),
            split=self.split_names[self.splits[position]],
            observation=_observation(observation, "", text_ok=False) if observation else _UNMEASURED,
        )

    def line_batch(self, start: int, end: int) -> list[LineCase]:
        """Cases ``start`` to ``end`` as the runner sends them: a line of the usual shape goes to the
        sandbox as the file has it, without being parsed again here (see :class:`LineCase`)."""
        ids, plain, view, bounds = self.ids, self.plain, self._view, self.bounds
        if ids is None or plain is None:
            return [LineCase(case.id, case.split, None, case) for case in self[start:end]]
        names, splits = self.split_names, self.splits
        batch = []
        for position in range(start, min(end, len(self))):
            if plain[position]:
                line = view[bounds[2 * position] : bounds[2 * position + 1]]
                batch.append(LineCase(ids[position], names[splits[position]], line, None))
            else:
                case = self._case(position)
                batch.append(LineCase(case.id, case.split, None, case))
        return batch

    def in_split(self, name: str) -> CaseLines:
        """The cases of one split, still compact."""
        if name not in self.split_names:
            return CaseLines(self.path, self.data, array("q"), array("q"), bytearray(), self.split_names)
        code = self.split_names.index(name)
        keep = [position for position, split in enumerate(self.splits) if split == code]
        bounds = array("q")
        for position in keep:
            bounds.extend(self.bounds[2 * position : 2 * position + 2])
        ids, plain = self.ids, self.plain
        return CaseLines(
            self.path,
            self.data,
            bounds,
            array("q", (self.numbers[p] for p in keep)),
            bytearray(code for _ in keep),
            self.split_names,
            [ids[p] for p in keep] if ids is not None else None,
            bytearray(plain[p] for p in keep) if plain is not None else None,
        )

    def split_counts(self) -> dict[str, int]:
        counts = [0] * len(self.split_names)
        for code in self.splits:
            counts[code] += 1
        return {name: count for name, count in zip(self.split_names, counts, strict=True) if count}


def _usual(obj: dict[str, Any]) -> tuple[str | None, str | None] | None:
    """The id and split of a line of the usual shape, which :func:`_jsonl_row` would accept
    as it is (text id and split, no observation); ``None`` for anything else."""
    expected = obj.get("expected")
    if type(obj.get("input")) is not dict or "output" not in obj or not (expected is None or type(expected) is dict):
        return None
    if obj.get("observation") is not None or obj.get("human") is not None:  # checked by the reader of record
        return None
    raw_id, split = obj.get("id"), obj.get("split")
    if not (raw_id is None or type(raw_id) is str) or not (split is None or type(split) is str):
        return None
    return (raw_id.strip() or None) if raw_id is not None else None, (split.strip() or None) if split else None


def _checked(file: str, number: int, obj: dict[str, Any]) -> tuple[str | None, str | None]:
    """The id and split of any other line, by the reader of record (which raises DatasetError)."""
    row = _jsonl_row(file, number, obj)
    return row.id, row.split


def read_case_lines(path: str | Path) -> CaseLines | None:
    """The file's cases, compact, when it is a plain JSON Lines file of one candidate that
    :func:`load_dataset` would read without complaint; ``None`` otherwise (read it with that)."""
    path = Path(path)
    if path.suffix.lower() not in (".jsonl", ".json"):
        return None
    try:
        _check_file(path)
        data = path.read_bytes()
    except (DatasetError, OSError):
        return None
    bounds, numbers = array("q"), array("q")
    ids: list[str] = []
    plain = bytearray()
    named: list[str | None] = []
    stream = io.BytesIO(data)  # shares the file's bytes; each line is copied as it is read, then freed
    start = stream.seek(len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0)
    number = 0
    for line in stream:  # a line ends at "\n" and holds it (orjson takes it as whitespace)
        number += 1
        end = start + len(line) - (line[-1] == 0x0A)
        # Most lines start with "{"; only the others are stripped to see whether they are blank.
        if line[0] == 0x7B or line.strip():
            try:
                obj = orjson.loads(line)
                if type(obj) is not dict or "candidate" in obj:
                    return None
                usual = _usual(obj)
                case_id, split = usual or _checked(path.name, number, obj)
            except (orjson.JSONDecodeError, DatasetError):
                return None
            ids.append(case_id or str(number))  # duplicates are looked for once, at the end
            # Sent to the sandbox as it is when the payload built from it would say the same (no observation to
            # normalise) and it cannot nest deeper than the runner's encoder goes (counted loosely: every bracket).
            sendable = usual is not None and (
                end - start <= MAX_RAW_BRACKETS or line.count(b"[") + line.count(b"{") <= MAX_RAW_BRACKETS
            )
            plain.append(1 if sendable else 0)
            named.append(split)
            bounds.append(start)
            bounds.append(end)
            numbers.append(number)
        start += len(line)
    if not ids or len(set(ids)) != len(ids):
        return None
    if any(split is not None for split in named):
        if any(split is None for split in named):
            return None
        split_names = [split for split in dict.fromkeys(named) if split is not None]
    else:
        planned = assign_splits(ids)
        named = [planned[case_id] for case_id in ids]
        split_names = ["train", "val", "test"]
    codes = {name: code for code, name in enumerate(split_names)}
    if len(split_names) > 255:
        return None
    splits = bytearray(codes[split] for split in named if split is not None)  # none is None by now
    # Ids that differ only in Unicode form need a character beyond ASCII, written or escaped.
    twins = None if data.isascii() and b"\\u" not in data else nfc_twins(zip(ids, map(_line, numbers), strict=True))
    return CaseLines(path, data, bounds, numbers, splits, split_names, ids, plain, warning_of(path.name, twins))


def _line(number: int) -> str:
    return _at("line", number)


class LineCase:
    """One case of a :class:`CaseLines` batch, as the runner needs it: the id and split its result
    carries, and what the sandbox is sent. ``line``: the file's line (a JSON object with ``input``,
    ``output`` and maybe ``expected``, which is all the sandbox reads of it), for a line of the usual
    shape; else ``case``, the :class:`Case` built from the line."""

    __slots__ = ("id", "split", "candidate", "line", "case")

    def __init__(self, case_id: str, split: str, line: memoryview | None, case: Case | None) -> None:
        self.id, self.split, self.candidate, self.line, self.case = case_id, split, "", line, case

    def call_payload(self) -> dict[str, Any]:
        """The payload as :meth:`Case.call_payload` gives it (for a line sent as it is: parsed again)."""
        if self.case is not None:
            return self.case.call_payload()
        obj = orjson.loads(self.line) if self.line is not None else {}
        return Case(id=self.id, input=obj["input"], output=obj["output"], expected=obj.get("expected")).call_payload()

    def payload_json(self) -> bytes | memoryview:
        """The payload as JSON: the line itself, or the built case's payload encoded (which raises
        orjson.JSONEncodeError for a case the channel cannot carry)."""
        if self.line is not None:
            return self.line
        return orjson.dumps(self.call_payload())
