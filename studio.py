"""Shared UI state for every page: the store, the worker pool, the dataset in use, the metric source.

Pages call these helpers instead of reaching into ``st.session_state`` by
hand, so every page agrees on the keys. Settings that outlive a session live
in the store under the ``SETTING_*`` keys below (the Data and Settings pages
write them; the Author page reads them).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson
import streamlit as st

from skynet_core.cases import Case
from skynet_core.contract import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S
from skynet_core.datasets import (
    CandidateFile,
    Dataset,
    DatasetError,
    Role,
    load_dataset,
    load_example,
    roles_from_json,
    roles_to_json,
)
from skynet_core.display import CELL_CHARS, clip, clipped, markdown_text, more_note
from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.jobs import Job, JobSlot
from skynet_core.llm import ModelSettings, load_settings, make_handler, save_settings
from skynet_core.paths import PathRefused, server_path
from skynet_core.pysource import parse as parse_source
from skynet_core.results import CheckReport
from skynet_core.runner import LlmHandler, WorkerPool, default_pool
from skynet_core.runner.watchdog import MEMORY_LIMIT_MODE
from skynet_core.runs import RunKey, RunStore
from skynet_core.store import Store, Version, data_dir

# Store keys (JSON values). ``dataset.path`` is a file path, or "example" for the bundled tickets.
SETTING_DATASET_PATH = "dataset.path"
SETTING_CANDIDATE = "dataset.candidate"  # a candidate name; missing or unknown means the first
SETTING_SPLIT = "dataset.split"  # "train", "val", "test", or null for every split
# For a file (not the example): {column: [role, field]}, missing or null for roles inferred from the column names;
# more candidates as [{"name", "path", "roles"}] joined by id; the main file's candidate name when it has none.
SETTING_DATASET_ROLES = "dataset.roles"
SETTING_DATASET_CANDIDATE_FILES = "dataset.candidate_files"
SETTING_DATASET_MAIN_CANDIDATE = "dataset.main_candidate"
SETTING_TIMEOUT = "timeout_s"
EXAMPLE_SOURCE = "example"
FIRST_EXAMPLE = "Exact match"

_SOURCE = "studio.metric_source"
_SAVED = "studio.saved_source"


_ROUTED = "studio.routed"


def mark_routed() -> None:
    """Called by app.py before it runs a page: this session's pages run inside the router."""
    st.session_state[_ROUTED] = True


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

    if st.session_state.get(_ROUTED) or not getattr(PagesManager, "uses_pages_directory", False):
        return
    PagesManager.uses_pages_directory = False
    st.rerun()


@st.cache_resource(show_spinner=False)
def _store(directory: str) -> Store:
    return Store(directory)


def store() -> Store:
    """The store in the data directory (one per directory, shared by the process's sessions)."""
    return _store(str(data_dir()))


def pool() -> WorkerPool:
    """The process-wide pool of pre-started metric workers."""
    return default_pool()


def md(text: str) -> str:
    """Text from metric code, data or its errors, shown literally inside markdown (no formatting, no icons)."""
    return markdown_text(clipped(str(text), CELL_CHARS * 4))


def long_text(text: str, key: str, empty: str = "(empty)") -> None:
    """Text from metric code (feedback, an error, prints) shown literally at a bounded cost: its first
    characters, with a note and a download of the whole when it is longer."""
    shown, hidden = clip(text)
    st.code(shown + more_note(hidden) if text.strip() else empty, language=None, wrap_lines=True)
    if hidden:
        st.download_button("Download the full text", text.encode("utf-8"), file_name=f"{key}.txt", mime="text/plain",
                           key=f"{key}.download", on_click="ignore", icon=":material/download:")


def example_source(title: str = FIRST_EXAMPLE) -> str:
    return EXAMPLE_METRICS[title].read_text(encoding="utf-8")


def metric_source() -> str:
    """This session's metric.py text: the saved draft, or the first example when nothing was typed yet.

    Whatever sets the text (the editor, an upload, an example, a test writing
    ``st.session_state["studio.metric_source"]``), it is saved as the draft here
    when it changed, so nothing typed is lost.
    """
    if _SOURCE not in st.session_state:
        draft = store().draft()
        st.session_state[_SOURCE] = draft if draft is not None else example_source()
        st.session_state[_SAVED] = draft
    source = st.session_state[_SOURCE]
    if st.session_state.get(_SAVED) != source:
        store().save_draft(source)
        st.session_state[_SAVED] = source
    return source


def set_metric_source(source: str) -> None:
    """Make ``source`` the session's metric.py (saved as the draft)."""
    st.session_state[_SOURCE] = source
    metric_source()


def timeout_s() -> float:
    value = store().get(SETTING_TIMEOUT, DEFAULT_TIMEOUT_S)
    try:
        value = float(value)
    except (TypeError, ValueError):
        return DEFAULT_TIMEOUT_S
    return value if MIN_TIMEOUT_S <= value <= MAX_TIMEOUT_S else DEFAULT_TIMEOUT_S


def set_timeout_s(value: float) -> None:
    store().set(SETTING_TIMEOUT, float(value))


@st.cache_resource(show_spinner="Loading the cases…", max_entries=4)
def _load(path: str, stamp: tuple[int, ...], roles: str, files: str, main_candidate: str | None) -> Dataset:
    if path == EXAMPLE_SOURCE:
        return load_example()
    return load_dataset(path, roles=roles_from_json(orjson.loads(roles)) if roles != "null" else None,
                        candidate_files=[CandidateFile.from_json(item) for item in orjson.loads(files)],
                        main_candidate=main_candidate)


def load_choice(path: str, roles: dict[str, tuple[Role, str]] | None = None,
                candidate_files: list[CandidateFile] | None = None, main_candidate: str | None = None) -> Dataset:
    """Load a dataset choice (through the cache the pages share). Raises DatasetError or OSError."""
    if path == EXAMPLE_SOURCE:
        return _load(EXAMPLE_SOURCE, (), "null", "[]", None)
    files = candidate_files or []
    try:  # a choice saved earlier, or by another session, is held to the same roots as a typed one
        for name in (path, *(item.path for item in files)):
            server_path(name)
    except PathRefused as exc:
        raise DatasetError(str(exc)) from None
    stamp = tuple(Path(name).stat().st_mtime_ns for name in (path, *(item.path for item in files)))
    return _load(path, stamp, orjson.dumps(roles_to_json(roles) if roles else None).decode(),
                 orjson.dumps([item.to_json() for item in files]).decode(), main_candidate)


def dataset_choice() -> tuple[str, dict[str, tuple[Role, str]] | None, list[CandidateFile], str | None]:
    """The stored choice: path (or "example"), roles (None: inferred), candidate files, main candidate name."""
    path = str(store().get(SETTING_DATASET_PATH, EXAMPLE_SOURCE) or EXAMPLE_SOURCE)
    roles = store().get(SETTING_DATASET_ROLES)
    files = store().get(SETTING_DATASET_CANDIDATE_FILES) or []
    return (path, roles_from_json(roles) if roles else None,
            [CandidateFile.from_json(item) for item in files], store().get(SETTING_DATASET_MAIN_CANDIDATE))


def save_dataset_choice(path: str, roles: dict[str, tuple[Role, str]] | None = None,
                        candidate_files: list[CandidateFile] | None = None, main_candidate: str | None = None) -> None:
    store().set(SETTING_DATASET_PATH, path)
    store().set(SETTING_DATASET_ROLES, roles_to_json(roles) if roles else None)
    store().set(SETTING_DATASET_CANDIDATE_FILES, [item.to_json() for item in candidate_files or []])
    store().set(SETTING_DATASET_MAIN_CANDIDATE, main_candidate)


def dataset() -> tuple[Dataset, str | None]:
    """The dataset in use and, when the chosen file could not be read, why the example is shown instead."""
    try:
        choice = dataset_choice()
    except DatasetError as exc:
        return load_choice(EXAMPLE_SOURCE), f"The saved dataset choice could not be read ({exc}); using the example."
    try:
        return load_choice(*choice), None
    except DatasetError as exc:
        reason = str(exc)
    except OSError as exc:
        reason = f"{exc.filename or choice[0]} could not be read ({exc.strerror or exc})."
    return load_choice(EXAMPLE_SOURCE), f"The example is in use: the chosen dataset could not be loaded. {reason}"


def uploads_dir() -> Path:
    """Where uploaded case files are kept (so a choice of one survives a restart)."""
    return data_dir() / "uploads"


def candidate(data: Dataset) -> str:
    chosen = store().get(SETTING_CANDIDATE)
    return chosen if chosen in data.candidates else data.candidates[0]


def split() -> str | None:
    chosen = store().get(SETTING_SPLIT)
    return chosen if isinstance(chosen, str) and chosen else None


def cases_in_use() -> list[Case]:
    """The chosen candidate's cases in the chosen split (every split when none is chosen)."""
    data, _ = dataset()
    chosen_split = split()
    return [case for case in data.for_candidate(candidate(data)) if chosen_split is None or case.split == chosen_split]


def job_slot(kind: str) -> JobSlot:
    """This session's slot for ``kind`` jobs (``check`` or ``score``)."""
    key = f"studio.jobs.{kind}"
    if key not in st.session_state:
        st.session_state[key] = JobSlot()
    return st.session_state[key]


@st.cache_resource(show_spinner=False)
def _run_store(directory: str) -> RunStore:
    return RunStore(directory)


def run_store() -> RunStore:
    """The scored runs in the data directory (Feedback review reads the latest)."""
    return _run_store(str(data_dir()))


def run_key(source: str) -> RunKey:
    """The key of scoring the cases in use (dataset, candidate, split) with metric.py text ``source``."""
    data, _ = dataset()
    return RunKey.of(data, candidate(data), split(), source)


def save_scored_run(job: Job[CheckReport], source: str) -> int | None:
    """Keep a finished "Score all cases" job's results for Feedback review; returns the saved run's id.

    Call it whenever the page sees the job (on every run is fine): each job is saved
    once per session, against the dataset, candidate and split in use. Nothing is saved
    while the job runs, when it was cancelled or failed, or when no case was scored.
    """
    saved: dict[int, int] = st.session_state.setdefault("studio.saved_runs", {})
    if job.id in saved:
        return saved[job.id]
    if not job.finished or job.cancelled or job.result is None or not job.result.cases:
        return None
    saved[job.id] = run_store().save(run_key(source), job.result.cases, metric_source=source)
    return saved[job.id]


_LLM_KEYS = "studio.llm_keys"


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


def model_settings() -> ModelSettings:
    """The metric and reflection models in effect: saved settings over the environment, with the session's keys."""
    return load_settings(store(), session_keys())


def save_model_settings(settings: ModelSettings) -> None:
    """Save the model settings, keys left out (they stay in the session)."""
    save_settings(store(), settings)


def calls_in_flight() -> int:
    """Cases scored at once by "Score all cases" (the Settings page's "calls in flight", default 8)."""
    return model_settings().concurrency


JOB_POLL_S = 0.2


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

    @st.fragment(run_every=JOB_POLL_S if job is not None and not done else None)
    def progress() -> None:
        current = slot.job
        if current is None:
            return
        if current.finished:
            if st.session_state.get(drawn) != current.id:
                st.rerun()
            return
        left, right = st.columns([5, 1], vertical_alignment="center")
        left.progress(current.progress, text=f"{what}… {current.done} of {current.total} "
                                              f"({current.elapsed_s:.1f} s)")
        right.button("Cancel", on_click=slot.cancel, icon=":material/stop_circle:", key=f"{key}.cancel")

    progress()


def llm_handler() -> LlmHandler:
    """The handler for the metric's ``llm()``; litellm is imported only when a metric calls it."""
    return make_handler(model_settings())


def reward_weights(source: str) -> dict[str, float] | None:
    """The normalised weights of metric.py's literal ``REWARD_SPEC``, or None when there is no valid one."""
    from skynet_core.reward import validate_reward_spec

    spec = reward_spec_in(source).spec
    return dict(validate_reward_spec(spec).weights) if spec is not None else None


def sidebar() -> None:
    """The dataset in use and how strongly metric code is isolated."""
    data, problem = dataset()
    chosen = candidate(data)
    chosen_split = split()
    count = len([c for c in data.for_candidate(chosen) if chosen_split is None or c.split == chosen_split])
    with st.sidebar:
        st.markdown("**Dataset**")
        st.markdown(f"{md(data.name)}  \n{count} cases · candidate {md(chosen or '(only one)')} · "
                    f"split {md(chosen_split or 'all')}")
        if problem:
            st.warning(problem)
        workers = pool()
        st.markdown("**Isolation**")
        if workers.isolation.value == "full":
            st.markdown(f":green[:material/shield: full] · {workers.isolation_reason}")
        else:
            st.markdown(f":orange[:material/warning: reduced] · {workers.isolation_reason}")
        st.caption(f"Memory limit: {workers.limits.memory_bytes / (1 << 30):g} GiB per sandbox as a whole "
                   f"({MEMORY_LIMIT_MODE}: all its processes, shared memory and /tmp)")


@dataclass(frozen=True)
class RewardSpecInSource:
    """What metric.py's top-level ``REWARD_SPEC`` holds, read without running metric.py.

    ``spec`` is the literal dict when it is valid; otherwise ``problem`` says, for people, why
    there is none (absent, computed, invalid, or metric.py does not parse), and ``line`` is the
    metric.py line at fault when there is one.
    """

    spec: dict[str, Any] | None
    problem: str | None = None
    line: int | None = None


@st.cache_data(show_spinner=False, max_entries=64)
def reward_spec_in(source: str) -> RewardSpecInSource:
    """The ``REWARD_SPEC`` in force in ``source`` (the last top-level assignment), read with ``ast.literal_eval``.

    Cached by text (each caller gets its own copy), so a page that redraws on every control
    change parses metric.py once per edit.
    """
    from skynet_core.reward import RewardSpecError, validate_reward_spec

    try:
        tree = parse_source(source)
    except SyntaxError as exc:
        return RewardSpecInSource(None, f"metric.py does not parse (line {exc.lineno}: {exc.msg}), so its "
                                        "REWARD_SPEC cannot be read; fix it on the Author page.", exc.lineno)
    except ValueError as exc:
        return RewardSpecInSource(None, f"metric.py cannot be parsed ({exc}); fix it on the Author page.")
    assignments = [node for node in tree.body if isinstance(node, (ast.Assign, ast.AnnAssign))
                   and node.value is not None
                   and any(isinstance(target, ast.Name) and target.id == "REWARD_SPEC"
                           for target in (node.targets if isinstance(node, ast.Assign) else [node.target]))]
    if not assignments:
        return RewardSpecInSource(None, "metric.py defines no REWARD_SPEC at its top level.")
    node = assignments[-1]
    try:
        value = ast.literal_eval(node.value)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return RewardSpecInSource(None, f"REWARD_SPEC at metric.py line {node.lineno} is computed, not written as "
                                        "a literal dict, so it cannot be read without running metric.py.",
                                  node.lineno)
    try:
        validate_reward_spec(value)
    except RewardSpecError as exc:
        return RewardSpecInSource(None, f"REWARD_SPEC at metric.py line {node.lineno} is invalid: {exc}",
                                  node.lineno)
    return RewardSpecInSource(value)


def replace_metric_source(new: str, reason: str) -> Version | None:
    """Make ``new`` this session's metric.py and show it in the Author page's editor.

    The old text is saved as a version first (named for ``reason``), so nothing typed is lost;
    returns that version, or None when there was nothing to keep.
    """
    old = metric_source()
    version = None
    if old.strip() and old != new:
        version = store().save_version(f"before {reason} ({datetime.now():%H:%M:%S})", old)
    set_metric_source(new)
    # The Author page builds a new editor instance from this seed when its generation changes.
    st.session_state["author.editor_seed"] = new
    st.session_state["author.editor_gen"] = st.session_state.get("author.editor_gen", 0) + 1
    return version
