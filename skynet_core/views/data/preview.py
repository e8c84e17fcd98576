"""What the Data page's preview says before "Use this dataset": the problems loading would refuse.

:func:`preview_problems` checks a table and its roles the way loading does (the same role checks,
:func:`frames._check_roles`) and adds the repeated ids, all at once and without building the cases,
so the user fixes them while setting the roles instead of after pressing the button.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, cast

from skynet_core.i18n import _, ngettext

from ...datasets.candidates import CandidateFile
from ...datasets.files import _file_label
from ...datasets.frames import _at, _check_roles, _final_roles
from ...datasets.model import DatasetError, Role
from ...datasets.twins import nfc_twins, warning_of

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class DatasetDraft:
    """The choice being set up on the Data page: the main file, roles that differ from the guessed ones,
    candidate files, and the main file's candidate name (when candidate files are added)."""

    path: str
    roles: dict[str, tuple[Role, str]] | None = None
    files: list[CandidateFile] = field(default_factory=list)
    main_candidate: str | None = None


def preview_problems(frame: pd.DataFrame, roles: dict[str, tuple[Role, str]] | None, source: str) -> list[str]:
    """The problems "Use this dataset" would refuse ``frame`` for with ``roles`` (None: the guessed roles).

    A missing input or output role, clashing roles, and ids that appear more than once (for the
    same candidate, when a column holds candidates). An empty list means none of these; reading
    every cell (kinds of values, candidates lining up) is still left to loading.
    """
    file = _file_label(source)
    columns = list(frame.columns)
    problems: list[str] = []
    try:
        final = _final_roles(file, columns, roles)
        _check_roles(file, columns, final)
    except DatasetError as exc:
        problems.append(str(exc))
        final = _final_roles(file, columns, {c: r for c, r in (roles or {}).items() if c in columns})
    repeated = repeated_ids(frame, final, file)
    if repeated:
        problems.append(repeated)
    return problems


def preview_warnings(frame: pd.DataFrame, roles: dict[str, tuple[Role, str]] | None, source: str) -> list[str]:
    """What "Use this dataset" would accept but people should know: ids that differ only in their Unicode form
    (NFC). Shown beside the problems, without refusing the file."""
    file = _file_label(source)
    try:
        final = _final_roles(file, list(frame.columns), roles)
    except DatasetError:
        return []
    id_columns = [column for column in frame.columns if final[column][0] is Role.ID]
    if len(id_columns) != 1:
        return []
    ids = _id_texts(frame[id_columns[0]])
    unit = "line" if frame.index.name == "line" else "row"
    return warning_of(file, nfc_twins((text, _at(unit, cast(int, number))) for number, text in ids.items() if text))


def repeated_ids(frame: pd.DataFrame, roles: dict[str, tuple[Role, str]], file: str) -> str | None:
    """A message naming the ids that appear more than once (per candidate), or None."""
    id_columns = [column for column in frame.columns if roles[column][0] is Role.ID]
    if len(id_columns) != 1:
        return None  # no id column (ids are row numbers) or a clash _check_roles reports
    ids = _id_texts(frame[id_columns[0]])
    candidate_columns = [column for column in frame.columns if roles[column][0] is Role.CANDIDATE]
    keys = ids if len(candidate_columns) != 1 else ids + "\x00" + _id_texts(frame[candidate_columns[0]])
    given = ids != ""
    twice = keys[given & keys.duplicated(keep=False)]
    if twice.empty:
        return None
    first = twice.iloc[0]
    rows = [str(number) for number in twice.index[twice == first][:2]]
    where = (_("lines {first} and {second}") if frame.index.name == "line" else _("rows {first} and {second}")).format(
        first=rows[0], second=rows[1]
    )
    count = int(twice.nunique())
    return ngettext(
        "{file}: id “{id}” appears more than once ({where}). Give every case its own id.",
        "{file}: {count} ids appear more than once, e.g. “{id}” ({where}). Give every case its own id.",
        count,
    ).format(file=file, id=ids[twice.index[0]], where=where, count=count)


def _id_texts(column: pd.Series) -> pd.Series:
    """A column's cells as id text, vectorised (the preview runs on every rerun of the page): empty for a
    missing cell, whole floats without their ``.0`` (a numeric id column with gaps reads as floats)."""
    import pandas as pd

    if pd.api.types.is_float_dtype(column):
        return column.map(_id_text)
    return column.astype("string").fillna("").str.strip().astype(object)


def _id_text(value: object) -> str:
    if value is None:
        return ""
    try:
        import pandas as pd

        if pd.isna(value):  # type: ignore[call-overload]
            return ""
    except (TypeError, ValueError):
        pass
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value).strip()
