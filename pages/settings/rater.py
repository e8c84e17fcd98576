"""Settings: the rater's name, under which the human scores given on the Human scores page are kept."""

from __future__ import annotations

import streamlit as st

from skynet_core.i18n import _, with_language
from ui import keys as K
from ui import studio

S = st.session_state


def save_rater() -> None:
    """Keep the name as it is typed (empty: the OS user's name again); a name that cannot be kept is said."""
    ws = studio.session().workspace
    try:
        ws.human.set_rater(str(S.get(K.SETTINGS_RATER, "")))
    except ValueError as exc:
        S[K.SETTINGS_NOTICE] = str(exc)
    S[K.SETTINGS_RATER] = ws.human.rater()


def rater_panel() -> None:
    """The rater's name field: saved as it changes, shared with the Human scores page."""
    st.subheader(_("Human scores"))
    if K.SETTINGS_RATER not in S:
        S[K.SETTINGS_RATER] = studio.session().workspace.human.rater()
    st.text_input(
        _("Your name as a rater"),
        key=K.SETTINGS_RATER,
        on_change=with_language(save_rater),
        max_chars=100,
        width=320,
        help=_("Human scores you give are kept under this name. Empty: the name of the user the server runs as."),
    )
