"""From a table (pandas frame) and its column roles to a Dataset, with every cell checked."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skynet_core.cases import Observation
from skynet_core.i18n import _

from .cells import _csv_cell, _object_part, _plain
from .files import (
    _check_width,
    _describe,
    _file_label,
    _human_value,
    _measurement,
    _name_value,
    _observation,
    place,
)
from .model import Dataset, DatasetError, Role, _Row
from .per_candidate import CandidateColumns, candidate_columns, shared_roles
from .role_checks import _check_roles as _check_roles
from .roles import infer_roles
from .settle import _at as _at
from .settle import _dataset as _dataset
from .settle import _pair as _pair

if TYPE_CHECKING:
    import pandas as pd


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
