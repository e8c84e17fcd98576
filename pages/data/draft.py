"""The Data page's draft: the opened file's preview, its column roles, the problems loading would refuse,
and the candidate files joined to it. Callbacks and storing stay on the page (``pages/data/__init__.py``)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import streamlit as st

import keys as K
from skynet_core.datasets import DatasetError, Role, infer_roles, roles_to_json
from skynet_core.datasets.preview import DatasetDraft, preview_problems, preview_warnings
from skynet_core.datasets.role_editor import ROLE_CHOICES, cell_text, changed_roles, editor_rows
from skynet_core.i18n import _, format_number, language, ngettext
from skynet_core.paths import data_roots
from widgets.text import md, uploader_note

S = st.session_state
FILE_TYPES = ["csv", "jsonl", "json", "parquet"]
PREVIEW_ROWS = 20
WIDE_COLUMNS = 100
Roles = dict[str, tuple[Role, str]] | None


def role_help() -> str:
    return _(
        "**input field**: `input[field]` · **expected field**: `expected[field]`, keyed like the output · "
        "**output**: the whole output to score (**output field** builds an object) · **object** roles: the cell is "
        "a JSON object holding every field · **observation**: the measured latency (ms) or cost (USD) · "
        "**candidate**, **split**, **id**: by name · **ignored**: not passed to the metric. Columns named like "
        "`question`, `answer`, `label` or `response` start with a guessed role: check it."
    )


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
    on_apply: Callable[[DatasetDraft, pd.DataFrame, list[str]], None],
    on_add: Callable[[DatasetDraft], None],
    on_remove: Callable[[DatasetDraft, int], None],
) -> None:
    """Draw the opened file (its preview, role editor, problems, candidate files and the "Use" button)."""
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

    edited = role_editor(draft, frame, columns)
    chosen = changed_roles(edited, list(frame.columns))
    problems = problems_of(draft.path, frame, chosen)
    for problem in problems:
        st.warning(md(problem), icon=":material/warning:")
    for note in preview_warnings(frame, chosen, draft.path):
        st.info(md(note), icon=":material/info:")
    has_candidate_column = any(
        role is Role.CANDIDATE for role, _field in {**infer_roles(list(frame.columns)), **(chosen or {})}.values()
    )
    candidate_files_panel(draft, name, has_candidate_column=has_candidate_column, on_add=on_add, on_remove=on_remove)
    if st.button(
        _("Use this dataset"),
        type="primary",
        icon=":material/check:",
        key="data.apply",
        disabled=bool(problems),
        help=_("Fix the problems above first: loading would refuse the file.") if problems else None,
    ):
        on_apply(draft, edited, list(frame.columns))


def role_editor(draft: DatasetDraft, frame: pd.DataFrame, columns: list[str]) -> pd.DataFrame:
    """The role of every column (guessed from its name until set), as an editable table; what it holds now."""
    st.markdown(_("**Column roles**"))
    st.caption(role_help())
    roles = infer_roles(list(frame.columns))
    roles.update({column: role for column, role in (draft.roles or {}).items() if column in roles})
    edited: pd.DataFrame = st.data_editor(
        editor_rows(frame, roles),
        key=f"data.roles.{S[K.DATA_GEN]}",
        hide_index=True,
        num_rows="fixed",
        disabled=["column", "example"],
        height=min(38 + 35 * len(columns), 460),
        column_config={
            "column": st.column_config.TextColumn(_("column"), width="medium", pinned=True),
            "role": st.column_config.SelectboxColumn(
                _("role"),
                width="medium",
                options=list(ROLE_CHOICES),
                format_func=lambda choice: _(str(choice)),
                required=True,
                help=_("What the column means to the metric."),
            ),
            "field": st.column_config.TextColumn(
                _("field name"),
                width="medium",
                help=_(
                    "For the field roles: the key the metric reads, e.g. input['question']. Empty means the "
                    "column's name."
                ),
            ),
            "example": st.column_config.TextColumn(_("first value"), width="large"),
        },
    )
    return edited


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


def candidate_files_panel(
    draft: DatasetDraft,
    name: str,
    *,
    has_candidate_column: bool,
    on_add: Callable[[DatasetDraft], None],
    on_remove: Callable[[DatasetDraft, int], None],
) -> None:
    st.markdown(_("**More candidates** · one file per candidate (optional)"))
    st.caption(
        _(
            "Another candidate's outputs for the same cases, joined to {name} by id. Each file needs an id column "
            "and an output column; its latency and cost are its own. Columns named as in {name} get the same roles."
        ).format(name=md(name))
    )
    for index, item in enumerate(draft.files):
        cols = st.columns([2, 5, 2], vertical_alignment="center")
        cols[0].markdown(f"**{md(item.name)}**")
        cols[1].caption(md(item.path))
        cols[2].button(
            _("Remove"),
            key=f"data.remove.{index}.{item.name}",
            on_click=on_remove,
            args=(draft, index),
            icon=":material/delete:",
        )
    if draft.files and not has_candidate_column:
        S.setdefault(f"data.main.{S[K.DATA_GEN]}", draft.main_candidate or Path(draft.path).stem)
        st.text_input(
            _("Candidate name of {name}").format(name=name),
            key=f"data.main.{S[K.DATA_GEN]}",
            help=_("The name the Author and Reward trade-offs pages use for this file's outputs."),
        )
    with st.expander(_("Add a candidate file"), expanded=bool(S.get(K.DATA_NEW_ERROR))):
        st.text_input(_("Candidate name"), key=K.DATA_NEW_NAME, placeholder=_("e.g. large-careful"))
        st.file_uploader(_("Upload its file"), type=FILE_TYPES, key=f"data.new_upload.{S.get(K.DATA_NEW_GEN, 0)}")
        uploader_note()
        st.text_input(_("…or its path on the server"), key=K.DATA_NEW_PATH, help=roots_help())
        st.button(_("Add candidate"), on_click=on_add, args=(draft,), icon=":material/add:")
        if S.get(K.DATA_NEW_ERROR):
            st.error(md(S[K.DATA_NEW_ERROR]), icon=":material/error:")


def roots_help() -> str:
    return _("Only files in these folders: {folders}.").format(folders=", ".join(str(r) for r in data_roots()))


def read_error(exc: DatasetError | OSError, path: str) -> str:
    """What to show when a file cannot be read at all."""
    if isinstance(exc, DatasetError):
        return str(exc)
    return _("{file} could not be read ({reason}). Check the path, or upload the file again.").format(
        file=exc.filename or path, reason=exc.strerror or exc
    )
