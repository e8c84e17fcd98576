"""JSON Lines case files: one object a line, read into rows or flattened into a table."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skynet_core.i18n import _

from .cell_values import LoneSurrogate, TooDeep, _describe, _human_value, _name_value, _observation, _parse_json, place
from .disk import _check_width, _read_text, _too_many_rows, max_rows
from .model import (
    DatasetError,
    _Row,
)

if TYPE_CHECKING:
    import pandas as pd


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
