"""Data: choose the cases metric.py is scored on, give each column a role, see the splits.

The dataset in use is stored (``studio.save_dataset_choice``). While the user sets
roles and adds candidate files, this page keeps a draft of the choice in the
session, and stores it only when "Use this dataset" loads it without an error, so
a mistake never replaces a working dataset and never loses the roles typed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
import streamlit as st

import studio
from skynet_core.datasets import (
    EXAMPLE_PATH,
    MAX_FILE_BYTES,
    CandidateFile,
    Dataset,
    DatasetError,
    Role,
    infer_roles,
    read_table,
    save_upload,
)
from skynet_core.datasets.role_editor import ROLE_CHOICES, cell_text, changed_roles, editor_rows
from skynet_core.paths import DATA_ROOTS_ENV, PathRefused, data_roots, server_path

studio.ensure_router()

S = st.session_state
FILE_TYPES = ["csv", "jsonl", "json", "parquet"]
PREVIEW_ROWS = 20
WIDE_COLUMNS = 100
ALL_SPLITS = "all"
SPLIT_RULE = (
    "Splits follow the Skynet planner: under 30 cases, all train; 30 to 79, 80% train and 20% val; 80 to 299, "
    "60/20/20 train/val/test; 300 or more, 60/20/20 with val capped at 200 and test at 500. A case's split "
    "depends only on its id, so it never changes between runs; a `split` column overrides the planner."
)
ROLE_HELP = (
    "**input field**: `input[field]` · **expected field**: `expected[field]`, keyed like the output · "
    "**output**: the whole output to score (**output field** builds an object) · **object** roles: the cell is a "
    "JSON object holding every field · **observation**: the measured latency (ms) or cost (USD) · "
    "**candidate**, **split**, **id**: by name · **ignored**: not passed to the metric."
)


@dataclass
class Draft:
    """The choice being set up: the main file, roles that differ from the inferred ones, candidate files."""

    path: str
    roles: dict[str, tuple[Role, str]] | None = None
    files: list[CandidateFile] = field(default_factory=list)
    main_candidate: str | None = None


@st.cache_resource(show_spinner="Reading the file…", max_entries=2)
def _table(path: str, mtime_ns: int) -> pd.DataFrame:
    return read_table(path)


def table(path: str) -> pd.DataFrame:
    """The file as a table (cached while it is unchanged). Raises DatasetError."""
    try:
        mtime_ns = Path(path).stat().st_mtime_ns
    except OSError:
        mtime_ns = 0  # read_table then says what is wrong with the path
    return _table(path, mtime_ns)


def new_draft(draft: Draft | None) -> None:
    S["data.draft"] = draft
    S["data.gen"] = S.get("data.gen", 0) + 1


def take_upload() -> None:
    upload = S.get("data.upload")
    if upload is None:
        return
    try:
        path = save_upload(upload.name, upload, studio.uploads_dir())
    except DatasetError as exc:
        S["data.upload_error"] = str(exc)
        return
    except OSError as exc:
        S["data.upload_error"] = (
            f"{upload.name} could not be saved in {studio.uploads_dir()} ({exc.strerror}). "
            "Check that the data directory is writable."
        )
        return
    S.pop("data.upload_error", None)
    new_draft(Draft(path=str(path)))


def open_path() -> None:
    typed = (S.get("data.path") or "").strip()
    S.pop("data.upload_error", None)
    if typed:
        try:
            new_draft(Draft(path=str(server_path(typed))))
        except PathRefused as exc:
            S["data.upload_error"] = str(exc)


def use_example() -> None:
    studio.save_dataset_choice(studio.EXAMPLE_SOURCE)
    S["data.flash"] = "Using the bundled example."


def add_candidate_file(draft: Draft) -> None:
    name = (S.get("data.new_name") or "").strip()
    upload = S.get(f"data.new_upload.{S.get('data.new_gen', 0)}")
    typed = (S.get("data.new_path") or "").strip()
    if not name:
        S["data.new_error"] = "Name the candidate whose outputs the file holds."
        return
    if name in (item.name for item in draft.files):
        S["data.new_error"] = f"A candidate file is already named {name!r}. Give each candidate its own name."
        return
    try:
        if upload is not None:
            path = str(save_upload(upload.name, upload, studio.uploads_dir()))
        elif typed:
            path = str(server_path(typed))
            table(path)  # says now, not at "Use this dataset", when the file cannot be read
        else:
            S["data.new_error"] = "Upload the candidate's file, or type its path on the server."
            return
    except (DatasetError, PathRefused) as exc:
        S["data.new_error"] = str(exc)
        return
    draft.files.append(CandidateFile(name=name, path=path))
    S.pop("data.new_error", None)
    S["data.new_name"] = S["data.new_path"] = ""
    S["data.new_gen"] = S.get("data.new_gen", 0) + 1


def remove_candidate_file(draft: Draft, index: int) -> None:
    del draft.files[index]


def save_candidate(token: str) -> None:
    studio.workspace().choose_cases(S[f"data.candidate.{token}"], studio.split())


def save_split(token: str) -> None:
    chosen = S[f"data.split.{token}"]
    studio.workspace().choose_cases(studio.in_use().candidate, None if chosen == ALL_SPLITS else chosen)


def apply(draft: Draft, edited: pd.DataFrame, columns: list[str]) -> None:
    """Load the draft with the edited roles; store it when it loads, else show why (keeping the edits)."""
    changed = changed_roles(edited, columns)
    main = (S.get(f"data.main.{S['data.gen']}") or "").strip() or None
    try:
        data = studio.load_choice(draft.path, changed, draft.files, main)
    except DatasetError as exc:
        st.error(studio.md(str(exc)), icon=":material/error:")
        return
    except OSError as exc:
        st.error(
            studio.md(f"{exc.filename or draft.path} could not be read ({exc.strerror or exc}).")
            + " Check the path, or upload the file again.",
            icon=":material/error:",
        )
        return
    studio.save_dataset_choice(draft.path, changed, draft.files, main)
    if studio.split() not in (None, *[name for name, count in data.split_counts().items() if count]):
        studio.workspace().choose_cases(studio.in_use().candidate, None)
    new_draft(Draft(path=draft.path, roles=changed, files=list(draft.files), main_candidate=main))
    S["data.flash"] = (
        f"Using {Path(draft.path).name}: {sum(data.split_counts().values()):,} cases × "
        f"{len(data.candidates)} candidate{'s' if len(data.candidates) != 1 else ''}."
    )
    st.rerun()


def draft_panel(draft: Draft) -> None:
    name = Path(draft.path).name
    try:
        frame = table(draft.path)
    except DatasetError as exc:
        st.error(studio.md(str(exc)), icon=":material/error:")
        return
    columns = [str(column) for column in frame.columns]
    st.markdown(f"#### {studio.md(name)}")
    st.caption(f"{studio.md(draft.path)} · {len(frame):,} {frame.index.name or 'row'}s · {len(columns):,} columns")
    if len(columns) >= WIDE_COLUMNS:
        st.info(
            f"This file has {len(columns):,} columns. Columns without a role prefix (input., expected., output, "
            "observation., id, split, candidate) start as ignored and are not passed to the metric; give a role "
            "only to the ones it needs.",
            icon=":material/view_column:",
        )
    preview = frame.head(PREVIEW_ROWS).copy()
    preview.columns = columns
    st.dataframe(preview.map(cell_text), height=min(38 + 35 * len(preview), 420))

    st.markdown("**Column roles**")
    st.caption(ROLE_HELP)
    roles = infer_roles(list(frame.columns))
    roles.update({column: role for column, role in (draft.roles or {}).items() if column in roles})
    edited = st.data_editor(
        editor_rows(frame, roles),
        key=f"data.roles.{S['data.gen']}",
        hide_index=True,
        num_rows="fixed",
        disabled=["column", "example"],
        height=min(38 + 35 * len(columns), 460),
        column_config={
            "column": st.column_config.TextColumn("column", width="medium", pinned=True),
            "role": st.column_config.SelectboxColumn(
                "role",
                width="medium",
                options=list(ROLE_CHOICES),
                required=True,
                help="What the column means to the metric.",
            ),
            "field": st.column_config.TextColumn(
                "field name",
                width="medium",
                help="For the field roles: the key the metric reads, e.g. "
                "input['question']. Empty means the column's name.",
            ),
            "example": st.column_config.TextColumn("first value", width="large"),
        },
    )

    candidate_files_panel(draft, name, has_candidate_column=any(role is Role.CANDIDATE for role, _ in roles.values()))
    if st.button("Use this dataset", type="primary", icon=":material/check:", key="data.apply"):
        apply(draft, edited, list(frame.columns))


def candidate_files_panel(draft: Draft, name: str, *, has_candidate_column: bool) -> None:
    st.markdown("**More candidates** · one file per candidate (optional)")
    st.caption(
        f"Another candidate's outputs for the same cases, joined to {name} by id. Each file needs an id "
        "column and an output column; its latency and cost are its own. Columns named as in "
        f"{name} get the same roles."
    )
    for index, item in enumerate(draft.files):
        cols = st.columns([2, 5, 1], vertical_alignment="center")
        cols[0].markdown(f"**{studio.md(item.name)}**")
        cols[1].caption(studio.md(item.path))
        cols[2].button(
            "Remove",
            key=f"data.remove.{index}.{item.name}",
            on_click=remove_candidate_file,
            args=(draft, index),
            icon=":material/delete:",
        )
    if draft.files and not has_candidate_column:
        S.setdefault(f"data.main.{S['data.gen']}", draft.main_candidate or Path(draft.path).stem)
        st.text_input(
            f"Candidate name of {name}",
            key=f"data.main.{S['data.gen']}",
            help="The name the Author and Reward trade-offs pages use for this file's outputs.",
        )
    with st.expander("Add a candidate file", expanded=bool(S.get("data.new_error"))):
        st.text_input("Candidate name", key="data.new_name", placeholder="e.g. large-careful")
        st.file_uploader("Upload its file", type=FILE_TYPES, key=f"data.new_upload.{S.get('data.new_gen', 0)}")
        st.text_input(
            "…or its path on the server",
            key="data.new_path",
            help="Only files in these folders: " + ", ".join(str(root) for root in data_roots()) + ".",
        )
        st.button("Add candidate", on_click=add_candidate_file, args=(draft,), icon=":material/add:")
        if S.get("data.new_error"):
            st.error(studio.md(S["data.new_error"]), icon=":material/error:")


def splits_panel(data: Dataset) -> None:
    counts = data.split_counts()
    st.subheader(f"Splits · {data.name}")
    cols = st.columns(max(len(counts), 3))
    for col, (split, count) in zip(cols, counts.items(), strict=False):
        col.metric(split, f"{count:,}")
    st.caption("This file's `split` column sets each case's split." if data.splits_from_column else SPLIT_RULE)

    st.subheader("What the Author page scores")
    chosen_candidate, chosen_split = studio.candidate(data), studio.split()
    left, right = st.columns(2)
    # Keyed by the dataset, so a new dataset's choices start from what is stored, with its own labels.
    token = f"{data.source}.{data.name}.{'.'.join(data.candidates)}.{'.'.join(f'{k}{v}' for k, v in counts.items())}"
    if data.candidates == [""]:
        left.selectbox("Candidate", ["(the only one)"], disabled=True, key="data.candidate_only")
    else:
        left.selectbox(
            "Candidate",
            data.candidates,
            index=data.candidates.index(chosen_candidate),
            key=f"data.candidate.{token}",
            on_change=save_candidate,
            args=(token,),
        )
    sizes = {ALL_SPLITS: sum(counts.values()), **counts}
    options = list(sizes)
    right.selectbox(
        "Split",
        options,
        index=options.index(chosen_split) if chosen_split in options else 0,
        format_func=lambda split: f"{split} ({sizes[split]:,} cases)",
        key=f"data.split.{token}",
        on_change=save_split,
        args=(token,),
    )
    count = len(studio.cases_in_use())
    st.caption(
        f"The Author page scores {count:,} cases: candidate {studio.md(chosen_candidate or '(the only one)')}, "
        f"split {studio.md(chosen_split or 'all')}."
    )


# The page.
data, problem = studio.dataset()
path, stored_roles, stored_files, stored_main = (
    studio.dataset_choice() if problem is None else (studio.EXAMPLE_SOURCE, None, [], None)
)
if "data.draft" not in S:
    S["data.draft"] = (
        None if path == studio.EXAMPLE_SOURCE else Draft(path, stored_roles, list(stored_files), stored_main)
    )
    S["data.gen"] = 0
    S["data.source"] = "The bundled example" if path == studio.EXAMPLE_SOURCE else "A file"

st.title("Data")
st.markdown(
    f"In use: **{studio.md(data.name)}** · {sum(data.split_counts().values()):,} cases × {len(data.candidates)} "
    f"candidate{'s' if len(data.candidates) != 1 else ''}"
)
if problem:
    st.warning(studio.md(problem), icon=":material/warning:")
if flash := S.pop("data.flash", None):
    st.success(flash, icon=":material/task_alt:")

source = st.radio("Cases from", ["The bundled example", "A file"], key="data.source", horizontal=True)
if source == "The bundled example":
    st.caption(
        f"{EXAMPLE_PATH.name}: 72 support tickets, each answered by three candidates (fast-small, balanced, "
        "large-careful) with their latency and cost."
    )
    st.dataframe(table(str(EXAMPLE_PATH)).head(PREVIEW_ROWS).map(cell_text), height=300)
    in_use = data.source == studio.EXAMPLE_SOURCE
    st.button(
        "Use the example",
        type="primary",
        on_click=use_example,
        disabled=in_use,
        icon=":material/check:",
        help="The example is the dataset in use." if in_use else None,
    )
else:
    upload_col, path_col = st.columns(2)
    upload_col.file_uploader(
        f"Upload a CSV, JSON Lines or Parquet file (up to {MAX_FILE_BYTES / 1e6:,.0f} MB)",
        type=FILE_TYPES,
        key="data.upload",
        on_change=take_upload,
        help="Kept in the studio's data folder, so the choice survives a restart.",
    )
    with path_col:
        st.text_input(
            "…or a file path on the server",
            key="data.path",
            placeholder="/data/cases.jsonl",
            help="Only files in these folders: "
            + ", ".join(str(root) for root in data_roots())
            + f". More: {DATA_ROOTS_ENV} in the server's environment.",
        )
        st.button("Open this file", on_click=open_path, icon=":material/folder_open:")
    if S.get("data.upload_error"):
        st.error(studio.md(S["data.upload_error"]), icon=":material/error:")
    if S["data.draft"] is not None:
        draft_panel(S["data.draft"])

st.divider()
splits_panel(data)
