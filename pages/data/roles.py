"""The Data page's role editors: one table of column roles per file (the main file and each candidate file).

Each editor shows the roles a file's columns start with (``start``: the guess, or a candidate file's
``candidate_file_roles``) with those set by hand on top. What an editor holds is written back into the page's
draft on every run (``DatasetDraft.roles``, ``CandidateFile.roles``), so a new generation of editors
(``data.roles_gen``) loses nothing. A role chosen without its field name (``input field``, ``output of a
candidate``) gets the name it will use (``with_default_fields``): the editors are drawn again to show it.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd
import streamlit as st

from skynet_core.datasets import Role
from skynet_core.i18n import _
from skynet_core.views.data.role_editor import ROLE_CHOICES, changed_roles, editor_rows, with_default_fields
from ui import keys as K
from ui.widgets.text import md

S = st.session_state
Roles = dict[str, tuple[Role, str]] | None


def role_help() -> str:
    return _(
        "**input field**: `input[field]` · **expected field**: `expected[field]`, keyed like the output · "
        "**output**: the whole output to score (**output field** builds an object) · **object** roles: the cell is "
        "a JSON object holding every field · **observation**: the measured latency (ms) or cost (USD) · "
        "**candidate**, **split**, **id**: by name · **ignored**: not passed to the metric. Columns named like "
        "`question`, `answer`, `label` or `response` start with a guessed role: check it."
    )


def editor_key(name: str) -> str:
    """The key of a file's role editor in this generation of the draft and of its editors."""
    return f"data.roles.{S.get(K.DATA_GEN, 0)}.{S.get(K.DATA_ROLES_GEN, 0)}.{name}"


def roles_table(
    frame: pd.DataFrame, start: Mapping[str, tuple[Role, str]], chosen: Roles, *, key: str, file: str
) -> Roles:
    """The role of every column of ``file`` (``start``, with ``chosen`` on top) as an editable table, headed
    "Column roles of {file}"; returns the roles that differ from ``start`` as it now holds them."""
    columns = list(frame.columns)
    st.markdown("**" + _("Column roles of {file}").format(file=md(file)) + "**")
    edited: pd.DataFrame = st.data_editor(
        editor_rows(frame, {**start, **(chosen or {})}),
        key=editor_key(key),
        hide_index=True,
        num_rows="fixed",
        disabled=["column", "example"],
        height=min(38 + 35 * len(columns), 460),
        # Widths that fit the four columns in a candidate file's box at 1000 px, the first value last.
        column_config={
            "column": st.column_config.TextColumn(_("column"), width=130, pinned=True),
            "role": st.column_config.SelectboxColumn(
                _("role"),
                width=170,
                options=list(ROLE_CHOICES),
                format_func=lambda choice: _(str(choice)),
                required=True,
                help=_("What the column means to the metric."),
            ),
            "field": st.column_config.TextColumn(
                _("field name"),
                width=110,
                help=_(
                    "For the field roles: the key the metric reads, e.g. input['question']. Empty means the "
                    "column's name."
                ),
            ),
            "example": st.column_config.TextColumn(_("first value"), width="medium"),
        },
    )
    filled = with_default_fields(edited)
    if list(filled["field"]) != list(edited["field"]):
        S[K.DATA_ROLES_DIRTY] = True  # drawn again once every editor has written its roles back
    return changed_roles(filled, columns, start)


def show_default_fields() -> None:
    """After every editor has written its roles back: draw them again when one needs a field name shown."""
    if S.pop(K.DATA_ROLES_DIRTY, False):
        S[K.DATA_ROLES_GEN] = S.get(K.DATA_ROLES_GEN, 0) + 1
        st.rerun()
