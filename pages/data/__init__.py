"""Data: choose the cases metric.py is scored on, give each column a role, see the splits.

The dataset in use is stored in the workspace (``Workspace.data.save_choice``). While the user sets
roles and adds candidate files, this page keeps a draft of the choice in the session, and stores it only
when "Use this dataset" loads it without an error, so a mistake never replaces a working dataset and never
loses the roles typed. The draft's panel is ``draft.py``, the splits ``splits.py``.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from pages.data.candidates import FILE_TYPES, roots_help, table
from pages.data.draft import PREVIEW_ROWS, draw_draft, preview_frame, read_error
from pages.data.splits import draw_splits
from skynet_core.datasets import EXAMPLE_PATH, MAX_FILE_BYTES, Dataset, DatasetError, candidate_warnings
from skynet_core.human.label_words import matched_text
from skynet_core.i18n import _, format_number, language, ngettext, with_language
from skynet_core.paths import DATA_ROOTS_ENV, PathRefused, server_path
from skynet_core.views.data.preview import DatasetDraft
from skynet_core.workspace import EXAMPLE_SOURCE, Snapshot
from ui import keys as K
from ui import studio
from ui.widgets.messages import say, show
from ui.widgets.text import md, uploader_note

S = st.session_state
EXAMPLE, A_FILE = "example", "file"
MAX_UPLOAD_MB = MAX_FILE_BYTES // 1_000_000


@st.cache_data(show_spinner=False, max_entries=4)
def _data_warnings(source: str, identity: str, count: int, lang: str, _data: Dataset) -> list[str]:
    return [*_data.warnings, *candidate_warnings(_data)]


def data_warnings(data: Dataset) -> list[str]:
    """What the dataset in use loads with but may not be meant: twin ids, candidates with identical outputs
    (the same file added twice). Read once per dataset and language."""
    return _data_warnings(data.source, data.identity, len(data.cases), language(), data)


def new_draft(draft: DatasetDraft | None) -> None:
    S[K.DATA_DRAFT] = draft
    S[K.DATA_GEN] = S.get(K.DATA_GEN, 0) + 1


def refuse(message: str) -> None:
    """Show why a file was refused, and drop the previous draft so its panel does not stand under the new name."""
    S[K.DATA_UPLOAD_ERROR] = message
    new_draft(None)


def take_upload() -> None:
    upload = S.get(K.DATA_UPLOAD)
    if upload is None:
        return
    ws = studio.session().workspace
    try:
        path = ws.data.save_upload(upload.name, upload)
    except DatasetError as exc:
        refuse(str(exc))
        return
    except OSError as exc:
        refuse(
            _("{file} could not be saved in {folder} ({reason}). Check that the data directory is writable.").format(
                file=upload.name, folder=ws.data.uploads_dir(), reason=exc.strerror
            )
        )
        return
    S.pop(K.DATA_UPLOAD_ERROR, None)
    new_draft(opened(str(path)))


def opened(path: str) -> DatasetDraft:
    """A new draft of the file at ``path``, with the roles last used with its set of columns (the same file
    opened again, or another with the same columns), else the guess."""
    try:
        columns = [str(column) for column in table(path).columns]
    except DatasetError:
        return DatasetDraft(path=path)  # the draft's panel says why the file cannot be read
    return DatasetDraft(path=path, roles=studio.session().workspace.data.remembered_roles(columns))


def open_path() -> None:
    typed = (S.get(K.DATA_PATH) or "").strip()
    S.pop(K.DATA_UPLOAD_ERROR, None)
    if typed:
        try:
            new_draft(opened(str(server_path(typed))))
        except PathRefused as exc:
            refuse(str(exc))


def use_example() -> None:
    studio.session().workspace.data.save_choice(EXAMPLE_SOURCE)
    flash(_("Using the bundled example."))


def flash(message: str) -> None:
    """Say what is now in use, about the draft open now (its generation: another file opened ends it)."""
    say(K.DATA_FLASH, S.get(K.DATA_GEN, 0), message)


def said() -> None:
    """The message of the last "Use this dataset" or "Use the example", drawn beside the button that caused it."""
    show(K.DATA_FLASH, S.get(K.DATA_GEN, 0), icon=":material/task_alt:")


def cases_text(cases: int, candidates: int) -> str:
    return ngettext("{cases} × {count} candidate", "{cases} × {count} candidates", candidates).format(
        cases=ngettext("{count} case", "{count} cases", cases).format(count=format_number(cases)), count=candidates
    )


def apply(draft: DatasetDraft) -> None:
    """Load the draft with the roles set; store it when it loads, else show why (keeping the edits)."""
    main = (S.get(K.data_main(S[K.DATA_GEN])) or "").strip() or None
    ws = studio.session().workspace
    try:
        with st.spinner(_("Loading the cases…")):
            data = ws.data.load(draft.path, draft.roles, tuple(draft.files), main)
    except (DatasetError, OSError) as exc:
        st.error(md(read_error(exc, draft.path)), icon=":material/error:")
        return
    columns = [str(column) for column in table(draft.path).columns]
    ws.data.save_choice(draft.path, draft.roles, draft.files, main, columns=columns)
    split = ws.data.choice().split
    if split not in (None, *[name for name, count in data.split_counts().items() if count]):
        ws.data.choose_cases(ws.data.in_use().candidate, None)
    new_draft(DatasetDraft(path=draft.path, roles=draft.roles, files=list(draft.files), main_candidate=main))
    message = _("Using {file}: {cases}.").format(
        file=md(Path(draft.path).name), cases=cases_text(sum(data.split_counts().values()), len(data.candidates))
    )
    labels = ws.human.labels(draft.path)
    if labels.stored():
        message += " " + md(matched_text(labels))
    flash(message)
    st.rerun()


def file_source() -> None:
    upload_col, path_col = st.columns(2)
    upload_col.file_uploader(
        _("Upload a CSV, JSON Lines or Parquet file (up to {size} MB)").format(size=format_number(MAX_UPLOAD_MB)),
        type=FILE_TYPES,
        key=K.DATA_UPLOAD,
        on_change=with_language(take_upload),
        max_upload_size=MAX_UPLOAD_MB,
        help=_("Kept in the studio's data folder, so the choice survives a restart."),
    )
    with upload_col:
        uploader_note(MAX_UPLOAD_MB)
    with path_col:
        st.text_input(
            _("…or a file path on the server"),
            key=K.DATA_PATH,
            placeholder=_("e.g. /data/cases.jsonl"),
            help=_("{folders} More: `{variable}` in the server's environment.").format(
                folders=roots_help(), variable=DATA_ROOTS_ENV
            ),
        )
        st.button(_("Open this file"), on_click=with_language(open_path), icon=":material/folder_open:")
    if S.get(K.DATA_UPLOAD_ERROR):
        st.error(md(S[K.DATA_UPLOAD_ERROR]), icon=":material/error:")
    draft = S[K.DATA_DRAFT]
    if draft is None:
        return
    try:
        frame = table(draft.path)
    except DatasetError as exc:
        st.error(md(str(exc)), icon=":material/error:")
        return
    draw_draft(draft, frame, on_apply=apply, beside=said)


def remember_choice(snap: Snapshot) -> None:
    """Start the page's state from the dataset in use: on the first visit, and on a revisit (Streamlit drops a
    widget's state when its page is left: the source picker then says again what is in use)."""
    in_use = snap.in_use
    path = in_use.data.source if not in_use.problem else EXAMPLE_SOURCE
    if K.DATA_DRAFT not in S:
        choice = studio.session().workspace.data.choice() if path != EXAMPLE_SOURCE else None
        S[K.DATA_DRAFT] = (
            None
            if choice is None
            else DatasetDraft(choice.path, choice.roles, list(choice.candidate_files), choice.main_candidate)
        )
        S[K.DATA_GEN] = 0
    if K.DATA_SOURCE not in S:  # a first visit or a revisit: what was said on the last visit is old news
        S[K.DATA_SOURCE] = EXAMPLE if path == EXAMPLE_SOURCE else A_FILE
        S.pop(K.DATA_FLASH, None)


def page() -> None:
    snap = studio.snapshot()
    remember_choice(snap)
    data, problem = snap.in_use.data, snap.in_use.problem
    st.title(_("Data"))
    counts = cases_text(sum(data.split_counts().values()), len(data.candidates))
    st.markdown(_("In use: **{name}** · {cases}").format(name=md(data.name), cases=counts))
    if problem:
        st.warning(md(problem), icon=":material/warning:")
    for warning in data_warnings(data):
        st.warning(md(warning), icon=":material/warning:")
    source = st.radio(
        _("Cases from"),
        [EXAMPLE, A_FILE],
        format_func=lambda choice: _("The bundled example") if choice == EXAMPLE else _("A file"),
        key=K.DATA_SOURCE,
        horizontal=True,
    )
    if source == EXAMPLE:
        example_source(data.source == EXAMPLE_SOURCE)
    else:
        file_source()
    st.divider()
    opened = S[K.DATA_DRAFT]
    elsewhere = source == A_FILE and opened is not None and opened.path != data.source
    draw_splits(snap, Path(opened.path).name if elsewhere else None)


def example_source(in_use: bool) -> None:
    st.caption(
        _(
            "{file}: 72 support tickets, each answered by three candidates (fast-small, balanced, large-careful) "
            "with their latency and cost."
        ).format(file=EXAMPLE_PATH.name)
    )
    st.dataframe(preview_frame(table(str(EXAMPLE_PATH)).head(PREVIEW_ROWS)), height=300)
    with st.container(horizontal=True, vertical_alignment="center"):
        st.button(
            _("Use the example"),
            type="primary",
            on_click=with_language(use_example),
            disabled=in_use,
            icon=":material/check:",
            help=_("The example is the dataset in use.") if in_use else None,
        )
        said()
