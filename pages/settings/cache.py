"""The Settings page's answer cache and sandbox cap: what the server shares with every session, saved as soon as
it is changed (``Workspace.bounds``: ``save_cache_setting``, ``clear_cache``, ``set_sandbox_cap``), apart from the
model form and its "Save settings"."""

from __future__ import annotations

import streamlit as st

from skynet_core.i18n import _, format_number, ngettext, with_language
from skynet_core.llm.cache import MAX_MB_RANGE, CacheSetting
from skynet_core.scoring.runner.limit import MAX_CAPACITY
from ui import keys as K
from ui import studio

S = st.session_state


def save_cache() -> None:
    setting = CacheSetting(bool(S[K.SETTINGS_CACHE_ON]), float(S[K.SETTINGS_CACHE_MB]))
    studio.session().workspace.bounds.save_cache_setting(setting)
    S[K.SETTINGS_NOTICE] = _("Answer cache setting saved: the next run uses it.")


def clear_cache() -> None:
    studio.session().workspace.bounds.clear_cache()
    S[K.SETTINGS_NOTICE] = _("Answer cache cleared: the next run asks the model for every call.")


def save_cap() -> None:
    studio.session().workspace.bounds.set_sandbox_cap(int(S[K.SETTINGS_SANDBOX_CAP]))
    S[K.SETTINGS_NOTICE] = _("Sandbox cap saved: it applies now, to every session's jobs.")


def default_cap() -> None:
    studio.session().workspace.bounds.set_sandbox_cap(None)
    S[K.SETTINGS_NOTICE] = _("Sandbox cap back to this machine's default.")


def megabytes(size: int) -> str:
    return _("{size} MB").format(size=format_number(size / 1_000_000, 1))


def cache_panel() -> None:
    """The cache's switch, its bound, its size with a "Clear" button; the cap on sandboxes and its queue."""
    ws = studio.session().workspace
    setting, usage = ws.bounds.cache_setting(), ws.bounds.cache_usage()
    # What is saved, shown afresh on every run: another session may have changed it.
    S[K.SETTINGS_CACHE_ON], S[K.SETTINGS_CACHE_MB] = setting.enabled, setting.max_mb
    st.subheader(_("Answer cache"))
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.toggle(
            _("Reuse the model's answers"),
            key=K.SETTINGS_CACHE_ON,
            on_change=with_language(save_cache),
            help=_(
                "An `llm()` call identical to one already answered (same model, API base, instructions, input and "
                "temperature) gets the kept answer: no model call, no cost. Judge consistency always asks afresh; "
                "the command line's --no-cache turns it off for one run."
            ),
        )
        st.number_input(
            _("Largest size (MB)"),
            min_value=MAX_MB_RANGE[0],
            max_value=MAX_MB_RANGE[1],
            step=10.0,
            format="%g",
            key=K.SETTINGS_CACHE_MB,
            on_change=with_language(save_cache),
            width=180,
            help=_("Past this size, the answers used least recently are dropped."),
        )
        st.button(
            _("Clear"),
            key="settings.cache.clear",
            icon=":material/delete_sweep:",
            on_click=with_language(clear_cache),
            disabled=usage.entries == 0,
        )
    count = ngettext("{count} answer kept", "{count} answers kept", usage.entries).format(
        count=format_number(usage.entries)
    )
    st.caption(
        _("{count}: {size} of {bound}; the file takes {file} on disk.").format(
            count=count, size=megabytes(usage.bytes), bound=megabytes(usage.max_bytes), file=megabytes(usage.file_bytes)
        )
    )
    sandbox_panel()


def sandbox_panel() -> None:
    ws = studio.session().workspace
    cap, default, queue = ws.bounds.sandbox_cap(), ws.bounds.default_sandbox_cap(), ws.bounds.sandbox_queue()
    S[K.SETTINGS_SANDBOX_CAP] = cap
    st.subheader(_("Sandboxes at once"))
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.number_input(
            _("At most, across every session and job"),
            min_value=1,
            max_value=MAX_CAPACITY,
            step=1,
            key=K.SETTINGS_SANDBOX_CAP,
            on_change=with_language(save_cap),
            width=280,
            help=_(
                "Each case in flight runs in a sandbox of its own. A job that finds every sandbox taken waits in a "
                "queue every session sees, and the jobs waiting take turns. A sandbox waiting for a model's "
                "answer takes no processor time: raise it for slow judges."
            ),
        )
        st.button(
            _("Use the default ({count})").format(count=default),
            key="settings.sandbox_cap.default",
            icon=":material/restart_alt:",
            on_click=with_language(default_cap),
            disabled=cap == default,
        )
    waiting = ngettext("{count} job waits", "{count} jobs wait", len(queue.waiting)).format(count=len(queue.waiting))
    st.caption(
        _("The default is twice this machine's cores, at least 8. Now: {used} of {cap} in use; {waiting}.").format(
            used=queue.in_use, cap=queue.capacity, waiting=waiting
        )
    )
