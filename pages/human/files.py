"""Label files in and out (CSV or JSON Lines with ``id``, ``human`` and optional ``candidate``, ``note``, ``rater``),
the imports kept and a rater's labels (each deletable), and two raters' agreement: the ceiling a metric can be
expected to reach. What an import or a deletion did is said beside its button."""

from __future__ import annotations

from functools import partial

import streamlit as st

from skynet_core.human import HumanLabels, LabelError, estimate_text, rater_label, raters_table
from skynet_core.human.label_words import import_line, imported_text, matched_text
from skynet_core.i18n import _, format_number, ngettext, with_language
from skynet_core.workspace import DatasetInUse
from ui import keys as K
from ui import studio
from ui.widgets.messages import say, show
from ui.widgets.text import md, uploader_note

S = st.session_state
SHOWN = 200
IMPORTS_SHOWN = 5


def import_file() -> None:
    """Keep the scores of the file chosen (all or none) and say what was kept, or what is wrong and where."""
    upload = S.get(K.HUMAN_UPLOAD)
    if upload is None:
        say(K.HUMAN_FLASH, None, md(_("Choose a labels file first.")), "error")
        return
    ws = studio.session().workspace
    try:
        found = ws.human.import_scores(upload.name, upload.getvalue(), rater=str(S.get(K.HUMAN_UPLOAD_RATER) or ""))
    except LabelError as exc:
        say(K.HUMAN_FLASH, None, md(_("Nothing was imported: {problem}").format(problem=exc)), "error")
        return
    said = md(imported_text(found))
    say(K.HUMAN_FLASH, None, said, "warning" if found.unknown_rows else "success")  # rows left out deserve a look
    # The scores imported grow the report above the button, which can push the button and the message under it out
    # of the window: the message is also shown at the window's top right for a few seconds.
    st.toast(said, icon=":material/warning:" if found.unknown_rows else ":material/check_circle:")


def delete_import(import_id: int, file: str) -> None:
    deleted = studio.session().workspace.human.delete_label_import(import_id)
    text = ngettext("Deleted {count} human score imported from {file}.",
                    "Deleted {count} human scores imported from {file}.", deleted)  # fmt: skip
    say(K.HUMAN_STORED_FLASH, None, md(text.format(count=format_number(deleted), file=file)))


def delete_rater(rater: str) -> None:
    deleted = studio.session().workspace.human.delete_rater_labels(rater)
    text = ngettext("Deleted {count} human score by {rater}.", "Deleted {count} human scores by {rater}.", deleted)
    say(K.HUMAN_STORED_FLASH, None, md(text.format(count=format_number(deleted), rater=rater)))


def assign_candidate(candidate: str) -> None:
    given = studio.session().workspace.human.assign_candidate(candidate)
    text = ngettext("{count} human score is now for candidate {candidate}.",
                    "{count} human scores are now for candidate {candidate}.", given)  # fmt: skip
    say(K.HUMAN_STORED_FLASH, None, md(text.format(count=format_number(given), candidate=candidate)))


def forget_old_news() -> None:
    """On a new visit (Streamlit dropped the uploader's state when the page was left), the message of the last
    import or deletion is old news. Called before the uploader is drawn."""
    if K.HUMAN_UPLOAD not in S:
        S.pop(K.HUMAN_FLASH, None)
        S.pop(K.HUMAN_STORED_FLASH, None)


def without_candidate(labels: HumanLabels, in_use: DatasetInUse) -> None:
    """Scores kept before a score belonged to one candidate's output: counted, and given to the candidate in use
    on request (they may have been meant for another)."""
    found = labels.without_candidate(in_use.data.candidates)
    if not found:
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        st.warning(
            md(
                ngettext(
                    "{count} stored human score names no candidate (imported before a score belonged to one "
                    "candidate's output): no agreement uses it.",
                    "{count} stored human scores name no candidate (imported before a score belonged to one "
                    "candidate's output): no agreement uses them.",
                    len(found),
                ).format(count=format_number(len(found)))
            ),
            icon=":material/help:",
        )
        st.button(
            _("Give them to {candidate}").format(candidate=in_use.candidate),
            on_click=with_language(assign_candidate),
            args=(in_use.candidate,),
            key="human.assign_candidate",
        )


def import_controls(rater: str) -> None:
    st.file_uploader(_("A labels file (.csv or .jsonl)"), type=["csv", "jsonl", "json"], key=K.HUMAN_UPLOAD)
    uploader_note()
    if K.HUMAN_UPLOAD_RATER not in S:
        S[K.HUMAN_UPLOAD_RATER] = rater
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.text_input(_("Rows without a rater are the scores of"), key=K.HUMAN_UPLOAD_RATER, width=260)
        st.button(_("Import"), on_click=with_language(import_file), icon=":material/upload:", key="human.import")
    show(K.HUMAN_FLASH, None)  # what the import (or a deletion) did, right under the Import button
    st.caption(
        _(
            "Columns: `id`, `human` (a number or `pass`/`fail`), and optionally `candidate`, `note`, `rater`. Rows "
            "without a candidate are for the candidate in use; rows of cases not in the data are counted, not "
            "kept. A second person's file, imported under their name, gives the agreement between raters below."
        )
    )


def stored_panel(labels: HumanLabels, candidate: str) -> None:
    """The stored scores: how many match the data, the downloads, the imports kept and a rater's scores, each
    with "Delete these labels", and what the last deletion did under them."""
    ws = studio.session().workspace
    stored = labels.stored()
    st.caption(md(matched_text(labels, candidate)))
    with st.container(horizontal=True):
        for form, name in (("csv", "CSV"), ("jsonl", "JSONL")):
            st.download_button(
                _("Download {format}").format(format=name),
                partial(ws.human.export_scores, form, labels.dataset),
                file_name=f"human-scores.{form}",
                mime="text/csv" if form == "csv" else "application/jsonl",
                disabled=not stored,
                on_click="ignore",
                icon=":material/download:",
                key=f"human.export.{form}",
            )
    imports = ws.human.label_imports(labels.dataset)
    if imports:
        st.markdown("**" + _("Imports") + "**")
    for item in imports[:IMPORTS_SHOWN]:
        with st.container(horizontal=True, vertical_alignment="center"):
            st.caption(md(import_line(item)))
            with st.popover(_("Delete these labels"), icon=":material/delete:"):
                st.caption(md(_("Deletes the {count} scores still kept from {file}.").format(
                    count=format_number(item.remaining), file=item.file)))  # fmt: skip
                st.button(_("Delete"), on_click=with_language(delete_import), args=(item.id, item.file),
                          type="primary", key=f"human.delete_import.{item.id}")  # fmt: skip
    raters = ws.human.stored_raters(labels.dataset)
    if raters:
        with st.container(horizontal=True, vertical_alignment="bottom"):
            chosen = st.selectbox(_("A rater's labels"), raters, key=K.HUMAN_DELETE_RATER, width=240)
            with st.popover(_("Delete these labels"), icon=":material/delete:"):
                st.caption(_("Deletes every stored score by this rater, those of cases not in this data too."))
                st.button(_("Delete"), on_click=with_language(delete_rater), args=(chosen or raters[0],),
                          type="primary", key="human.delete_rater.go")  # fmt: skip
    show(K.HUMAN_STORED_FLASH, None)


def files_panel(labels: HumanLabels, rater: str, in_use: DatasetInUse) -> None:
    """Import a labels file (its rows without a rater are the named rater's), export and delete the stored ones."""
    st.subheader(_("Import and export"))
    without_candidate(labels, in_use)
    left, right = st.columns(2, gap="large")
    with left:
        import_controls(rater)
    with right:
        stored_panel(labels, in_use.candidate)


def raters_panel(labels: HumanLabels, rater: str, candidate: str) -> None:
    """Two raters' Krippendorff's α (interval) with its interval, and the cases they score differently."""
    st.subheader(_("Two raters"))
    raters = labels.raters(candidate)
    if len(raters) < 2:
        st.caption(
            _(
                "With a second person's scores of the same cases (import their file under their name), their "
                "agreement with yours shows here: the most a metric can be expected to agree with either."
            )
        )
        return
    with st.container(horizontal=True):
        first = st.selectbox(_("First rater"), raters, index=raters.index(rater) if rater in raters else 0,
                             format_func=rater_label, key=K.HUMAN_FIRST, width=260)  # fmt: skip
        others = [name for name in raters if name != first]
        second = st.selectbox(_("Second rater"), others, format_func=rater_label, key=K.HUMAN_SECOND, width=260)
    second = second if second in others else others[0]
    found = studio.session().workspace.human.rater_agreement(first, second, candidate, labels)
    row = st.container(horizontal=True, gap="large")
    row.metric(_("Krippendorff's α (interval)"), estimate_text(found.alpha, 2), width="content")
    row.metric(_("Scored by both"), found.n, width="content")
    row.metric(_("Only by the first"), found.only_first, width="content")
    row.metric(_("Only by the second"), found.only_second, width="content")
    st.caption(
        _(
            "1: the same scores, 0: no better than chance. A metric that agrees with one person better than the "
            "other person does is fitting that person's habits."
        )
    )
    if found.disagreements:
        st.markdown("**" + _("The cases they score differently, the largest gap first") + "**")
        number = st.column_config.NumberColumn
        st.dataframe(
            raters_table(found, limit=SHOWN),
            hide_index=True,
            width="stretch",
            column_config={
                "id": st.column_config.TextColumn(_("case")),
                "first": number(_("score by {rater}").format(rater=rater_label(first)), format="%.3f"),
                "second": number(_("score by {rater}").format(rater=rater_label(second)), format="%.3f"),
                "gap": number(_("gap"), format="%.3f"),
            },
        )
