"""Settings: the metric and reflection models, their keys for this session, how calls are made, and isolation.

Non-secret settings are saved in the store (``skynet_core.llm.save_settings``);
keys typed here live in this session only (``studio.set_session_key``) and are
shown back masked. The model call for a metric's ``llm()`` is made by the
server, so no key ever reaches metric code. What the form's values mean is
``skynet_core.settings_form``; the panels are ``panels/settings_*.py``.
"""

from __future__ import annotations

import streamlit as st

import studio
from panels.settings_calls import calls_panel, environment_panel, isolation_panel
from panels.settings_model import effective_banner, form, model_panel
from panels.settings_try import try_judge
from skynet_core.i18n import _
from skynet_core.llm import ROLES, forget_settings, litellm_ready, warm_up
from skynet_core.settings_form import form_values, typed_keys, unsaved

studio.ensure_router()

S = st.session_state


def seed() -> None:
    """Show the saved settings in the widgets (key fields start empty: a key is never shown back)."""
    S.update(form_values(studio.model_settings(), studio.workspace().ray_address()))


def save() -> None:
    settings = form()
    studio.save_model_settings(settings)
    studio.workspace().set_ray_address(S["settings.ray_address"])
    for role, key in typed_keys(S).items():
        studio.set_session_key(role, key)
    for role in ROLES:
        S[f"settings.{role}.key"] = ""
    S["settings.notice"] = _("Settings saved. Keys stay in this session only.")


def reset() -> None:
    forget_settings(studio.store())
    seed()
    S["settings.notice"] = _("Saved settings cleared: the environment's defaults apply.")


# The page.
saved = studio.model_settings()
if "settings.concurrency" not in S:
    seed()

st.title(_("Settings"))
effective_banner(saved)
if S.get("settings.notice"):
    st.toast(S.pop("settings.notice"), icon=":material/save:")
changed = st.empty()  # always there, so the elements below keep their places when it empties
if unsaved(S, saved, studio.session_keys(), studio.workspace().ray_address()):
    changed.caption(":orange[:material/edit: " + _("Unsaved changes: “Save settings” makes metrics use them.") + "]")

if not litellm_ready() and any(form().config(role) for role in ROLES):
    with st.spinner(_("Loading litellm (once per server start; it takes a few seconds)…")):
        warm_up(wait=True)
for role in ROLES:  # one above the other: side by side, a 900 px window cut their fields to a few letters
    with st.container(border=True, key=f"settings-panel-{role}"):
        model_panel(role)
calls_panel()
with st.container(horizontal=True):
    st.button(_("Save settings"), type="primary", on_click=save, icon=":material/save:", key="settings.save")
    st.button(
        _("Reset to the environment's defaults"),
        on_click=reset,
        icon=":material/restart_alt:",
        key="settings.reset",
    )
st.divider()
try_judge()
st.divider()
environment_panel()
isolation_panel()
