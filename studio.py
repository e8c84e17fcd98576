"""What every page shares: the one cached :class:`~skynet_core.workspace.Workspace`, this session's own
few things (its API keys, its id as a job watcher, its job slots), and the shared widgets (literal text,
the stale-result banner, the job-progress panel, the running-jobs list, the sidebar).

The studio's state lives in the workspace (``workspace()``); pages ask it and draw. The helpers below
that read the dataset or the draft are thin conveniences over it, so every page agrees.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

import streamlit as st

from skynet_core.cases import Case
from skynet_core.datasets import CandidateFile, Dataset, Role
from skynet_core.display import CELL_CHARS, clip, clipped, markdown_text, more_note
from skynet_core.i18n import LANGUAGES, N_, _, format_datetime, format_duration, format_number, ngettext, set_language
from skynet_core.jobs import Job, JobSlot
from skynet_core.llm import ModelSettings
from skynet_core.metric_source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.reward_spec import RewardSpecInSource, reward_spec_in, reward_weights
from skynet_core.runner import WorkerPool, default_pool
from skynet_core.runner.watchdog import MEMORY_LIMIT_MODE
from skynet_core.runs import RunStore
from skynet_core.store import Store, Version, data_dir
from skynet_core.workspace import (
    EXAMPLE_SOURCE,
    FIRST_EXAMPLE,
    SETTING_CANDIDATE,
    SETTING_DATASET_CANDIDATE_FILES,
    SETTING_DATASET_MAIN_CANDIDATE,
    SETTING_DATASET_PATH,
    SETTING_DATASET_ROLES,
    SETTING_LANGUAGE,
    SETTING_SPLIT,
    SETTING_TIMEOUT,
    DatasetInUse,
    RunOptions,
    Workspace,
    example_metric,
)

__all__ = [
    "EXAMPLE_SOURCE",
    "FIRST_EXAMPLE",
    "SETTING_CANDIDATE",
    "SETTING_DATASET_CANDIDATE_FILES",
    "SETTING_DATASET_MAIN_CANDIDATE",
    "SETTING_DATASET_PATH",
    "SETTING_DATASET_ROLES",
    "SETTING_SPLIT",
    "SETTING_TIMEOUT",
    "RewardSpecInSource",
    "reward_spec_in",
    "reward_weights",
]

_ROUTED = "studio.routed"
_LLM_KEYS = "studio.llm_keys"
_LANGUAGE = "studio.language"
_OWN_REVISION = "studio.own_revision"
# What a job is, by its kind, for the progress and running-jobs lists.
JOB_KINDS = {
    "check": N_("contract check"),
    "score": N_("scoring"),
    "consistency": N_("judge consistency"),
    "compare": N_("comparison"),
    "probes": N_("feedback probes"),
    "grade": N_("feedback grading"),
    "try judge": N_("judge trial"),
    "trade-offs": N_("reward trade-offs"),
}
JOB_POLL_S = 0.2
JOBS_POLL_S = 2.0
LITERAL_LIMIT = 2_000


def mark_routed() -> None:
    """Called by app.py before it runs a page: this session's pages run inside the router."""
    st.session_state[_ROUTED] = True


def apply_language() -> str:
    """Set this run's language: the one picked in the sidebar (remembered with the settings), else the
    browser's (``st.context.locale``). app.py calls it before anything is drawn."""
    chosen = st.session_state.get(_LANGUAGE) or workspace().store.get(SETTING_LANGUAGE) or st.context.locale
    return set_language(chosen)


def _pick_language() -> None:
    chosen = st.session_state[_LANGUAGE]
    workspace().store.set(SETTING_LANGUAGE, chosen)
    set_language(chosen)


def language_picker() -> None:
    """The sidebar's language picker; the choice is saved with the settings."""
    current = apply_language()
    st.session_state.setdefault(_LANGUAGE, current)
    st.selectbox(
        _("Language"),
        list(LANGUAGES),
        format_func=LANGUAGES.__getitem__,
        key=_LANGUAGE,
        on_change=_pick_language,
    )


def ensure_router() -> None:
    """Send a page that runs without app.py back through it (every page calls this first).

    On a freshly started server, Streamlit runs a deep link such as ``/data``
    as a page of its old ``pages/``-folder mode, skipping app.py (no router, no
    sidebar, no wide layout) until some session has run app.py. The flag it
    keeps for that mode is cleared here and the run starts again, through
    app.py, on the same page. (Without the flag, in another Streamlit version,
    this does nothing.)
    """
    from streamlit.runtime.pages_manager import PagesManager

    apply_language()  # app.py sets it too; a page run on its own (AppTest's switch_page) needs it here
    if st.session_state.get(_ROUTED) or not getattr(PagesManager, "uses_pages_directory", False):
        return
    PagesManager.uses_pages_directory = False
    st.rerun()


# --- the workspace and this session --------------------------------------------------------------


@st.cache_resource(show_spinner=False)
def _workspace(directory: str) -> Workspace:
    return Workspace(directory, pool=default_pool())


def workspace() -> Workspace:
    """The workspace of the data directory: one per server process, shared by every session."""
    return _workspace(str(data_dir()))


def watcher() -> str:
    """This browser session's id, as a watcher of jobs."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


def session_keys() -> dict[str, str]:
    """API keys typed in on the Settings page, by role (``metric``, ``reflection``): this session's memory only."""
    return dict(st.session_state.get(_LLM_KEYS, {}))


def set_session_key(role: str, key: str | None) -> None:
    """Keep ``key`` for ``role`` in this session only (never in the store); an empty key forgets it."""
    keys = session_keys()
    if key:
        keys[role] = key
    else:
        keys.pop(role, None)
    st.session_state[_LLM_KEYS] = keys


def job_slot(kind: str) -> JobSlot:
    """This session's slot for ``kind`` jobs: a newer job of the kind cancels the older one."""
    key = f"studio.jobs.{kind}"
    if key not in st.session_state:
        st.session_state[key] = JobSlot()
    return st.session_state[key]


def store() -> Store:
    return workspace().store


def run_store() -> RunStore:
    return workspace().runs


def pool() -> WorkerPool:
    return workspace().pool


def model_settings() -> ModelSettings:
    """The models in effect for this session: saved settings over the environment, with its keys."""
    return workspace().model_settings(session_keys())


def save_model_settings(settings: ModelSettings) -> None:
    workspace().save_model_settings(settings)


def run_options(settings: ModelSettings | None = None) -> RunOptions:
    """How metric code runs for this session now (``settings`` overrides the saved models)."""
    return workspace().run_options(session_keys(), settings)


def timeout_s() -> float:
    return workspace().timeout_s()


def in_use() -> DatasetInUse:
    """The dataset, candidate and split in use (and why the example stands in, when it does)."""
    return workspace().dataset()


def dataset() -> tuple[Dataset, str | None]:
    chosen = in_use()
    return chosen.data, chosen.problem


def candidate(data: Dataset | None = None) -> str:
    return in_use().candidate


def split() -> str | None:
    return in_use().split


def cases_in_use() -> list[Case]:
    return in_use().cases


def load_choice(
    path: str,
    roles: dict[str, tuple[Role, str]] | None = None,
    candidate_files: list[CandidateFile] | None = None,
    main_candidate: str | None = None,
) -> Dataset:
    """Load a dataset choice (raises DatasetError or OSError)."""
    with st.spinner(_("Loading the cases…")):
        return workspace().load(path, roles, tuple(candidate_files or ()), main_candidate)


def dataset_choice() -> tuple[str, dict[str, tuple[Role, str]] | None, list[CandidateFile], str | None]:
    choice = workspace().dataset_choice()
    return choice.path, choice.roles, list(choice.candidate_files), choice.main_candidate


def save_dataset_choice(
    path: str,
    roles: dict[str, tuple[Role, str]] | None = None,
    candidate_files: list[CandidateFile] | None = None,
    main_candidate: str | None = None,
) -> None:
    workspace().save_dataset_choice(path, roles, candidate_files, main_candidate)


def uploads_dir() -> Any:
    return workspace().uploads_dir()


def provenance(metric: MetricSource | None = None) -> Provenance:
    """What a result made now, in this session, would be made from."""
    return workspace().provenance(metric, session_keys())


# --- the draft ----------------------------------------------------------------------------------


def example_source(title: str = FIRST_EXAMPLE) -> str:
    return example_metric(title).main


def metric() -> MetricSource:
    """The draft metric (the stored one: every page reads the same)."""
    return workspace().draft().metric


def metric_source() -> str:
    """The draft's metric.py text."""
    return metric().main


def replace_metric_source(new: str | MetricSource, reason: str, *, keep: bool = True) -> Version | None:
    """Make ``new`` the draft for ``reason``; the replaced text becomes a version first (returned, if any).

    The Author page's editor shows the new draft the next time it draws, without calling it a conflict.
    """
    write = workspace().replace_draft(new, reason, keep=keep)
    st.session_state[_OWN_REVISION] = write.draft.revision
    return write.kept


def own_revision() -> int | None:
    """The draft revision this session last wrote other than by typing (an example, upload, restore…)."""
    return st.session_state.get(_OWN_REVISION)


# --- shared widgets ----------------------------------------------------------------------------


def md(text: str) -> str:
    """Text from metric code, data or its errors, escaped for use inside markdown (no formatting, no icons)."""
    return markdown_text(clipped(str(text), CELL_CHARS * 4))


def long_text(text: str, key: str, empty: str | None = None) -> None:
    """Text from metric code (feedback, an error, prints) shown literally at a bounded cost: its first
    characters, with a note and a download of the whole when it is longer."""
    shown, hidden = clip(text)
    st.code(shown + more_note(hidden) if text.strip() else empty or _("(empty)"), language=None, wrap_lines=True)
    if hidden:
        st.download_button(
            _("Download the full text"),
            text.encode("utf-8"),
            file_name=f"{key}.txt",
            mime="text/plain",
            key=f"{key}.download",
            on_click="ignore",
            icon=":material/download:",
        )


def literal(text: str, *, limit: int = LITERAL_LIMIT, key: str | None = None, name: str = "text.txt") -> None:
    """Show text from metric code or data exactly as written (never as markdown), at most ``limit``
    characters inline; the rest behind an expander, with a download of the whole text."""
    if len(text) <= limit:
        st.code(text, language=None, wrap_lines=True)
        return
    st.code(text[:limit] + " …", language=None, wrap_lines=True)
    with st.expander(_("All {count} characters").format(count=format_number(len(text)))):
        shown, hidden = clip(text)
        st.code(shown + more_note(hidden), language=None, wrap_lines=True)
        st.download_button(
            _("Download"), text.encode("utf-8"), file_name=name, mime="text/plain", key=key, on_click="ignore"
        )


def stale_changes(made_by: Provenance | None, current: Provenance) -> list[str]:
    """What changed since a result was made (``made_by``), for :func:`stale_banner`."""
    return made_by.changes(current) if made_by is not None else [_("it was made before results kept their origin")]


def stale_banner(
    changes: list[str], what: str, refresh: Callable[[], None] | None, *, key: str, label: str | None = None
) -> bool:
    """Say plainly whether ``what`` (e.g. ``_("These results")``, translated by the caller) is current; when it
    is not, why (``changes``, from :func:`stale_changes`), with the button that refreshes it (``label``,
    default "Score again"). Returns True when the result is stale."""
    if not changes:
        st.caption(
            ":green[:material/check_circle:] "
            + _("{what} match the current metric.py, dataset, candidate, split and model.").format(what=what)
        )
        return False
    with st.container(horizontal=True, vertical_alignment="center"):
        st.warning(
            _("{what} are out of date: {changes}.").format(what=what, changes=md(_("; ").join(changes))),
            icon=":material/history:",
        )
        if refresh is not None:
            st.button(label or _("Score again"), on_click=refresh, icon=":material/refresh:", key=key, type="primary")
    return True


def save_version(key: str, default_name: str = "") -> None:
    """Save the draft as a named version (the name typed in ``{key}.version_name``, else ``default_name``),
    with a confirmation; nothing new when the draft already is the latest version."""
    saved = workspace().save_version(st.session_state.get(f"{key}.version_name") or default_name)
    version = saved.version
    if saved.created:
        st.session_state[f"{key}.version_name"] = ""
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


def save_version_control(key: str, label_visibility: Any = "visible") -> None:
    """A name field and "Save version": a named version of the draft, confirmed, never a duplicate of the latest."""
    with st.container(horizontal=True, vertical_alignment="bottom"):
        st.text_input(
            _("Save the draft as a version"),
            placeholder=_("e.g. clearer feedback"),
            key=f"{key}.version_name",
            label_visibility=label_visibility,
        )
        st.button(
            _("Save version"),
            on_click=save_version,
            args=(key,),
            icon=":material/bookmark_add:",
            key=f"{key}.save_version",
        )


def job_progress(slot: JobSlot, key: str, what: str, job: Job[Any] | None, done: bool) -> None:
    """A progress bar with a Cancel button while ``slot``'s job runs, then full reruns until one draws it finished.

    ``job`` and ``done`` are the job and whether it had finished, as the calling run saw it once at
    the start of its section (the caller draws the result only when ``done``): the job can finish
    while the run draws, and only a run that drew the finished job may stop the polling. A rerun can
    be lost while the server is busy, so the fragment keeps asking until one lands.
    ``key`` prefixes this panel's widget and state keys.
    """
    drawn = f"{key}.drawn"
    if job is not None and done:
        st.session_state[drawn] = job.id
    board, me = workspace().jobs, watcher()

    @st.fragment(run_every=JOB_POLL_S if job is not None and not done else None)
    def progress() -> None:
        apply_language()  # a fragment's rerun may run in a new thread, without app.py's choice
        board.watch(me)
        current = slot.job
        if current is None:
            return
        if current.finished:
            if st.session_state.get(drawn) != current.id:
                st.rerun()
            return
        left, right = st.columns([5, 1], vertical_alignment="center")
        spent = workspace().llm_spent(current)
        values = {
            "what": what,
            "done": format_number(current.done),
            "total": format_number(current.total),
            "elapsed": format_duration(current.elapsed_s),
            "cost": f"\\${spent:.4f}",
        }
        if spent:
            text = _("{what}… {done} of {total} ({elapsed}) · llm() spent {cost}").format(**values)
        else:
            text = _("{what}… {done} of {total} ({elapsed})").format(**values)
        left.progress(current.progress, text=text)
        right.button(_("Cancel"), on_click=slot.cancel, icon=":material/stop_circle:", key=f"{key}.cancel")

    progress()


def running_jobs() -> None:
    """Every running job of the studio, whichever session or tab started it, with a Cancel button each."""
    board, me = workspace().jobs, watcher()
    jobs = board.running(me)

    @st.fragment(run_every=JOBS_POLL_S if jobs else None)
    def panel() -> None:
        apply_language()  # a fragment's rerun may run in a new thread, without app.py's choice
        current = board.running(me)
        if not current:
            # Nothing left to list. No full rerun to stop the polling: it would redraw an idle tab (and
            # reload its editor) whenever another tab's job ends; the next run of the page stops it.
            return
        st.markdown("**{title}**".format(title=_("Running jobs")))
        for job in current:
            started = datetime.fromtimestamp(job.started_wall)
            kind = _(JOB_KINDS[job.kind]) if job.kind in JOB_KINDS else job.kind
            # One container per job, so its caption and its Cancel button stay together (and can be found so).
            with st.container(key=f"studio.jobs.job.{job.id}"):
                st.caption(
                    _("{kind} · {done} of {total} · started {time}").format(
                        kind=kind,
                        done=format_number(job.done),
                        total=format_number(job.total),
                        time=format_datetime(started, "HH:mm:ss"),
                    )
                )
                st.button(
                    _("Cancel"),
                    key=f"studio.jobs.cancel.{job.id}",
                    on_click=board.cancel,
                    args=(job.id,),
                    icon=":material/stop_circle:",
                    type="tertiary",
                    help=_("Cancel this job: {kind}").format(kind=kind),
                )

    panel()


def isolation_line(workers: WorkerPool, bold: bool = False) -> str:
    """How strongly metric code is isolated, as one coloured markdown line (the reason in this language)."""
    reason = md(_(workers.isolation_reason))
    if workers.isolation.value == "full":
        level = _("full")
        line = ":green[:material/shield: {level}] · {reason}"
    else:
        level = _("reduced")
        line = ":orange[:material/warning: {level}] · {reason}"
    return line.format(level=f"**{level}**" if bold else level, reason=reason)


def sidebar() -> None:
    """The dataset in use, the running jobs, and how strongly metric code is isolated."""
    workspace().jobs.watch(watcher())
    chosen = in_use()
    with st.sidebar:
        language_picker()
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
        workers = pool()
        st.markdown("**{title}**".format(title=_("Isolation")))
        st.markdown(isolation_line(workers))
        st.caption(
            _(
                "Memory limit: {size} GiB per sandbox as a whole ({mode}: all its processes, shared memory and /tmp)"
            ).format(size=format_number(workers.limits.memory_bytes / (1 << 30)), mode=MEMORY_LIMIT_MODE)
        )
