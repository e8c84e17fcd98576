"""Settings: the metric and reflection models, their keys for this session, how calls are made, and isolation.

Non-secret settings are saved in the workspace (``Workspace.settings.save_models``); keys typed here live in
this session only (``Session.set_key``) and are shown back masked. The model call for a metric's ``llm()``
is made by the server, so no key ever reaches metric code. What the form's values mean is
``skynet_core.views.settings``; the panels are this package's ``model.py``, ``calls.py`` and ``try_judge.py``.
"""

from __future__ import annotations

import streamlit as st

from pages.settings.cache import cache_panel
from pages.settings.calls import calls_panel, environment_panel, isolation_panel
from pages.settings.model import effective_banner, form, model_panel
from pages.settings.rater import rater_panel
from pages.settings.try_judge import try_judge
from skynet_core.i18n import _, with_language
from skynet_core.llm import ROLES, ModelSettings, litellm_ready, warm_up
from skynet_core.views.settings import drawn, edits, form_values, restored, typed_keys, unsaved
from ui import keys as K
from ui import studio

S = st.session_state
# The key fields have no show-password button. Streamlit takes a text field's value when the field loses focus to
# something outside it, and that button is inside it: a key typed, then Tab (to the button), then a click elsewhere
# was never taken, so "Save settings" saved no key while the box still showed it (issue 44). A key is never shown
# back anyway; without the button, Tab leaves the field and the value is taken.
KEY_FIELD_CSS = (
    '<style>[class*="st-key-settings-panel-"] [data-testid="stTextInputRootElement"] button { display: none; }</style>'
)


def seed() -> None:
    """Show the saved settings in the widgets (key fields start empty: a key is never shown back), no edit kept."""
    me = studio.session()
    S.update(form_values(me.workspace.settings.models(me.keys), me.workspace.settings.ray_address()))
    S.pop(K.SETTINGS_EDITS, None)


def save() -> None:
    me = studio.session()
    me.workspace.settings.save_models(form())
    me.workspace.settings.set_ray_address(S[K.SETTINGS_RAY_ADDRESS])
    for role, key in typed_keys(S.to_dict()).items():
        me.set_key(role, key)
    for role in ROLES:
        S[f"settings.{role}.key"] = ""
    S.pop(K.SETTINGS_EDITS, None)
    S[K.SETTINGS_NOTICE] = _("Settings saved. Keys stay in this session only.")


def reset() -> None:
    studio.session().workspace.settings.forget_models()
    seed()
    S[K.SETTINGS_NOTICE] = _("Saved settings cleared: the environment's defaults apply.")


def page() -> None:
    """The form shows the saved settings with this session's unsaved edits on top: an edit outlives a visit to
    another page, and a field not drawn for a while (a price while its model field is empty).

    A field an earlier run of this visit drew keeps what the browser sent. What a run draws is noted before it
    draws, not after: the next keystroke often interrupts a run, and the run after one that had noted nothing
    wrote the saved values over the fields, in the browser too (a price typed meanwhile was lost)."""
    snap = studio.snapshot()
    saved = form_values(snap.settings, snap.ray_address)
    noted_in, live = S.get(K.SETTINGS_DRAWN, (-1, frozenset()))
    live = live if noted_in >= studio.visit_began() else frozenset()
    S.update(restored(saved, S.get(K.SETTINGS_EDITS, {}), live))
    S[K.SETTINGS_DRAWN] = (studio.run_number(), drawn(form()))
    draw(snap.settings, snap.ray_address)
    S[K.SETTINGS_EDITS] = edits(S.to_dict(), saved)


def draw(saved: ModelSettings, ray_address: str) -> None:
    if any(form().config(role) for role in ROLES):  # a key field is drawn only for a model that is set
        st.html(KEY_FIELD_CSS)
    st.title(_("Settings"))
    effective_banner(saved)
    if S.get(K.SETTINGS_NOTICE):
        st.toast(S.pop(K.SETTINGS_NOTICE), icon=":material/save:")
    changed = st.empty()  # always there, so the elements below keep their places when it empties
    if unsaved(S.to_dict(), saved, studio.session().keys, ray_address):
        changed.caption(
            ":orange[:material/edit: " + _("Unsaved changes: “Save settings” makes metrics use them.") + "]"
        )

    if not litellm_ready() and any(form().config(role) for role in ROLES):
        with st.spinner(_("Loading litellm (once per server start; it takes a few seconds)…")):
            warm_up(wait=True)
    for role in ROLES:  # one above the other: side by side, a 900 px window cut their fields to a few letters
        with st.container(border=True, key=f"settings-panel-{role}"):
            model_panel(role)
    calls_panel()
    with st.container(horizontal=True):
        st.button(
            _("Save settings"),
            type="primary",
            on_click=with_language(save),
            icon=":material/save:",
            key="settings.save",
        )
        st.button(
            _("Reset to the environment's defaults"),
            on_click=with_language(reset),
            icon=":material/restart_alt:",
            key="settings.reset",
        )
    st.divider()
    try_judge()
    st.divider()
    cache_panel()
    st.divider()
    rater_panel()
    st.divider()
    environment_panel()
    isolation_panel()
