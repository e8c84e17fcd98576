"""The Author page's tool row: the example picker, the timeout, the candidate and split, upload and download."""

from __future__ import annotations

import streamlit as st
from streamlit.runtime.uploaded_file_manager import UploadedFile

from skynet_core.examples import EXAMPLE_METRICS, FieldFit, apply_field_mapping, example_fields, fit_fields
from skynet_core.i18n import N_, _, ngettext, with_language
from skynet_core.metric.archive import read_zip
from skynet_core.metric.contract import MAX_TIMEOUT_S, MIN_TIMEOUT_S
from skynet_core.metric.source import MAIN_FILE, MetricSource, MetricSourceError
from skynet_core.views.author import example_shown
from skynet_core.workspace import Snapshot, example_metric
from ui import keys as K
from ui import studio
from ui.widgets.messages import said, say, show
from ui.widgets.text import md, uploader_note

S = st.session_state
# The bundled examples' titles (keys of EXAMPLE_METRICS), marked for translation where the picker shows them.
EXAMPLE_TITLES = (N_("Exact match"), N_("Several checks (JSON)"), N_("Model as judge"), N_("Accuracy, speed and cost"))


def replace_source(new: MetricSource, reason: str) -> None:
    """Make ``new`` the draft; the current text is kept as a saved version first."""
    version = studio.session().replace_draft(new, reason)
    if version is not None:
        st.toast(
            _("Your previous text was kept as version “{name}”.").format(name=version.name), icon=":material/save:"
        )


def load_example() -> None:
    me = studio.session()
    title = S.get(K.AUTHOR_EXAMPLE)
    if title in EXAMPLE_METRICS:  # a picker can send back a label of an earlier language
        replace_source(example_metric(title), _("example {title}").format(title=title))
        S[K.AUTHOR_EXAMPLE_FIELDS] = (title, me.own_revision)


def map_fields(title: str, fit: FieldFit) -> None:
    """Write the fields the data has into the example's keys (the text it replaces becomes a version first)."""
    me = studio.session()
    metric = me.workspace.drafts.current().metric
    mapped = apply_field_mapping(metric.main, fit.mapping)
    replace_source(metric.with_file(MAIN_FILE, mapped), _("mapping the fields of {title}").format(title=title))
    S[K.AUTHOR_EXAMPLE_FIELDS] = (title, me.own_revision)


def fields_notice(snap: Snapshot) -> None:
    """While the draft is the example just loaded: the fields it reads that the cases in use lack, and "Map"."""
    loaded = S.get(K.AUTHOR_EXAMPLE_FIELDS)
    if not loaded or loaded[1] != snap.draft.revision or loaded[0] not in EXAMPLE_METRICS:
        return
    fit = fit_fields(example_fields(loaded[0]), snap.cases)
    if fit.ok:
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        st.warning(md(fit.message), icon=":material/join_inner:")
        st.button(
            _("Map"),
            on_click=with_language(map_fields),
            args=(loaded[0], fit),
            disabled=not any(fit.mapping.values()),
            icon=":material/arrow_forward:",
            key="author.map_fields",
            help=_("Rewrites the keys metric.py reads as shown; your current text is kept as a saved version."),
        )


def take_new_upload() -> bool:
    """Take the uploaded file once (by its file id), at the start of the page's run; whether it was taken.

    Not the uploader's ``on_change``: Streamlit skips a widget's callback when the rerun carrying its new value
    meets the editor's polling fragment (:func:`pages.author.editor.newer_draft_notice`), and the file then sat in
    the uploader without replacing the draft (about 1 upload in 8 with the fragment polling every 0.15 s)."""
    upload = S.get(K.AUTHOR_UPLOAD)
    if upload is None or S.get(K.AUTHOR_UPLOAD_TAKEN) == upload.file_id:
        return False
    S[K.AUTHOR_UPLOAD_TAKEN] = upload.file_id
    take_upload(upload)
    return True


def take_upload(upload: UploadedFile) -> None:
    """A .py replaces metric.py (helper files stay); a .zip of the folder replaces the whole folder."""
    raw = upload.getvalue()
    try:
        if upload.name.lower().endswith(".zip"):
            new = read_zip(raw)
        else:
            draft = studio.session().workspace.drafts.current().metric
            new = draft.with_file("metric.py", raw.decode("utf-8").removeprefix("\ufeff"))
    except UnicodeDecodeError as exc:
        S[K.AUTHOR_UPLOAD_ERROR] = _(
            "{name} is not UTF-8 text ({reason} at byte {byte}); save it as UTF-8 in your editor and upload it "
            "again. The editor was not changed."
        ).format(name=upload.name, reason=exc.reason, byte=exc.start)
        return
    except MetricSourceError as exc:
        S[K.AUTHOR_UPLOAD_ERROR] = _("{problem} The editor was not changed.").format(problem=exc)
        return
    S.pop(K.AUTHOR_UPLOAD_ERROR, None)
    me = studio.session()
    kept = me.replace_draft(new, _("upload of {name}").format(name=upload.name))
    message = ngettext("Loaded {name}: the metric folder has {count} file.",
                       "Loaded {name}: the metric folder has {count} files.", len(new.files)).format(
        name=upload.name, count=len(new.files))  # fmt: skip
    if kept is not None:
        message += " " + _("Your previous text was kept as version “{name}”.").format(name=kept.name)
    say(K.AUTHOR_UPLOAD_DONE, me.own_revision, md(message))


def choose_candidate() -> None:
    ws = studio.session().workspace
    ws.data.choose_cases(S[K.AUTHOR_CANDIDATE], ws.data.choice().split)


def choose_split() -> None:
    ws = studio.session().workspace
    ws.data.choose_cases(ws.data.in_use().candidate, S[K.AUTHOR_SPLIT] or None)


def set_timeout() -> None:
    studio.session().workspace.settings.set_timeout_s(S[K.AUTHOR_TIMEOUT])


def tools(snap: Snapshot) -> None:
    """The example picker (a neutral placeholder unless the editor holds an example), Load, timeout, download."""
    metric, revision, in_use = snap.metric, snap.draft.revision, snap.in_use
    if S.get(K.AUTHOR_EXAMPLE_REV) != revision:  # a new text: the picker says which example it is, if any
        S[K.AUTHOR_EXAMPLE_REV] = revision
        S[K.AUTHOR_EXAMPLE] = example_shown(metric.main, {t: p.read_text() for t, p in EXAMPLE_METRICS.items()})
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.selectbox(
            _("Start from an example"),
            list(EXAMPLE_METRICS),
            index=None,
            placeholder=_("choose an example"),
            format_func=_,
            key=K.AUTHOR_EXAMPLE,
            width=260,
        )
        st.button(
            _("Load"),
            on_click=with_language(load_example),
            icon=":material/file_open:",
            disabled=not S.get(K.AUTHOR_EXAMPLE),
            help=_("Replaces the editor's text with the example; your current text is kept as a saved version."),
        )
        S[K.AUTHOR_TIMEOUT] = int(round(snap.timeout_s))  # follows the stored setting (Settings may change it)
        st.number_input(
            _("Timeout per call (s)"),
            min_value=int(MIN_TIMEOUT_S),
            max_value=int(MAX_TIMEOUT_S),
            step=1,
            key=K.AUTHOR_TIMEOUT,
            on_change=with_language(set_timeout),
            help=_("Each call of score (and loading metric.py) is stopped after this many seconds."),
            width=170,
        )
        data = in_use.data
        if len(data.candidates) > 1:
            st.selectbox(
                _("Candidate"),
                data.candidates,
                index=data.candidates.index(in_use.candidate),
                key=K.AUTHOR_CANDIDATE,
                on_change=with_language(choose_candidate),
                width=200,
            )
        splits = ["", *[name for name, count in data.split_counts().items() if count]]
        st.selectbox(
            _("Split"),
            splits,
            index=splits.index(in_use.split or "") if (in_use.split or "") in splits else 0,
            format_func=lambda name: name or _("all"),  # choose_cases keeps only a split the data has
            key=K.AUTHOR_SPLIT,
            on_change=with_language(choose_split),
            width=140,
        )
        downloads(metric)


def downloads(metric: MetricSource) -> None:
    if metric.is_single_file:
        data, name, mime, label = metric.main.encode("utf-8"), "metric.py", "text/x-python", _("Download")
    else:
        data, name, mime, label = metric.to_zip(), "metric.zip", "application/zip", _("Download (.zip)")
    st.download_button(label, data=data, file_name=name, mime=mime, on_click="ignore", icon=":material/download:")


def upload(revision: int) -> None:
    """The upload of metric.py or a zip of the folder; what it did (or why not) under it, while the draft is the
    one it made (``revision``).

    The panel is drawn open while it has that to say: an upload's outcome is read where the file was dropped,
    even when the panel was folded meanwhile (a browser test saw an open panel fold while the editor's polling
    and the check's verdict redrew the page on a busy machine, with the message hidden inside)."""
    outcome = bool(S.get(K.AUTHOR_UPLOAD_ERROR)) or said(K.AUTHOR_UPLOAD_DONE, revision) is not None
    with st.expander(_("Upload metric.py or a .zip of the metric folder"), expanded=outcome):
        st.file_uploader(
            _("A UTF-8 Python file, or a zip of the folder"),
            type=["py", "zip"],
            key=K.AUTHOR_UPLOAD,
        )
        uploader_note()
        if S.get(K.AUTHOR_UPLOAD_ERROR):
            st.error(md(S[K.AUTHOR_UPLOAD_ERROR]))
        else:
            show(K.AUTHOR_UPLOAD_DONE, revision, icon=":material/task_alt:")
