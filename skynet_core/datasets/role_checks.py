"""The column roles a table is given, checked before any cell is read: no input, no output, clashes."""

from __future__ import annotations

from skynet_core.i18n import _

from .model import _MEASUREMENTS, DatasetError, Role
from .per_candidate import candidate_columns


def _check_roles(
    file: str, columns: list[str], roles: dict[str, tuple[Role, str]], *, joined_to: str | None = None
) -> None:
    """Refuse role assignments that cannot make cases: no input, no output, clashes.

    ``joined_to`` names the main file when ``file`` is a candidate file: it then needs
    an id column instead of an input column, and may not have a candidate column.
    """
    by_role = _columns_by_role(file, columns, roles)
    _check_one_column_each(file, by_role)
    _check_required(file, by_role, joined_to)
    if any(item.output for item in candidate_columns(file, columns, roles, joined_to=joined_to)):
        return  # one output column per candidate: checked there
    _check_outputs(file, by_role.get(Role.OUTPUT, []), roles)


def _columns_by_role(file: str, columns: list[str], roles: dict[str, tuple[Role, str]]) -> dict[Role, list[str]]:
    """The columns of each role, in order, refusing an unknown observation field and two columns for one field."""
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
    return by_role


def _check_one_column_each(file: str, by_role: dict[Role, list[str]]) -> None:
    """At most one id, split, candidate and human column."""
    for role in (Role.ID, Role.SPLIT, Role.CANDIDATE, Role.HUMAN):
        if len(by_role.get(role, [])) > 1:
            first, second = by_role[role][:2]
            raise DatasetError(
                _(
                    "{file}: columns {first} and {second} both have the {role} role. Keep one and ignore the other."
                ).format(file=file, first=repr(first), second=repr(second), role=role.value),
                column=second,
            )


def _check_required(file: str, by_role: dict[Role, list[str]], joined_to: str | None) -> None:
    """An input column (a candidate file: an id column and no candidate column)."""
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


def _check_outputs(file: str, outputs: list[str], roles: dict[str, tuple[Role, str]]) -> None:
    """An output column: one whole output, or only output fields."""
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
