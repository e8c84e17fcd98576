"""The sidebar every page shares: the language, the dataset in use, the running jobs, and the isolation."""

from __future__ import annotations

from enum import Enum

import streamlit as st

from skynet_core.i18n import LANGUAGES, _, format_number, ngettext, set_language, with_language
from skynet_core.scoring.runner import WorkerPool, memory_limit_enforcement
from skynet_core.workspace import Snapshot
from ui import keys as K
from ui.studio import session
from ui.widgets.jobs import running_jobs
from ui.widgets.text import md

S = st.session_state
# What a choice widget's value can be (a string, a number, an enum, or a list of them). A button's value is a
# bool and an uploader's or a grid's is a file or a dict: Streamlit refuses those being set, and their labels
# come from the page, not from a value.
CHOICE_TYPES = (str, int, float, Enum)


def _is_choice(value: object) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, (list, tuple)):
        return bool(value) and all(_is_choice(item) for item in value)
    return isinstance(value, CHOICE_TYPES)


def restate_choices() -> None:
    """Set every choice this session holds to itself, so that each choice widget is sent its choice again.

    The browser keeps the label a choice widget (a radio, a selectbox, a multiselect) was last sent and sends it
    back; a widget drawn in another language has other labels, and a label of the old one matches none of them:
    the radio showed no choice and a selectbox its English label. A value set through the session state is
    sent with the labels of the run that draws it. A key whose value is not a widget's is set to itself too,
    which changes nothing.
    """
    for key, value in list(S.items()):
        if _is_choice(value):
            S[key] = value


def _pick_language() -> None:
    chosen = S[K.LANGUAGE]
    session().workspace.settings.set_language(chosen)
    set_language(chosen)
    restate_choices()


def language_picker(current: str) -> None:
    """The sidebar's language picker; the choice is saved with the settings."""
    S.setdefault(K.LANGUAGE, current)
    st.selectbox(
        _("Language"),
        list(LANGUAGES),
        format_func=LANGUAGES.__getitem__,
        key=K.LANGUAGE,
        on_change=with_language(_pick_language),
    )


def isolation_line(workers: WorkerPool, bold: bool = False) -> str:
    """How strongly metric code is isolated, as one coloured markdown line (the reason in this language)."""
    reason = md(_(workers.isolation_reason))
    if workers.isolation.value == "full":
        level, line = _("full"), ":green[:material/shield: {level}] · {reason}"
    else:
        level, line = _("reduced"), ":orange[:material/warning: {level}] · {reason}"
    return line.format(level=f"**{level}**" if bold else level, reason=reason)


def sidebar(snap: Snapshot, language: str) -> None:
    """The language picker, the dataset in use, the running jobs, and how strongly metric code is isolated."""
    chosen = snap.in_use
    with st.sidebar:
        language_picker(language)
        st.markdown("**{title}**".format(title=_("Dataset")))
        count = len(chosen.cases)
        details = ngettext(
            "{count} case · candidate {candidate} · split {split}",
            "{count} cases · candidate {candidate} · split {split}",
            count,
        ).format(
            count=format_number(count),
            candidate=md(chosen.candidate or _("(only one)")),
            split=md(chosen.split or _("all")),
        )
        st.markdown(f"{md(chosen.data.name)}  \n{details}")
        if chosen.problem:
            st.warning(md(chosen.problem))
        running_jobs()
        workers = session().workspace.pool
        st.markdown("**{title}**".format(title=_("Isolation")))
        st.markdown(isolation_line(workers))
        st.caption(
            _(
                "Memory limit: {size} GiB per sandbox as a whole ({mode}: all its processes, shared memory and /tmp)"
            ).format(size=format_number(workers.limits.memory_bytes / (1 << 30)), mode=memory_limit_enforcement())
        )
