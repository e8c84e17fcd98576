""" "Save version": a named version of the draft, confirmed, never a duplicate of the latest."""

from __future__ import annotations

from typing import Literal

import streamlit as st

from skynet_core.i18n import _, with_language
from ui.studio import session

S = st.session_state


def save_version(key: str, default_name: str = "") -> None:
    """Save the draft as a named version (the name typed in ``{key}.version_name``, else ``default_name``),
    with a confirmation; nothing new when the draft already is the latest version."""
    saved = session().workspace.drafts.save_version(S.get(f"{key}.version_name") or default_name)
    version = saved.version
    if saved.created:
        S[f"{key}.version_name"] = ""
        st.toast(
            _("Saved version #{id} “{name}”.").format(id=version.id, name=version.name),
            icon=":material/bookmark_added:",
        )
    else:
        st.toast(
            _("Nothing new to save: the draft is already version #{id} “{name}”.").format(
                id=version.id, name=version.name
            ),
            icon=":material/bookmark:",
        )


def save_version_control(key: str, label_visibility: Literal["visible", "hidden", "collapsed"] = "visible") -> None:
    """A name field and "Save version"."""
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.text_input(
            _("Save the draft as a version"),
            placeholder=_("e.g. clearer feedback"),
            key=f"{key}.version_name",
            label_visibility=label_visibility,
        )
        st.button(
            _("Save version"),
            on_click=with_language(save_version),
            args=(key,),
            icon=":material/bookmark_add:",
            key=f"{key}.save_version",
        )
