"""The Data page's candidate files: more candidates' outputs in files of their own, joined to the main file by id,
each with its own role editor; adding and removing them. They stay in the page's draft until "Use this dataset"."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pandas as pd
import streamlit as st

from pages.data.roles import roles_table
from skynet_core.datasets import CandidateFile, DatasetError, Role, candidate_file_roles, read_table
from skynet_core.i18n import _, with_language
from skynet_core.paths import PathRefused, data_roots, server_path
from skynet_core.views.data.preview import DatasetDraft
from ui import keys as K
from ui import studio
from ui.widgets.text import md, uploader_note

S = st.session_state
FILE_TYPES = ["csv", "jsonl", "json", "parquet"]
Roles = dict[str, tuple[Role, str]] | None


@st.cache_resource(show_spinner=False, max_entries=4)
def _table(path: str, mtime_ns: int) -> pd.DataFrame:
    return read_table(path)


def table(path: str) -> pd.DataFrame:
    """The file as a table (cached while it is unchanged). Raises DatasetError."""
    try:
        mtime_ns = Path(path).stat().st_mtime_ns
    except OSError:
        mtime_ns = 0  # read_table then says what is wrong with the path
    with st.spinner(_("Reading the file…")):
        return _table(path, mtime_ns)


def roots_help() -> str:
    return _("Only files in these folders: {folders}.").format(folders=", ".join(str(r) for r in data_roots()))


def add_candidate_file(draft: DatasetDraft) -> None:
    me = studio.session()  # first: the callback's messages are in the page's language
    name = (S.get(K.DATA_NEW_NAME) or "").strip()
    upload = S.get(K.data_new_upload(S.get(K.DATA_NEW_GEN, 0)))
    typed = (S.get(K.DATA_NEW_PATH) or "").strip()
    if not name:
        S[K.DATA_NEW_ERROR] = _("Name the candidate whose outputs the file holds.")
        return
    if name in (item.name for item in draft.files):
        S[K.DATA_NEW_ERROR] = _("A candidate file is already named “{name}”. Give each candidate its own name.").format(
            name=name
        )
        return
    try:
        if upload is not None:
            path = str(me.workspace.data.save_upload(upload.name, upload))
        elif typed:
            path = str(server_path(typed))
            table(path)  # says now, not at "Use this dataset", when the file cannot be read
        else:
            S[K.DATA_NEW_ERROR] = _("Upload the candidate's file, or type its path on the server.")
            return
    except (DatasetError, PathRefused) as exc:
        S[K.DATA_NEW_ERROR] = str(exc)
        return
    draft.files.append(CandidateFile(name=name, path=path))
    S.pop(K.DATA_NEW_ERROR, None)
    S[K.DATA_NEW_NAME] = S[K.DATA_NEW_PATH] = ""
    S[K.DATA_NEW_GEN] = S.get(K.DATA_NEW_GEN, 0) + 1


def remove_candidate_file(draft: DatasetDraft, index: int) -> None:
    del draft.files[index]
    S[K.DATA_ROLES_GEN] = S.get(K.DATA_ROLES_GEN, 0) + 1  # the editors below it move up: new ones


def candidate_roles(draft: DatasetDraft, index: int, main_roles: Roles) -> None:
    """The role editor of candidate file ``index``; what it holds is written back into the draft."""
    item = draft.files[index]
    try:
        frame = table(item.path)
    except DatasetError as exc:
        st.error(md(str(exc)), icon=":material/error:")
        return
    start = candidate_file_roles(list(frame.columns), item.name, main_roles)
    chosen = {column: role for column, role in (item.roles or {}).items() if column in start} or None
    roles = roles_table(frame, start, chosen, key=f"{index}.{item.name}", file=Path(item.path).name)
    draft.files[index] = dataclasses.replace(item, roles=roles)


def candidate_files_panel(draft: DatasetDraft, name: str, *, names_candidates: bool, main_roles: Roles) -> None:
    """The candidate files of ``draft`` (each with its role editor), the main file's candidate name, and "Add".
    ``names_candidates``: the main file's columns name its candidates (a candidate column, or one output column
    per candidate), so it has no one name to give."""
    st.markdown(_("**More candidates** · one file per candidate (optional)"))
    st.caption(
        _(
            "Another candidate's outputs for the same cases, joined to {name} by id. Each file needs an id column "
            "and an output column; its latency and cost are its own. Columns named as in {name} get the same roles."
        ).format(name=md(name))
    )
    for index, item in enumerate(draft.files):
        with st.container(border=True):
            cols = st.columns([2, 5, 2], vertical_alignment="center")
            cols[0].markdown(f"**{md(item.name)}**")
            cols[1].caption(md(item.path))
            cols[2].button(
                _("Remove"),
                key=f"data.remove.{index}.{item.name}",
                on_click=with_language(remove_candidate_file),
                args=(draft, index),
                icon=":material/delete:",
            )
            candidate_roles(draft, index, main_roles)
    if draft.files and not names_candidates:
        S.setdefault(K.data_main(S[K.DATA_GEN]), draft.main_candidate or Path(draft.path).stem)
        st.text_input(
            _("Candidate name of {name}").format(name=name),
            key=K.data_main(S[K.DATA_GEN]),
            help=_("The name the Author and Reward trade-offs pages use for this file's outputs."),
        )
    with st.expander(_("Add a candidate file"), expanded=bool(S.get(K.DATA_NEW_ERROR))):
        st.text_input(_("Candidate name"), key=K.DATA_NEW_NAME, placeholder=_("e.g. large-careful"))
        st.file_uploader(_("Upload its file"), type=FILE_TYPES, key=K.data_new_upload(S.get(K.DATA_NEW_GEN, 0)))
        uploader_note()
        st.text_input(_("…or its path on the server"), key=K.DATA_NEW_PATH, help=roots_help())
        st.button(_("Add candidate"), on_click=with_language(add_candidate_file), args=(draft,), icon=":material/add:")
        if S.get(K.DATA_NEW_ERROR):
            st.error(md(S[K.DATA_NEW_ERROR]), icon=":material/error:")
