"""Column roles: the guess from a column's name, and roles as JSON."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from skynet_core.i18n import _

from .files import _describe
from .model import _MEASUREMENTS, DatasetError, Role
from .per_candidate import guess_candidate_columns

# Common names of unprefixed columns (normalised: lower case, spaces and hyphens as underscores) and the role
# they most often hold in evaluation sets; a name ending in "*" is a prefix (expected_label, expected_priority).
# A name guess never overrides a prefix, and fills a role only when no column has that role by prefix already.
NAME_GUESSES: dict[Role, tuple[str, ...]] = {
    Role.INPUT: ("question", "prompt", "query", "instruction"),
    Role.EXPECTED: (
        "answer",
        "label",
        "target",
        "gold",
        "reference",
        "reference_answer",
        "key_fact",
        "key_facts",
        "ground_truth",
        "expected_*",
    ),
    Role.OUTPUT: ("response", "completion", "prediction", "generation", "model_output"),
    Role.HUMAN: ("human_score", "human_rating", "human_label", "rating", "gold_score"),
}
_WHOLE = (Role.OUTPUT, Role.HUMAN)  # a name guess that holds a whole value, in one column


def _normal_name(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower())


def _guessed(name: str, names: tuple[str, ...]) -> bool:
    return any(name == known or (known.endswith("*") and name.startswith(known[:-1])) for known in names)


def infer_roles(columns: list[str]) -> dict[str, tuple[Role, str]]:
    """Guess each column's role and field name from its name.

    ``input.X`` / ``expected.X`` / ``output.X`` give that role with field ``X`` (the
    text after the first dot, so ``input.a.b`` is field ``a.b``). ``input``,
    ``expected``, ``output`` and ``observation`` alone give the role with field
    ``""`` (the whole value). ``observation.latency_ms`` and ``observation.cost_usd``
    are measurements; other ``observation.*`` columns are ignored, as are extra
    keys of a JSON Lines observation. ``id``, ``split``, ``candidate`` and ``human``
    (a person's score of the output) go by name. Prefixes and names match case-insensitively and around spaces; field
    names keep their case.

    Then, when no column is the output or the candidate by its name, two or more
    output columns of candidates such as ``out_small`` and ``out_large``, with those
    candidates' latency and cost columns (``latency_large_ms``, ``cost_large_usd``):
    one candidate each, named from the column
    (:func:`~skynet_core.datasets.per_candidate.guess_candidate_columns`).

    Then common names without a prefix (:data:`NAME_GUESSES`): ``question``,
    ``prompt``... are an input field, ``answer``, ``label``, ``gold``, ``target``,
    ``reference_answer``, ``key_fact``, ``expected_*``... an expected field (field name:
    the column's name), and the first of ``response``,
    ``completion``, ``prediction``... the whole output, the first of ``human_score``,
    ``rating``, ``gold_score``... the human score; each only when no column
    has that role by its prefix. Everything else is ignored.
    """
    roles: dict[str, tuple[Role, str]] = {}
    for column in columns:
        name = str(column).strip()
        prefix, dot, rest = name.partition(".")
        prefix = prefix.strip().lower()
        field = rest.strip()
        role = Role.IGNORED
        if not dot and prefix in ("id", "split", "candidate", "input", "expected", "output", "observation", "human"):
            role = Role(prefix)
        elif dot and field and prefix in ("input", "expected", "output"):
            role = Role(prefix)
        elif dot and prefix == "observation" and field.lower() in _MEASUREMENTS:
            role, field = Role.OBSERVATION, field.lower()
        roles[column] = (role, field if role in (Role.INPUT, Role.EXPECTED, Role.OUTPUT, Role.OBSERVATION) else "")
    by_prefix = {role for role, _ in roles.values()}
    if not by_prefix & {Role.OUTPUT, Role.CANDIDATE}:
        unprefixed = [column for column in columns if roles[column][0] is Role.IGNORED]
        roles.update(guess_candidate_columns(unprefixed))
        if any(role is Role.CANDIDATE_OUTPUT for role, _ in roles.values()):
            by_prefix.add(Role.OUTPUT)  # the outputs are per candidate: no column is the one output
    for role, names in NAME_GUESSES.items():
        if role in by_prefix:
            continue
        for column in columns:
            if roles[column][0] is Role.IGNORED and _guessed(_normal_name(str(column)), names):
                roles[column] = (role, "" if role in _WHOLE else str(column).strip())
                if role in _WHOLE:
                    break  # one column holds the whole output (or the human score)
    return roles


def roles_to_json(roles: dict[str, tuple[Role, str]]) -> dict[str, list[str]]:
    """Roles as JSON, ``{column: [role, field]}``: what the store and ``score --roles`` hold."""
    return {str(column): [Role(role).value, str(field)] for column, (role, field) in roles.items()}


def roles_from_json(value: Any, source: str | None = None) -> dict[str, tuple[Role, str]]:
    """Roles from JSON: ``{column: [role, field]}``, ``{column: [role]}`` or ``{column: role}``.

    ``source`` starts the messages (e.g. the roles file's name). Raises
    :class:`DatasetError` naming the column and the role names that exist.
    """
    source = source if source is not None else _("The roles")
    example = '{"question": ["input", "question"], "gold": ["expected", "label"], "answer": ["output", ""]}'
    if not isinstance(value, dict):
        raise DatasetError(
            _("{source} must map each column to [role, field], e.g. {example}; not {value}.").format(
                source=source, example=example, value=_describe(value)
            )
        )
    roles: dict[str, tuple[Role, str]] = {}
    for column, entry in value.items():
        parts = [entry] if isinstance(entry, str) else entry
        if not isinstance(parts, list) or not 1 <= len(parts) <= 2 or not all(isinstance(p, str) for p in parts):
            raise DatasetError(
                _(
                    "{source}: the role of column {column!r} is {value}. Write it as [role, field], e.g. "
                    '["input", "question"] or ["output", ""].'
                ).format(source=source, column=column, value=_describe(entry)),
                column=str(column),
            )
        try:
            role = Role(parts[0].strip().lower())
        except ValueError:
            raise DatasetError(
                _(
                    "{source}: column {column!r} has the role {role!r}, which does not exist. Use one of {roles}."
                ).format(source=source, column=column, role=parts[0], roles=", ".join(role.value for role in Role)),
                column=str(column),
            ) from None
        roles[str(column)] = (role, parts[1].strip() if len(parts) == 2 else "")
    return roles


@dataclass(frozen=True)
class RolesFile:
    """A roles file (``score --roles FILE.json``): the main file's roles (``None``: inferred) and each
    candidate file's, by the name the candidate file was given."""

    main: dict[str, tuple[Role, str]] | None = None
    candidate_files: dict[str, dict[str, tuple[Role, str]]] = field(default_factory=dict)


_SECTIONS = ("main", "candidate_files")


def roles_file_from_json(value: Any, source: str | None = None) -> RolesFile:
    """A roles file from JSON. Either the main file's roles alone, ``{column: [role, field]}`` (as the Data
    page stores them), or sections: ``{"main": {column: [role, field]}, "candidate_files": {name: {column:
    [role, field]}}}``, ``name`` being the candidate a candidate file was added as. A column's role is
    never an object, so a top level whose values are all objects is read as sections. Raises
    :class:`DatasetError` as :func:`roles_from_json` does."""
    source = source if source is not None else _("The roles")
    sectioned = (
        isinstance(value, dict)
        and bool(value)
        and set(value) <= set(_SECTIONS)
        and all(isinstance(item, dict) for item in value.values())
    )
    if not sectioned:
        return RolesFile(roles_from_json(value, source) or None)
    main = value.get("main")
    files = value.get("candidate_files") or {}
    return RolesFile(
        roles_from_json(main, _("{source}, main").format(source=source)) if main else None,
        {
            str(name): roles_from_json(roles, _("{source}, candidate file {name}").format(source=source, name=name))
            for name, roles in files.items()
        },
    )
