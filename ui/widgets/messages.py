"""A message about what an action did, kept in the session while it is still true.

A message drawn once and dropped is gone at the next script run, and runs come that nobody asked for: a
grid's blur as a button takes the focus, a check's verdict arriving, a chart's relayout. Such a run took
"Using …", "Wrote `REWARD_SPEC` …" and others away before anyone could read them. Here a message is kept
with what it is ``about`` (a draft's revision, the fields of a case) and shown while that stays the same.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Literal

import streamlit as st

S = st.session_state
Kind = Literal["success", "warning", "error"]


def say(key: str, about: Hashable, message: str, kind: Kind = "success") -> None:
    """Keep ``message`` under ``key``, about ``about`` (call from a callback, or before a rerun)."""
    S[key] = (about, kind, message)


def said(key: str, about: Hashable) -> tuple[Kind, str] | None:
    """The message kept under ``key`` and its kind, while it is about ``about``; dropped once it is not."""
    kept = S.get(key)
    if kept is None:
        return None
    if kept[0] != about:
        del S[key]
        return None
    return kept[1], kept[2]


def show(key: str, about: Hashable, icon: str | None = None) -> bool:
    """Draw the message kept under ``key`` while it is about ``about``; whether there was one."""
    found = said(key, about)
    if found is None:
        return False
    kind, message = found
    {"success": st.success, "warning": st.warning, "error": st.error}[kind](message, icon=icon)
    return True
