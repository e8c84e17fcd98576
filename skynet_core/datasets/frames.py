"""From a table (pandas frame) and its column roles to a Dataset, with every cell checked."""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import math
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skynet_core.cases import Case, Observation
from skynet_core.i18n import _

from .files import (
    _check_width,
    _describe,
    _file_label,
    _human_value,
    _measurement,
    _name_value,
    _observation,
    _parse_json,
    place,
)
from .model import _MEASUREMENTS, Dataset, DatasetError, Role, _Row
from .per_candidate import CandidateColumns, candidate_columns, shared_roles
from .roles import infer_roles
from .splits import assign_splits
from .twins import nfc_twins, warning_of

if TYPE_CHECKING:
    import pandas as pd


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
        # A float holds 15 significant digits exactly; beyond that the digits are kept as text, not rounded.
        return float(value) if len(value.as_tuple().digits) <= 15 else str(value)
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
                _(
                    "{file}: column {column} has the observation role with field {field}. Use latency_ms or "
                    "cost_usd, or ignore the column."
                ).format(file=file, column=repr(column), field=repr(field)),
                column=column,
            )
        if role in (Role.INPUT, Role.EXPECTED, Role.OUTPUT, Role.OBSERVATION) and field:
            if (role, field) in targets:
                raise DatasetError(
                    _(
                        "{file}: columns {first} and {second} are both {role} field {field}. "
                        "Give one another field name or ignore it."
                    ).format(
                        file=file,
                        first=repr(targets[role, field]),
                        second=repr(column),
                        role=role.value,
                        field=repr(field),
                    ),
                    column=column,
                )
            targets[role, field] = column
    for role in (Role.ID, Role.SPLIT, Role.CANDIDATE, Role.HUMAN):
        if len(by_role.get(role, [])) > 1:
            first, second = by_role[role][:2]
            raise DatasetError(
                _(
                    "{file}: columns {first} and {second} both have the {role} role. Keep one and ignore the other."
                ).format(file=file, first=repr(first), second=repr(second), role=role.value),
                column=second,
            )
    if joined_to is not None and by_role.get(Role.CANDIDATE):
        raise DatasetError(
            _(
                "{file}: column {column} has the candidate role, but a candidate file holds the outputs of one "
                "candidate, named when the file is added. Set the column's role to ignored, or use this file as the "
                "main file."
            ).format(file=file, column=repr(by_role[Role.CANDIDATE][0])),
            column=by_role[Role.CANDIDATE][0],
        )
    if joined_to is not None and not by_role.get(Role.ID):
        raise DatasetError(
            _(
                "{file} has no id column. A candidate file is joined to the cases of {main} by id: add an id "
                "column with the same ids as {main}, or give a column the id role."
            ).format(file=file, main=joined_to)
        )
    if joined_to is None and not by_role.get(Role.INPUT):
        raise DatasetError(
            _(
                "{file} has no input column. Name input columns with the input. prefix (e.g. input.question), or give "
                "a column the input role (on the Data page, or with --roles FILE.json on the command line)."
            ).format(file=file)
        )
    if any(item.output for item in candidate_columns(file, columns, roles, joined_to=joined_to)):
        return  # one output column per candidate: checked there
    outputs = by_role.get(Role.OUTPUT, [])
    if not outputs:
        raise DatasetError(
            _(
                "{file} has no output column. Add a column named output (or output.<field> for an object output), or "
                "give a column the output role (on the Data page, or with --roles FILE.json on the command line; "
                "one “output of a candidate” column per candidate when each has its own)."
            ).format(file=file)
        )
    whole = [column for column in outputs if not roles[column][1]]
    if whole and len(outputs) > 1:
        other = next(column for column in outputs if column != whole[0])
        raise DatasetError(
            _(
                "{file}: column {column} holds the whole output but {other} is an output field too. Keep either one "
                "output column or only output.<field> columns."
            ).format(file=file, column=repr(whole[0]), other=repr(other)),
            column=other,
        )


def _at(unit: str, number: int) -> str:
    """Where in the file a line or row is, for messages: "line 3" / "row 3"."""
    return (_("line {number}") if unit == "line" else _("row {number}")).format(number=number)


def _pair(unit: str, first: int, second: int) -> str:
    """Two lines or rows, for messages: "lines 1 and 3" / "rows 1 and 3"."""
    return (_("lines {first} and {second}") if unit == "line" else _("rows {first} and {second}")).format(
        first=first, second=second
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
            _(
                "{where}: the column holds the whole {role} but this cell is {value}, not an object. "
                'Write a JSON object such as {{"question": "..."}}, or give the column a field name (name it '
                "{role}.<field>)."
            ).format(where=where, role=role.value, value=_describe(value))
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
        raise DatasetError(
            _("{file} has column names but no rows. Add one row per case and load it again.").format(file=file)
        )
    final = _final_roles(file, columns, roles)
    _check_roles(file, columns, final)
    rows, unit = _frame_rows(df, shared_roles(final), source)
    rows = _per_candidate_rows(df, rows, candidate_columns(file, columns, final), source, unit)
    return _dataset(rows, name=name or Path(str(source)).stem or file, source=str(source), file=file, unit=unit)


def _final_roles(
    file: str, columns: list[str], roles: dict[str, tuple[Role, str]] | None
) -> dict[str, tuple[Role, str]]:
    """Every column's role: the given ones, :func:`infer_roles`' guess for the rest."""
    given = dict(roles or {})
    unknown = [column for column in given if column not in columns]
    if unknown:
        raise DatasetError(
            _(
                "{file} has no column {column!r}, but a role was given for it. Choose roles only for the columns "
                "shown: {columns}."
            ).format(
                file=file,
                column=unknown[0],
                columns=", ".join(map(str, columns[:10])) + (", ..." if len(columns) > 10 else ""),
            ),
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
    for number, row_values in zip(
        row_numbers, zip(*cells, strict=True) if cells else [()] * len(row_numbers), strict=True
    ):
        try:
            rows.append(_frame_row(file, unit, number, plans, row_values))
        except DatasetError as exc:
            exc.line = number
            raise
    return rows, unit


def _per_candidate_rows(
    df: pd.DataFrame, rows: list[_Row], per: list[CandidateColumns], source: str, unit: str
) -> list[_Row]:
    """Each row once per candidate of a table with one output column per candidate (see
    :mod:`~skynet_core.datasets.per_candidate`), candidate by candidate; ``rows`` as they are without one.

    A candidate's case has the row's input, expected, id and split, its own output column's cell, and its
    own latency and cost where it has those columns (the row's shared observation otherwise). A candidate
    named ``""`` is a candidate file's own: only its cells are set, not its name.
    """
    if not per:
        return rows
    file = _file_label(source)
    is_csv = Path(str(source)).suffix.lower() == ".csv"
    numbers = [row.number for row in rows]
    expanded: list[_Row] = []
    for item in per:
        outputs = _cells(df, item.output, is_csv) if item.output else [row.output for row in rows]
        latencies = _measurements(df, item.latency_ms, "latency_ms", file, unit, numbers, is_csv)
        costs = _measurements(df, item.cost_usd, "cost_usd", file, unit, numbers, is_csv)
        for row, output, latency, cost in zip(rows, outputs, latencies, costs, strict=True):
            observation = Observation(
                latency if item.latency_ms else row.observation.latency_ms,
                cost if item.cost_usd else row.observation.cost_usd,
            )
            expanded.append(
                dataclasses.replace(row, output=output, observation=observation, candidate=item.name or row.candidate)
            )
    return expanded


def _cells(df: pd.DataFrame, column: str, is_csv: bool) -> list[Any]:
    """A column's cells as plain Python (a CSV cell is the text written, as a whole output's is)."""
    values = df[column].tolist()
    return values if is_csv else [value if type(value) is str else _plain(value) for value in values]


def _measurements(
    df: pd.DataFrame, column: str | None, what: str, file: str, unit: str, numbers: list[int], is_csv: bool
) -> list[float | None]:
    """A per-candidate latency or cost column's numbers (``None`` where not measured); all ``None`` without one."""
    if column is None:
        return [None] * len(numbers)
    values = _cells(df, column, is_csv)
    if not is_csv:
        _check_measurement_kinds(file, unit, column, zip(numbers, values, strict=True))
    head, tail = _column_plan(file, unit, column, Role.OBSERVATION, what)[5]
    found = []
    for number, value in zip(numbers, values, strict=True):
        try:
            found.append(_measurement(value, f"observation.{what}", head + str(number) + tail, text_ok=True))
        except DatasetError as exc:
            exc.line, exc.column = number, column
            raise
    return found


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
                _(
                    "{file}: the measurement column {column!r} mixes numbers and text ({one} has {one_value}, "
                    "{two} has {two_value}). Write every value as a number, leaving it empty (null) when it was "
                    "not measured."
                ).format(
                    file=file,
                    column=column,
                    one=_at(unit, one),
                    one_value=_describe(one_value),
                    two=_at(unit, two),
                    two_value=_describe(two_value),
                ),
                line=two,
                column=column,
            )


_NAME, _MEASUREMENT, _OBSERVATION, _WHOLE_OUTPUT, _PART, _HUMAN = range(6)


def _column_plan(file: str, unit: str, column: Any, role: Role, field: str) -> tuple[Any, ...]:
    """What :func:`_frame_row` does with a column's cells, worked out once per column."""
    if role in (Role.ID, Role.SPLIT, Role.CANDIDATE):
        kind = _NAME
    elif role is Role.OBSERVATION:
        kind = _MEASUREMENT if field else _OBSERVATION
    elif role is Role.OUTPUT and not field:
        kind = _WHOLE_OUTPUT
    elif role is Role.HUMAN:
        kind = _HUMAN
    else:
        kind = _PART
    # The cell's place, translated once per column: the row number goes where the \x00 is.
    place = _("{file}, column {column!r}, line {line}") if unit == "line" else _("{file}, column {column!r}, row {row}")
    head, _sep, tail = place.format(file=file, column=str(column), line="\x00", row="\x00").partition("\x00")
    return column, role, field, kind, role.value, (head, tail)


def _frame_row(file: str, unit: str, number: int, plans: list[tuple[Any, ...]], values: tuple[Any, ...]) -> _Row:
    """One table row from its cells, one per :func:`_column_plan`."""
    objects: dict[Role, dict[str, Any]] = {Role.INPUT: {}, Role.EXPECTED: {}, Role.OUTPUT: {}}
    measured: dict[str, float | None] = {}
    names: dict[Role, str | None] = {Role.ID: None, Role.SPLIT: None, Role.CANDIDATE: None}
    output: Any = None
    human: float | None = None
    has_expected = False
    for (column, role, field, kind, what, (head, tail)), value in zip(plans, values, strict=True):
        where = head + str(number) + tail
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
            elif kind == _HUMAN:
                human = _human_value(value, where)
            else:
                _object_part(objects[role], value, role, field, where)
                has_expected = has_expected or (role is Role.EXPECTED and value is not None)
        except DatasetError as exc:
            exc.column = str(column)
            raise
    return _Row(
        number=number,
        where=place(file, unit, number),
        input=objects[Role.INPUT],
        output=objects[Role.OUTPUT] or output,
        expected=objects[Role.EXPECTED] if has_expected else None,
        observation=Observation(latency_ms=measured.get("latency_ms"), cost_usd=measured.get("cost_usd")),
        id=names[Role.ID],
        split=names[Role.SPLIT],
        candidate=names[Role.CANDIDATE],
        human=human,
    )


def _dataset(rows: list[_Row], *, name: str, source: str, file: str, unit: str) -> Dataset:
    """Settle ids, candidates and splits, checking that candidates line up."""
    with_candidate = [row for row in rows if row.candidate is not None]
    if with_candidate and len(with_candidate) < len(rows):
        row = next(row for row in rows if row.candidate is None)
        raise DatasetError(
            (
                _("{where} has no candidate, but other lines do. Give every line a candidate, or none.")
                if unit == "line"
                else _("{where} has no candidate, but other rows do. Give every row a candidate, or none.")
            ).format(where=row.where),
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
        if earlier is not None and (row.id is None or earlier.id is None):
            unnamed, named = (row, earlier) if row.id is None else (earlier, row)
            raise DatasetError(
                _(
                    "{file}: {missing} has no id, so it is numbered {id!r} by its place in the file, but {given} "
                    "gives {id!r} as its id. Give every case an id, or none."
                ).format(file=file, missing=_at(unit, unnamed.number), id=case_id, given=_at(unit, named.number)),
                line=unnamed.number,
            )
        if earlier is not None:
            where = _pair(unit, earlier.number, row.number)
            raise DatasetError(
                (
                    _(
                        "{file}: id {id!r} appears twice for candidate {candidate!r} ({where}). "
                        "Give every case its own id."
                    )
                    if candidate
                    else _("{file}: id {id!r} appears twice ({where}). Give every case its own id.")
                ).format(file=file, id=case_id, candidate=candidate, where=where),
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
            lacking, having = (candidate, reference) if missing is not None else (reference, candidate)
            odd_id = missing if missing is not None else extra
            assert odd_id is not None
            found = (reference_rows if missing is not None else own)[odd_id]
            raise DatasetError(
                _(
                    "{file}: candidate {lacking!r} has no case with id {id!r}, which candidate {having!r} has "
                    "({where}). Every candidate needs the same case ids: add the missing case, or give "
                    "the cases an id column so they line up by id rather than by order."
                ).format(file=file, lacking=lacking, id=odd_id, having=having, where=_at(unit, found.number)),
                line=found.number,
            )
        for case_id, row in own.items():
            ref = reference_rows[case_id]
            for part in ("input", "expected"):
                if getattr(row, part) != getattr(ref, part):
                    raise DatasetError(
                        _(
                            "{file}: case {id!r} has a different {part} for candidate {candidate!r} ({where}) than "
                            "for {reference!r} ({reference_where}). The candidates must answer the "
                            "same cases: check that ids match the right rows."
                        ).format(
                            file=file,
                            id=case_id,
                            part=part,
                            candidate=candidate,
                            where=_at(unit, row.number),
                            reference=reference,
                            reference_where=_at(unit, ref.number),
                        ),
                        line=row.number,
                    )

    from_column = any(row.split is not None for row in rows)
    if from_column:
        without = next((row for row in rows if row.split is None), None)
        if without is not None:
            raise DatasetError(
                (
                    _(
                        "{where} has no split, but other lines do. Give every line a split (train, val or "
                        "test), or remove all splits to let the planner assign them."
                    )
                    if unit == "line"
                    else _(
                        "{where} has no split, but other rows do. Give every row a split (train, val or "
                        "test), or remove all splits to let the planner assign them."
                    )
                ).format(where=without.where),
                line=without.number,
            )
        for row, case_id in zip(rows, ids, strict=True):
            ref = reference_rows[case_id]
            if row.split != ref.split:
                raise DatasetError(
                    _(
                        "{file}: case {id!r} is in split {split!r} at {where} but {reference_split!r} at "
                        "{reference_where}. Give each case id one split for all candidates."
                    ).format(
                        file=file,
                        id=case_id,
                        split=row.split,
                        where=_at(unit, row.number),
                        reference_split=ref.split,
                        reference_where=_at(unit, ref.number),
                    ),
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
            human=row.human,
        )
        for row, case_id in zip(rows, ids, strict=True)
    ]
    twins = nfc_twins((case_id, _at(unit, row.number)) for case_id, row in reference_rows.items())
    return Dataset(
        name=name,
        cases=cases,
        candidates=candidates,
        source=source,
        splits_from_column=from_column,
        warnings=warning_of(file, twins),
    )
