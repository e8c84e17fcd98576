"""The session binding: this browser session's :class:`Session` (the workspace, its keys, its id as a job
watcher, its job slots) and the one :class:`~skynet_core.workspace.Snapshot` per script run that pages and
widgets read. Pages call workspace methods through ``session().workspace``; none of them touches a store.

app.py calls :func:`begin_run` before a page draws: it applies the language and takes the run's snapshot.
A callback runs before the script run it causes, so it never needs a fresh snapshot; a page that writes
during its run (the editor's typed text) calls :func:`refresh`.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from skynet_core.i18n import set_language
from skynet_core.metric.source import MetricSource
from skynet_core.scoring.runner import default_pool
from skynet_core.workspace import Snapshot, Version, Workspace, data_dir
from skynet_core.workspace.jobs import JobSlot
from ui import keys as K

S = st.session_state


@st.cache_resource(show_spinner=False)
def _workspace(directory: str) -> Workspace:
    return Workspace(directory, pool=default_pool())


def open_workspace() -> Workspace:
    """The process's workspace on the data directory, opened (its store, and the pool starting its spare
    sandboxes) on first use; the server's preload calls it before the first visitor (see serve.py)."""
    return _workspace(str(data_dir()))


@dataclass(frozen=True)
class Session:
    """One browser session's view of the studio: the process's workspace, and this session's own few things."""

    workspace: Workspace
    watcher: str

    @property
    def keys(self) -> dict[str, str]:
        """API keys typed in on the Settings page, by role (``metric``, ``reflection``): this session's memory."""
        return dict(S.get(K.LLM_KEYS, {}))

    def set_key(self, role: str, key: str | None) -> None:
        """Keep ``key`` for ``role`` in this session only (never in the store); an empty key forgets it."""
        chosen = self.keys
        if key:
            chosen[role] = key
        else:
            chosen.pop(role, None)
        S[K.LLM_KEYS] = chosen

    def slot(self, kind: str) -> JobSlot:
        """This session's slot for ``kind`` jobs: a newer job of the kind cancels the older one."""
        key = K.job_slot(kind)
        if key not in S:
            S[key] = JobSlot()
        slot: JobSlot = S[key]
        return slot

    def replace_draft(self, new: str | MetricSource, reason: str, *, keep: bool = True) -> Version | None:
        """Make ``new`` the draft for ``reason``; the replaced text becomes a version first (returned, if any).
        The Author page's editor shows the new draft the next time it draws, without calling it a conflict."""
        write = self.workspace.drafts.replace(new, reason, keep=keep)
        S[K.OWN_REVISION] = write.draft.revision
        return write.kept

    @property
    def own_revision(self) -> int | None:
        """The draft revision this session last wrote other than by typing (an example, upload, restore…)."""
        value = S.get(K.OWN_REVISION)
        return value if isinstance(value, int) else None


def session() -> Session:
    """This browser session (the workspace of the data directory is one per server process)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return Session(open_workspace(), ctx.session_id if ctx is not None else "no-session")


def begin_run() -> Snapshot:
    """Start a script run (app.py, before the page): count it, watch the jobs, take the snapshot, set the language."""
    S[K.RUN_NUMBER] = run_number() + 1
    current = session()
    current.workspace.jobs.watch(current.watcher)
    return refresh()


def run_number() -> int:
    """This session's script runs so far, this one included."""
    number = S.get(K.RUN_NUMBER, 0)
    return number if isinstance(number, int) else 0


def begin_visit(path: str) -> None:
    """Note that this run draws the page at ``path`` (app.py, once the page is known): a run of another page than
    the run before begins a new visit. Runs of one visit may be interrupted (the next keystroke starts the next
    run) and still count as the visit's."""
    if S.get(K.VISIT, (None, 0))[0] != path:
        S[K.VISIT] = (path, run_number())


def visit_began() -> int:
    """The run this visit of the page began with: a page tells by it whether what an earlier run of it noted
    still holds (its widgets then have the values the person sees) or the person came from another page."""
    return int(S.get(K.VISIT, (None, 0))[1])


def refresh() -> Snapshot:
    """Take this run's snapshot again, after the run itself wrote to the workspace."""
    current = session()
    snap = current.workspace.snapshot(current.keys)
    S[K.SNAPSHOT] = snap
    apply_language(snap)
    return snap


def snapshot() -> Snapshot:
    """What this script run shows (the draft, the dataset in use, the settings, their provenance), read once."""
    snap = S.get(K.SNAPSHOT)
    return snap if isinstance(snap, Snapshot) else refresh()


def hand_over_to_router() -> None:
    """For ``pages/<name>.py`` (see app.py): leave Streamlit's pages-folder mode and run the router in this same
    run (not a rerun, which would lose a button's click), on the page the request names."""
    import runpy
    from pathlib import Path

    from streamlit.runtime.pages_manager import PagesManager

    PagesManager.uses_pages_directory = False
    runpy.run_path(str(Path(__file__).resolve().parent.parent / "app.py"), run_name="__main__")


def apply_language(snap: Snapshot | None = None) -> str:
    """This run's language: the one picked in the sidebar (remembered with the settings), else the browser's.
    A fragment's rerun may run in a new thread: it calls this first."""
    if snap is None:
        kept = S.get(K.SNAPSHOT)
        snap = kept if isinstance(kept, Snapshot) else None
    return set_language(S.get(K.LANGUAGE) or (snap.language if snap else None) or st.context.locale)
