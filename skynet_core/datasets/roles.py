"""Column roles: the guess from a column's name, and roles as JSON."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .files import _describe
from .model import _MEASUREMENTS, DatasetError, Role

if TYPE_CHECKING:
    pass


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
