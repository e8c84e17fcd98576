"""Whether a result shown is current: what changed since it was made, and the button that makes it again."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

from skynet_core.i18n import _, with_language
from skynet_core.provenance import Provenance
from ui.widgets.text import md


def stale_changes(made_by: Provenance | None, current: Provenance) -> list[str]:
    """What changed since a result was made (``made_by``), for :func:`stale_banner`."""
    return made_by.changes(current) if made_by is not None else [_("it was made before results kept their origin")]


def stale_banner(
    changes: list[str],
    what: str,
    refresh: Callable[[], None] | None,
    *,
    key: str,
    label: str | None = None,
    current: str | None = None,
) -> bool:
    """Say plainly whether ``what`` (e.g. ``_("These results")``, translated by the caller) is current; when it
    is not, why (``changes``, from :func:`stale_changes`), with the button that refreshes it (``label``,
    default "Score again"). ``current`` says what a current result matches, when it is not the current metric.py
    (two versions compared). Returns True when the result is stale."""
    if not changes:
        st.caption(
            ":green[:material/check_circle:] "
            + (
                current
                or _("{what} match the current metric.py, dataset, candidate, split and model.").format(what=what)
            )
        )
        return False
    with st.container(horizontal=True, vertical_alignment="center"):
        st.warning(
            _("{what} are out of date: {changes}.").format(what=what, changes=md(_("; ").join(changes))),
            icon=":material/history:",
        )
        if refresh is not None:
            st.button(
                label or _("Score again"),
                on_click=with_language(refresh),
                icon=":material/refresh:",
                key=key,
                type="primary",
            )
    return True
