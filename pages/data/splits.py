"""The Data page's splits of the dataset in use, and the candidate and split the Author page scores."""

from __future__ import annotations

import streamlit as st

from skynet_core.i18n import N_, _, format_number, ngettext, with_language
from skynet_core.workspace import Snapshot
from ui import studio
from ui.widgets.text import md

ALL_SPLITS = "all"
SPLIT_RULE = N_(
    "Splits follow the Skynet planner: under 30 cases, all train; 30 to 79, 80% train and 20% val; 80 to 299, "
    "60/20/20 train/val/test; 300 or more, 60/20/20 with val capped at 200 and test at 500. A case's split "
    "depends only on its id, so it never changes between runs; a `split` column overrides the planner."
)
S = st.session_state


def _save_candidate(token: str) -> None:
    ws = studio.session().workspace
    ws.data.choose_cases(S[f"data.candidate.{token}"], ws.data.choice().split)


def _save_split(token: str) -> None:
    chosen, ws = S[f"data.split.{token}"], studio.session().workspace
    ws.data.choose_cases(ws.data.in_use().candidate, None if chosen == ALL_SPLITS else chosen)


def split_label(split: str) -> str:
    """A split's name as shown (train/val/test are the planner's names, kept as they are)."""
    return _("all") if split == ALL_SPLITS else split


def draw_splits(snap: Snapshot, opened: str | None) -> None:
    """The splits of ``data`` (the dataset in use) and the candidate and split the Author page scores.

    ``opened`` names a file open in the draft that is not the dataset in use: the section then says
    which dataset it describes, so its counts are not read as the opened file's.
    """
    data = snap.in_use.data
    counts = data.split_counts()
    st.subheader(_("Splits of the dataset in use · {name}").format(name=data.name))
    if opened:
        st.info(
            _(
                "These are the splits of {in_use}, the dataset in use. {opened} gets its own splits once "
                "“Use this dataset” loads it."
            ).format(in_use=md(data.name), opened=md(opened)),
            icon=":material/info:",
        )
    cols = st.columns(max(len(counts), 3))
    for col, (split, count) in zip(cols, counts.items(), strict=False):
        col.metric(split_label(split), format_number(count))
    st.caption(_("This file's `split` column sets each case's split.") if data.splits_from_column else _(SPLIT_RULE))

    st.subheader(_("What the Author page scores"))
    chosen_candidate, chosen_split = snap.in_use.candidate, snap.in_use.split
    left, right = st.columns(2)
    # Keyed by the dataset, so a new dataset's choices start from what is stored, with its own labels.
    token = f"{data.source}.{data.name}.{'.'.join(data.candidates)}.{'.'.join(f'{k}{v}' for k, v in counts.items())}"
    if data.candidates == [""]:
        left.selectbox(_("Candidate"), [_("(the only one)")], disabled=True, key="data.candidate_only")
    else:
        left.selectbox(
            _("Candidate"),
            data.candidates,
            index=data.candidates.index(chosen_candidate),
            key=f"data.candidate.{token}",
            on_change=with_language(_save_candidate),
            args=(token,),
        )
    sizes = {ALL_SPLITS: sum(counts.values()), **counts}
    options = list(sizes)
    right.selectbox(
        _("Split"),
        options,
        index=options.index(chosen_split) if chosen_split in options else 0,
        format_func=lambda split: ngettext("{split} ({count} case)", "{split} ({count} cases)", sizes[split]).format(
            split=split_label(split), count=format_number(sizes[split])
        ),
        key=f"data.split.{token}",
        on_change=with_language(_save_split),
        args=(token,),
    )
    count = len(snap.cases)
    st.caption(
        ngettext(
            "The Author page scores {count} case: candidate {candidate}, split {split}.",
            "The Author page scores {count} cases: candidate {candidate}, split {split}.",
            count,
        ).format(
            count=format_number(count),
            candidate=md(chosen_candidate or _("(the only one)")),
            split=md(split_label(chosen_split or ALL_SPLITS)),
        )
    )
