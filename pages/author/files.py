"""The metric folder's files on the Author page: a tab per file (when there is more than metric.py), and the
Files popover that adds, renames and deletes one (the folder before a deletion is kept as a version)."""

from __future__ import annotations

import streamlit as st

from skynet_core.i18n import _, with_language
from skynet_core.metric.source import MAIN_FILE, MetricSource, MetricSourceError, check_name
from ui import keys as K
from ui import studio

S = st.session_state
FILE = K.AUTHOR_FILE


def current_file(metric: MetricSource) -> str:
    """The file the editor shows (metric.py when the one chosen is gone)."""
    name = S.get(FILE, MAIN_FILE)
    return name if name in metric.files else MAIN_FILE


def _set_file(name: str) -> None:
    S[FILE] = name


def _add_file(metric: MetricSource) -> None:
    try:
        name = check_name((S.get(K.AUTHOR_NEW_FILE) or "").strip())
        if name in metric.files:
            raise MetricSourceError(
                _("{name} already exists in the metric folder. Choose another name.").format(name=name)
            )
        changed = metric.with_file(name, "")
    except MetricSourceError as exc:
        S[K.AUTHOR_FILES_ERROR] = str(exc)
        return
    _write(changed, _("adding {name}").format(name=name), keep=False)
    S[FILE] = name


def _rename_file(metric: MetricSource, old: str) -> None:
    new = (S.get(K.AUTHOR_RENAME_TO) or "").strip()
    try:
        changed = metric.renamed(old, new)
    except MetricSourceError as exc:
        S[K.AUTHOR_FILES_ERROR] = str(exc)
        return
    _write(changed, _("renaming {name}").format(name=old), keep=False)
    S[FILE] = next(key for key in changed.files if key not in metric.files)


def _delete_file(metric: MetricSource, name: str) -> None:
    _write(metric.without_file(name), _("deleting {name}").format(name=name))
    S[FILE] = MAIN_FILE


def _write(metric: MetricSource, reason: str, *, keep: bool = True) -> None:
    S.pop(K.AUTHOR_FILES_ERROR, None)
    kept = studio.session().replace_draft(metric, reason, keep=keep)
    if kept is not None:
        st.toast(
            _("The folder before {reason} was kept as version “{name}”.").format(reason=reason, name=kept.name),
            icon=":material/save:",
        )


def file_tabs(metric: MetricSource) -> str:
    """The folder's files as tabs (only when there is more than metric.py), and the file tools."""
    file = current_file(metric)
    row = st.container(horizontal=True, vertical_alignment="bottom")
    if not metric.is_single_file:
        with row:
            for name in metric.files:
                st.button(
                    name,
                    key=f"author.tab.{name}",
                    on_click=with_language(_set_file),
                    args=(name,),
                    type="primary" if name == file else "secondary",
                )
    with row, st.popover(_("Files"), icon=":material/folder:"):
        st.caption(_("A metric is a folder: metric.py may import helper modules and read small data files beside it."))
        st.text_input(_("New file"), placeholder="helpers.py", key=K.AUTHOR_NEW_FILE)
        st.button(_("Add the file"), on_click=with_language(_add_file), args=(metric,), icon=":material/note_add:")
        if file != MAIN_FILE:
            st.divider()
            st.text_input(_("Rename {file} to").format(file=file), key=K.AUTHOR_RENAME_TO)
            st.button(_("Rename"), on_click=with_language(_rename_file), args=(metric, file))
            st.button(
                _("Delete {file}").format(file=file),
                on_click=with_language(_delete_file),
                args=(metric, file),
                icon=":material/delete:",
                help=_("The folder before the deletion is kept as a version."),
            )
    if error := S.get(K.AUTHOR_FILES_ERROR):
        st.error(error)
    return file
