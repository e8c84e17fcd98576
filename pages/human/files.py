"""Label files in and out (CSV or JSON Lines with ``id``, ``human`` and optional ``candidate``, ``note``, ``rater``),
and two raters' agreement: the ceiling a metric can be expected to reach."""

from __future__ import annotations

from functools import partial

import streamlit as st

from skynet_core.human import HumanLabels, LabelError, estimate_text, rater_label, raters_table
from skynet_core.i18n import _, ngettext, with_language
from ui import keys as K
from ui import studio
from ui.widgets.messages import say, show
from ui.widgets.text import md, uploader_note

S = st.session_state
SHOWN = 200


def import_file() -> None:
    """Keep the scores of the file chosen (all or none) and say what was kept, or what is wrong and where."""
    upload = S.get(K.HUMAN_UPLOAD)
    if upload is None:
        say(K.HUMAN_FLASH, None, md(_("Choose a labels file first.")), "error")
        return
    ws = studio.session().workspace
    try:
        found = ws.import_human_scores(upload.name, upload.getvalue(), rater=str(S.get(K.HUMAN_UPLOAD_RATER) or ""))
    except LabelError as exc:
        say(K.HUMAN_FLASH, None, md(_("Nothing was imported: {problem}").format(problem=exc)), "error")
        return
    text = ngettext(
        "Imported {count} human score by {raters}.", "Imported {count} human scores by {raters}.", found.count
    ).format(count=found.count, raters=", ".join(rater_label(name) for name in found.raters) or "–")
    if found.unknown:
        text += " " + ngettext(
            "{count} is for a case id not in the data in use.",
            "{count} are for case ids not in the data in use.",
            len(found.unknown),
        ).format(count=len(found.unknown))
    say(K.HUMAN_FLASH, None, md(text))


def flash() -> None:
    """The message of the last import or name change (ui.widgets.messages), until another replaces it or the page
    is opened anew (Streamlit dropped the uploader's state when the page was left)."""
    if K.HUMAN_UPLOAD not in S:
        S.pop(K.HUMAN_FLASH, None)
    show(K.HUMAN_FLASH, None)


def files_panel(labels: HumanLabels, rater: str) -> None:
    """Import a labels file (its rows without a rater are the named rater's) and export the stored scores."""
    st.subheader(_("Import and export"))
    left, right = st.columns(2, gap="large")
    with left:
        st.file_uploader(_("A labels file (.csv or .jsonl)"), type=["csv", "jsonl", "json"], key=K.HUMAN_UPLOAD)
        uploader_note()
        if K.HUMAN_UPLOAD_RATER not in S:
            S[K.HUMAN_UPLOAD_RATER] = rater
        with st.container(horizontal=True, vertical_alignment="bottom"):
            st.text_input(_("Rows without a rater are the scores of"), key=K.HUMAN_UPLOAD_RATER, width=260)
            st.button(_("Import"), on_click=with_language(import_file), icon=":material/upload:", key="human.import")
        st.caption(
            _(
                "Columns: `id`, `human` (a number or `pass`/`fail`), and optionally `candidate`, `note`, `rater`. "
                "A second person's file, imported under their name, gives the agreement between raters below."
            )
        )
    with right:
        stored = labels.stored()
        st.caption(
            ngettext("{count} stored human score of this dataset.", "{count} stored human scores of this dataset.",
                     len(stored)).format(count=len(stored))
        )  # fmt: skip
        ws = studio.session().workspace
        with st.container(horizontal=True):
            for form, name in (("csv", "CSV"), ("jsonl", "JSONL")):
                st.download_button(
                    _("Download {format}").format(format=name),
                    partial(ws.export_human_scores, form, labels.dataset),
                    file_name=f"human-scores.{form}",
                    mime="text/csv" if form == "csv" else "application/jsonl",
                    disabled=not stored,
                    on_click="ignore",
                    icon=":material/download:",
                    key=f"human.export.{form}",
                )


def raters_panel(labels: HumanLabels, rater: str, candidate: str) -> None:
    """Two raters' Krippendorff's α (interval) with its interval, and the cases they score differently."""
    st.subheader(_("Two raters"))
    raters = labels.raters()
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
    found = studio.session().workspace.rater_agreement(first, second or others[0], candidate, labels)
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
        st.dataframe(
            raters_table(found, limit=SHOWN).rename(columns=rater_label),
            hide_index=True,
            width="stretch",
            column_config={"id": st.column_config.TextColumn(_("case")), "gap": _("gap")},
        )
