"""Data: choose the cases metric.py is scored on, give each column a role, see the splits.

The dataset in use is stored (``studio.save_dataset_choice``). While the user sets
roles and adds candidate files, this page keeps a draft of the choice in the
session, and stores it only when "Use this dataset" loads it without an error, so
a mistake never replaces a working dataset and never loses the roles typed. The
draft's panel is drawn by ``panels/data_draft.py``, the splits by ``panels/data_splits.py``.
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import streamlit as st

import studio
from panels.data_draft import FILE_TYPES, PREVIEW_ROWS, draw_draft, read_error, roots_help
from panels.data_splits import draw_splits
from skynet_core.datasets import EXAMPLE_PATH, MAX_FILE_BYTES, CandidateFile, DatasetError, read_table, save_upload
from skynet_core.datasets.preview import DatasetDraft
from skynet_core.datasets.role_editor import cell_text, changed_roles
from skynet_core.i18n import _, format_number, ngettext
from skynet_core.paths import DATA_ROOTS_ENV, PathRefused, server_path

studio.ensure_router()

S = st.session_state
EXAMPLE, A_FILE = "example", "file"
MAX_UPLOAD_MB = MAX_FILE_BYTES // 1_000_000


@st.cache_resource(show_spinner=False, max_entries=2)
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


def new_draft(draft: DatasetDraft | None) -> None:
    S["data.draft"] = draft
    S["data.gen"] = S.get("data.gen", 0) + 1


def refuse(message: str) -> None:
    """Show why a file was refused, and drop the previous draft so its panel does not stand under the new name."""
    S["data.upload_error"] = message
    new_draft(None)


def take_upload() -> None:
    upload = S.get("data.upload")
    if upload is None:
        return
    try:
        path = save_upload(upload.name, upload, studio.uploads_dir())
    except DatasetError as exc:
        refuse(str(exc))
        return
    except OSError as exc:
        refuse(
            _("{file} could not be saved in {folder} ({reason}). Check that the data directory is writable.").format(
                file=upload.name, folder=studio.uploads_dir(), reason=exc.strerror
            )
        )
        return
    S.pop("data.upload_error", None)
    new_draft(DatasetDraft(path=str(path)))


def open_path() -> None:
    typed = (S.get("data.path") or "").strip()
    S.pop("data.upload_error", None)
    if typed:
        try:
            new_draft(DatasetDraft(path=str(server_path(typed))))
        except PathRefused as exc:
            refuse(str(exc))


def use_example() -> None:
    studio.save_dataset_choice(studio.EXAMPLE_SOURCE)
    S["data.flash"] = _("Using the bundled example.")


def add_candidate_file(draft: DatasetDraft) -> None:
    name = (S.get("data.new_name") or "").strip()
    upload = S.get(f"data.new_upload.{S.get('data.new_gen', 0)}")
    typed = (S.get("data.new_path") or "").strip()
    if not name:
        S["data.new_error"] = _("Name the candidate whose outputs the file holds.")
        return
    if name in (item.name for item in draft.files):
        S["data.new_error"] = _("A candidate file is already named “{name}”. Give each candidate its own name.").format(
            name=name
        )
        return
    try:
        if upload is not None:
            path = str(save_upload(upload.name, upload, studio.uploads_dir()))
        elif typed:
            path = str(server_path(typed))
            table(path)  # says now, not at "Use this dataset", when the file cannot be read
        else:
            S["data.new_error"] = _("Upload the candidate's file, or type its path on the server.")
            return
    except (DatasetError, PathRefused) as exc:
        S["data.new_error"] = str(exc)
        return
    draft.files.append(CandidateFile(name=name, path=path))
    S.pop("data.new_error", None)
    S["data.new_name"] = S["data.new_path"] = ""
    S["data.new_gen"] = S.get("data.new_gen", 0) + 1


def remove_candidate_file(draft: DatasetDraft, index: int) -> None:
    del draft.files[index]


def cases_text(cases: int, candidates: int) -> str:
    return ngettext("{cases} × {count} candidate", "{cases} × {count} candidates", candidates).format(
        cases=ngettext("{count} case", "{count} cases", cases).format(count=format_number(cases)), count=candidates
    )


def apply(draft: DatasetDraft, edited: pd.DataFrame, columns: list[str]) -> None:
    """Load the draft with the edited roles; store it when it loads, else show why (keeping the edits)."""
    changed = changed_roles(edited, columns)
    main = (S.get(f"data.main.{S['data.gen']}") or "").strip() or None
    try:
        data = studio.load_choice(draft.path, changed, draft.files, main)
    except (DatasetError, OSError) as exc:
        st.error(studio.md(read_error(exc, draft.path)), icon=":material/error:")
        return
    studio.save_dataset_choice(draft.path, changed, draft.files, main)
    if studio.split() not in (None, *[name for name, count in data.split_counts().items() if count]):
        studio.workspace().choose_cases(studio.in_use().candidate, None)
    new_draft(DatasetDraft(path=draft.path, roles=changed, files=list(draft.files), main_candidate=main))
    S["data.flash"] = _("Using {file}: {cases}.").format(
        file=Path(draft.path).name, cases=cases_text(sum(data.split_counts().values()), len(data.candidates))
    )
    st.rerun()


def file_source() -> None:
    upload_col, path_col = st.columns(2)
    upload_col.file_uploader(
        _("Upload a CSV, JSON Lines or Parquet file (up to {size} MB)").format(size=format_number(MAX_UPLOAD_MB)),
        type=FILE_TYPES,
        key="data.upload",
        on_change=take_upload,
        max_upload_size=MAX_UPLOAD_MB,
        help=_("Kept in the studio's data folder, so the choice survives a restart."),
    )
    with path_col:
        st.text_input(
            _("…or a file path on the server"),
            key="data.path",
            placeholder=_("e.g. /data/cases.jsonl"),
            help=_("{folders} More: `{variable}` in the server's environment.").format(
                folders=roots_help(), variable=DATA_ROOTS_ENV
            ),
        )
        st.button(_("Open this file"), on_click=open_path, icon=":material/folder_open:")
    if S.get("data.upload_error"):
        st.error(studio.md(S["data.upload_error"]), icon=":material/error:")
    draft = S["data.draft"]
    if draft is None:
        return
    try:
        frame = table(draft.path)
    except DatasetError as exc:
        st.error(studio.md(str(exc)), icon=":material/error:")
        return
    draw_draft(draft, frame, on_apply=apply, on_add=add_candidate_file, on_remove=remove_candidate_file)


# The page.
data, problem = studio.dataset()
path, stored_roles, stored_files, stored_main = (
    studio.dataset_choice() if problem is None else (studio.EXAMPLE_SOURCE, None, [], None)
)
if "data.draft" not in S:
    S["data.draft"] = (
        None if path == studio.EXAMPLE_SOURCE else DatasetDraft(path, stored_roles, list(stored_files), stored_main)
    )
    S["data.gen"] = 0
    S["data.source"] = EXAMPLE if path == studio.EXAMPLE_SOURCE else A_FILE

st.title(_("Data"))
st.markdown(
    _("In use: **{name}** · {cases}").format(
        name=studio.md(data.name), cases=cases_text(sum(data.split_counts().values()), len(data.candidates))
    )
)
if problem:
    st.warning(studio.md(problem), icon=":material/warning:")
if flash := S.pop("data.flash", None):
    st.success(flash, icon=":material/task_alt:")

source = st.radio(
    _("Cases from"),
    [EXAMPLE, A_FILE],
    format_func=lambda choice: _("The bundled example") if choice == EXAMPLE else _("A file"),
    key="data.source",
    horizontal=True,
)
if source == EXAMPLE:
    st.caption(
        _(
            "{file}: 72 support tickets, each answered by three candidates (fast-small, balanced, large-careful) "
            "with their latency and cost."
        ).format(file=EXAMPLE_PATH.name)
    )
    st.dataframe(table(str(EXAMPLE_PATH)).head(PREVIEW_ROWS).map(cell_text), height=300)
    in_use = data.source == studio.EXAMPLE_SOURCE
    st.button(
        _("Use the example"),
        type="primary",
        on_click=use_example,
        disabled=in_use,
        icon=":material/check:",
        help=_("The example is the dataset in use.") if in_use else None,
    )
else:
    file_source()

st.divider()
opened = S["data.draft"]
draw_splits(
    data,
    Path(opened.path).name if source == A_FILE and opened is not None and opened.path != data.source else None,
)
