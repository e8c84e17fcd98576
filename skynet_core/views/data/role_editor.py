"""The Data page's role editor as data: one row per column (role choice, field name, an example cell),
and back from the edited rows to the roles that differ from the ones inferred from the column names."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from skynet_core.i18n import N_

from ...datasets.model import Role
from ...datasets.per_candidate import PER_CANDIDATE_ROLES, candidate_name_of
from ...datasets.roles import infer_roles

# The editor's choices (marked for translation: the editor shows them with ``_`` and keeps the English value).
# ``None`` as the field: the row's field name, or when it is empty the column name (for the roles "of a
# candidate", whose field is the candidate's name: the name the column gives, e.g. out_large → large).
ROLE_CHOICES: dict[str, tuple[Role, str | None]] = {
    N_("input field"): (Role.INPUT, None),
    N_("input object"): (Role.INPUT, ""),
    N_("expected field"): (Role.EXPECTED, None),
    N_("expected object"): (Role.EXPECTED, ""),
    N_("output"): (Role.OUTPUT, ""),
    N_("output field"): (Role.OUTPUT, None),
    N_("observation latency_ms"): (Role.OBSERVATION, "latency_ms"),
    N_("observation cost_usd"): (Role.OBSERVATION, "cost_usd"),
    N_("observation object"): (Role.OBSERVATION, ""),
    N_("output of a candidate"): (Role.CANDIDATE_OUTPUT, None),
    N_("latency_ms of a candidate"): (Role.CANDIDATE_LATENCY, None),
    N_("cost_usd of a candidate"): (Role.CANDIDATE_COST, None),
    N_("candidate"): (Role.CANDIDATE, ""),
    N_("split"): (Role.SPLIT, ""),
    N_("id"): (Role.ID, ""),
    N_("human"): (Role.HUMAN, ""),
    N_("ignored"): (Role.IGNORED, ""),
}
EXAMPLE_CHARS = 60


def choice_of(role: Role, field_name: str) -> str:
    """The editor's choice for a role and field."""
    if role is Role.OUTPUT:
        return "output field" if field_name else "output"
    if role in (Role.INPUT, Role.EXPECTED):
        return f"{role.value} {'field' if field_name else 'object'}"
    if role is Role.OBSERVATION:
        return f"observation {field_name}" if field_name else "observation object"
    if role in PER_CANDIDATE_ROLES:
        return f"{PER_CANDIDATE_ROLES[role]} of a candidate"
    return role.value


def default_field(choice: str | None, column: str) -> str:
    """The field name a row gets when its choice needs one and none is typed: the column's name, or for the
    roles "of a candidate" the candidate's name the column gives (``out_large`` → ``large``); ``""`` for a
    choice without a field."""
    role, fixed = ROLE_CHOICES.get(choice or "ignored", (Role.IGNORED, ""))
    if fixed is not None:
        return ""
    return candidate_name_of(column, role) if role in PER_CANDIDATE_ROLES else str(column)


def role_of(choice: str | None, field_name: Any, column: str) -> tuple[Role, str]:
    """The role and field of an edited row (an unknown or empty choice means ignored)."""
    role, fixed = ROLE_CHOICES.get(choice or "ignored", (Role.IGNORED, ""))
    if fixed is not None:
        return role, fixed
    typed = field_name.strip() if isinstance(field_name, str) else ""
    return role, typed or default_field(choice, column)


def with_default_fields(edited: pd.DataFrame) -> pd.DataFrame:
    """The edited rows with a blank field filled where the chosen role needs one (:func:`default_field`),
    so the editor shows the name the role will use instead of an empty cell; fields of roles without
    one are cleared."""
    filled = edited.copy()
    for index, row in filled.iterrows():
        needed = default_field(row["role"], str(row["column"]))
        typed = row["field"].strip() if isinstance(row["field"], str) else ""
        filled.at[index, "field"] = (typed or needed) if needed else ""
    return filled


def cell_text(value: Any) -> Any:
    """A cell as the preview shows it: objects as JSON text, so mixed columns display as written."""
    if isinstance(value, (dict, list)):
        return json.dumps(value, ensure_ascii=False, default=str)
    if value is None or isinstance(value, str):
        return value
    try:
        if pd.isna(value):
            return None
    except (TypeError, ValueError):
        pass  # an array-like cell (e.g. a Parquet list)
    return str(value)


def sample_text(values: Iterable[Any]) -> str:
    """The first non-empty cell as text, cut to :data:`EXAMPLE_CHARS` characters."""
    for value in values:
        text = str(cell_text(value) or "")
        if text:
            return text if len(text) <= EXAMPLE_CHARS else text[: EXAMPLE_CHARS - 3] + "..."
    return ""


def editor_rows(frame: pd.DataFrame, roles: dict[str, tuple[Role, str]]) -> pd.DataFrame:
    """The editor's rows for ``frame``'s columns: column, role choice, field name (when it has one), example."""
    rows = []
    for column in frame.columns:
        role, field_name = roles[column]
        shows_field = ROLE_CHOICES[choice_of(role, field_name)][1] is None
        rows.append(
            {
                "column": str(column),
                "role": choice_of(role, field_name),
                "field": field_name if shows_field else "",
                "example": sample_text(frame[column].head(50)),
            }
        )
    return pd.DataFrame(rows, columns=["column", "role", "field", "example"])


def changed_roles(
    edited: pd.DataFrame, columns: list[str], start: Mapping[str, tuple[Role, str]] | None = None
) -> dict[str, tuple[Role, str]] | None:
    """The roles of the edited rows that differ from those the editor started from, ``start`` (default: those
    inferred from the column names; a candidate file's: ``candidate_file_roles``). None: none differ."""
    chosen = {
        column: role_of(row["role"], row["field"], column)
        for column, (_, row) in zip(columns, edited.iterrows(), strict=True)
    }
    start = infer_roles(columns) if start is None else start
    return {column: role for column, role in chosen.items() if role != start.get(column)} or None
