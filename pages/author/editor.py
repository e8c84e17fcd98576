"""The metric editor: the draft's files in tabs, kept in step with the stored draft by its revision.

The protocol (see :mod:`skynet_core.workspace`): this session remembers the draft revision its
editor shows (``author.base``). The editor component keeps its own text once mounted and sends
text back only on its events, so:

- it is always given the stored draft's text: a fresh mount (first open, coming back from another
  page) shows the latest draft, never the text of an earlier mount;
- typed text is written with ``base_revision``; a write based on an older revision is a conflict,
  and the workspace keeps both texts;
- when the stored revision is not the one this session's editor shows (another tab typed, or this
  session loaded an example, an upload, a restore), the component gets a new key, so it mounts
  again with the stored text.

Ctrl+S (Cmd+S) is the binding of the editor's own "Save" button, whose command sends a ``saved``
event with the text: the text is written, then saved as a named version (confirmed, never a duplicate).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import streamlit as st

from pages.author import files
from skynet_core.i18n import _
from skynet_core.metric.source import MAIN_FILE
from skynet_core.views.author import python_completions
from skynet_core.workspace import Draft, Snapshot
from ui import keys as K
from ui import studio
from ui.widgets.messages import say, show
from ui.widgets.versions import save_version

S = st.session_state
BASE, GEN, FILE, LAST_EVENT, NOTICE = (
    K.AUTHOR_BASE,
    K.AUTHOR_EDITOR_GEN,
    K.AUTHOR_FILE,
    K.AUTHOR_LAST_EVENT,
    K.AUTHOR_NOTICE,
)
CONFLICT_SHOWN_S = 600
# How often an open editor asks whether another tab changed the draft (SKYNET_DRAFT_POLL_S: a browser test polls
# faster to meet the race between this fragment and an upload's rerun every time, not once in a while).
DRAFT_POLL_S = float(os.environ.get("SKYNET_DRAFT_POLL_S") or 2.0)
SAVED_EVENT = "saved"
LANGS = {
    ".py": "python",
    ".json": "json",
    ".jsonl": "json",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".toml": "toml",
    ".md": "markdown",
    ".csv": "text",
    ".tsv": "text",
    ".txt": "text",
}


@dataclass(frozen=True)
class Typed:
    """What this run's editor event did: whether it wrote the draft, and whether the user asked for a fresh
    check (Ctrl+Enter)."""

    written: bool = False
    check_again: bool = False


def editor_key(file: str) -> str:
    return K.editor(S.get(GEN, 0), file)


def sync(snap: Snapshot) -> Typed:
    """Apply the editor's latest event to the stored draft, or follow a newer stored draft. Call once per run."""
    me = studio.session()
    ws, stored = me.workspace, snap.draft
    file = files.current_file(stored.metric)
    stored_event = S.get(editor_key(file))
    event: dict[str, Any] = stored_event if isinstance(stored_event, dict) else {}
    fresh = bool(event.get("id")) and event["id"] != S.get(LAST_EVENT)
    if fresh and event.get("type") in ("change", "submit", SAVED_EVENT) and isinstance(event.get("text"), str):
        S[LAST_EVENT] = event["id"]
        typed = stored.metric.with_file(file, event["text"])
        base = S.get(BASE, stored.revision)
        written = typed != stored.metric or base != stored.revision
        if written:
            write = ws.drafts.type(typed, base)
            stored = write.draft
            if write.conflict and write.kept is not None:
                say(
                    NOTICE,
                    stored.revision,
                    _(
                        "Another tab changed metric.py while you typed here. Your text is the draft; the other "
                        "text was kept as version #{id} (see History)."
                    ).format(id=write.kept.id),
                    "warning",
                )
        S[BASE] = stored.revision
        if event["type"] == SAVED_EVENT:
            save_version("author", _("saved with Ctrl+S"))
        return Typed(written, event["type"] == "submit")
    if S.get(BASE) != stored.revision:
        if S.get(BASE) is not None and stored.revision != me.own_revision:
            say(
                NOTICE,
                stored.revision,
                _(
                    "metric.py was changed in another tab; the editor now shows the latest text. "
                    "Anything this tab had typed is kept in History."
                ),
                "warning",
            )
        S[BASE] = stored.revision
        S[GEN] = S.get(GEN, 0) + 1  # a new component: it mounts with the stored text
    return Typed()


def notices() -> None:
    """This tab's notice about the draft, and a recent conflict between two tabs (for every tab).

    The notice is about one revision of the draft (ui.widgets.messages): it goes when the editor's text changes."""
    if show(NOTICE, S.get(BASE), icon=":material/sync_problem:"):
        return
    conflict = studio.session().workspace.drafts.last_conflict()
    if conflict is not None and datetime.now().timestamp() - conflict.at < CONFLICT_SHOWN_S:
        st.caption(
            ":orange[:material/sync_problem:] "
            + _("Two tabs edited metric.py at once at {time}; the other text is version #{id} in History.").format(
                time=f"{datetime.fromtimestamp(conflict.at):%H:%M:%S}", id=conflict.version_id
            )
        )


@st.fragment(run_every=DRAFT_POLL_S)
def newer_draft_notice() -> None:
    """A tab whose editor shows an older text than the stored draft (another tab typed) says so at once, without
    waiting for this tab to type or reload, and offers the latest text."""
    studio.apply_language()
    me = studio.session()
    shown, stored = S.get(BASE), me.workspace.drafts.current().revision
    if shown is None or stored == shown or stored == me.own_revision:
        return
    with st.container(horizontal=True, vertical_alignment="center"):
        st.warning(
            _(
                "metric.py was changed in another tab: this editor shows an older text. Show the latest text "
                "(what this tab typed stays in History), or keep typing here to make yours the draft."
            ),
            icon=":material/sync_problem:",
        )
        if st.button(_("Show the latest text"), icon=":material/sync:", key="author.show_latest"):
            st.rerun(scope="app")


def save_button() -> dict[str, Any]:
    """The editor's own "Save" button: Ctrl+S / Cmd+S press it; its command sends a ``saved`` event."""
    return {
        "name": _("Save"),
        "feather": "Save",
        "hasText": True,
        "alwaysOn": True,
        "commands": [["response", SAVED_EVENT]],
        "bindKey": {"win": "Ctrl-S", "mac": "Command-S"},
        # In the file bar under the code (:func:`file_bar`), never over a line of it.
        "style": {"bottom": "0.3rem", "right": "0.4rem"},
    }


def file_bar(file: str) -> dict[str, Any]:
    """The bar under the code: the file's name, and room for the Save button (the button floats over the
    component's bottom edge; over the code, it hid the last visible line)."""
    return {
        "name": "skynet-file-bar",
        "css": "display: flex; align-items: center; min-height: 2.9rem; padding: 0 0.75rem; font-size: 0.8rem;",
        "style": {"order": 10},  # after the code (the component puts its info bar first)
        "info": [{"name": file}],
    }


def metric_editor(draft: Draft, markers: list[dict[str, Any]]) -> None:
    """The editor for the current file of ``draft`` (always fed the stored text; see the module docstring).

    No soft wrap (it broke lines mid-token); completion offers Python 3's keywords and builtins and the
    words of the file; Tab accepts a suggestion and Enter always starts a new line.
    """
    file = files.file_tabs(draft.metric)
    suffix = "." + file.rsplit(".", 1)[-1] if "." in file else ""
    lang = LANGS.get(suffix, "text")
    text = draft.metric.files[file]
    # Imported in the script run, never at import time: Streamlit registers a component (and serves its page)
    # only when it is declared inside a script run, and serve.py's preload imports this module outside one.
    from code_editor import code_editor

    code_editor(
        text,
        lang=lang,
        height="640px",
        response_mode="debounce",
        options={
            "showLineNumbers": True,
            "wrap": False,
            "enableBasicAutocompletion": True,
            "enableLiveAutocompletion": True,
            "enableSnippets": False,
        },
        props={
            # The editor keeps its own text once mounted: the component would otherwise set it back to the text
            # of the last pause whenever it drew again (a check's line marks arriving), dropping the keys typed
            # since. ``defaultValue`` is the text it mounts with; no ``value``, so nothing resets it.
            "value": None,
            "defaultValue": text,
            "annotations": markers if file == MAIN_FILE else [],
            # A pause this long sends the text (and starts the check): 200 ms keeps the verdict within 0.5 s of
            # the last key (bench_pages) and is still longer than the gap between keys of someone typing.
            "debounceChangePeriod": 200,
            "scrollMargin": [0, 0, 0, 0],
        },
        completions=python_completions() if lang == "python" else [],
        replace_completer=lang == "python",
        keybindings={"completer": [{"name": "Return", "bindkey": ""}]},
        buttons=[save_button()],
        info=file_bar(file),
        key=editor_key(file),
    )
