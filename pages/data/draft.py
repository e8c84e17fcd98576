"""The Data page's draft: the opened file's preview, its column roles, the problems loading would refuse,
and the candidate files joined to it (``candidates.py``). Storing stays on the page (``pages/data/__init__.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st

from pages.data.candidates import candidate_files_panel
from pages.data.roles import role_help, roles_table, show_default_fields
from skynet_core.datasets import DatasetError, Role, infer_roles, roles_to_json
from skynet_core.i18n import _, format_number, language, ngettext
from skynet_core.views.data.preview import DatasetDraft, preview_problems, preview_warnings
from skynet_core.views.data.role_editor import cell_text
from ui.widgets.text import md

PREVIEW_ROWS = 20
WIDE_COLUMNS = 100
Roles = dict[str, tuple[Role, str]] | None


def preview_frame(frame: pd.DataFrame) -> pd.DataFrame:
    """A file's first rows as the preview shows them: every cell as its text, the row (or line) numbers
    headed in the page's language."""
    preview = frame.copy()
    preview.columns = [str(column) for column in frame.columns]
    preview = preview.map(cell_text)
    preview.index.name = _("line") if frame.index.name == "line" else _("row")
    return preview


def draw_draft(
    draft: DatasetDraft,
    frame: pd.DataFrame,
    *,
    on_apply: Callable[[DatasetDraft], None],
    beside: Callable[[], object],
) -> None:
    """Draw the opened file: its preview, its role editor, the problems loading would refuse it for, the
    candidate files (each with its role editor) and "Use this dataset" (``on_apply``, with the draft as set),
    with what ``beside`` draws in its row (what the last use of it did)."""
    name = Path(draft.path).name
    columns = [str(column) for column in frame.columns]
    st.markdown(f"#### {md(name)}")
    unit = frame.index.name or "row"
    rows_text = (
        ngettext("{count} line", "{count} lines", len(frame))
        if unit == "line"
        else ngettext("{count} row", "{count} rows", len(frame))
    ).format(count=format_number(len(frame)))
    cols_text = ngettext("{count} column", "{count} columns", len(columns)).format(count=format_number(len(columns)))
    st.caption(f"{md(draft.path)} · {rows_text} · {cols_text}")
    if len(columns) >= WIDE_COLUMNS:
        st.info(
            _(
                "This file has {count} columns. Columns without a role prefix (input., expected., output, "
                "observation., id, split, candidate) or a common name start as ignored and are not passed to the "
                "metric; give a role only to the ones it needs."
            ).format(count=format_number(len(columns))),
            icon=":material/view_column:",
        )
    preview = preview_frame(frame.head(PREVIEW_ROWS))
    st.dataframe(preview, height=min(38 + 35 * len(preview), 420))

    st.caption(role_help())
    start = infer_roles(list(frame.columns))
    chosen = {column: role for column, role in (draft.roles or {}).items() if column in start} or None
    draft.roles = roles_table(frame, start, chosen, key="main", file=name)
    problems = problems_of(draft.path, frame, draft.roles)
    for problem in problems:
        st.warning(md(problem), icon=":material/warning:")
    for note in preview_warnings(frame, draft.roles, draft.path):
        st.info(md(note), icon=":material/info:")
    final = {**start, **(draft.roles or {})}.values()
    names_candidates = any(role in (Role.CANDIDATE, Role.CANDIDATE_OUTPUT) for role, _field in final)
    candidate_files_panel(draft, name, names_candidates=names_candidates, main_roles=draft.roles)
    show_default_fields()
    with st.container(horizontal=True, vertical_alignment="center"):
        clicked = st.button(
            _("Use this dataset"),
            type="primary",
            icon=":material/check:",
            key="data.apply",
            disabled=bool(problems),
            help=_("Fix the problems above first: loading would refuse the file.") if problems else None,
        )
        beside()  # what the last "Use this dataset" did, in the button's row
    if clicked:
        on_apply(draft)


@st.cache_data(max_entries=8, show_spinner=False)
def _problems(path: str, mtime_ns: int, roles_key: str, lang: str, _frame: pd.DataFrame, _roles: Roles) -> list[str]:
    return preview_problems(_frame, _roles, path)


def problems_of(path: str, frame: pd.DataFrame, roles: Roles) -> list[str]:
    """The preview's problems, computed once per file version, roles and language (a big file takes seconds)."""
    try:
        mtime_ns = Path(path).stat().st_mtime_ns
    except OSError:
        mtime_ns = 0
    key = json.dumps(roles_to_json(roles or {}), sort_keys=True)
    return _problems(path, mtime_ns, key, language(), frame, roles)


def read_error(exc: DatasetError | OSError, path: str) -> str:
    """What to show when a file cannot be read at all."""
    if isinstance(exc, DatasetError):
        return str(exc)
    return _("{file} could not be read ({reason}). Check the path, or upload the file again.").format(
        file=exc.filename or path, reason=exc.strerror or exc
    )
