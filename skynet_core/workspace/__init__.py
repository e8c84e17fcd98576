"""The studio's state and its use cases, in one place, for every page and session of one server.

A :class:`Workspace` holds services with one job each, one module each; a service gets the services it needs in its
constructor (none holds the workspace):

- ``ws.drafts`` (:class:`~.drafts.Drafts`, ``drafts.py``): the metric draft with its revision number
  (``current``, ``type``, ``replace``), its versions (``save_version``, ``versions``, ``last_conflict``), and the
  reflection step's text per dataset (``instruction``);
- ``ws.data`` (:class:`~.data.Data`, ``data.py``): the dataset choice (file, roles, candidate files, candidate,
  split), the loaded dataset ``in_use()``, uploads, and the cases the live check runs (pins);
- ``ws.settings`` (:class:`~.settings.Settings`, ``settings.py``): the model settings (saved settings over the
  environment), the timeout, the Ray address, the language; the run options and the one ``scorer`` they make; the
  ``provenance`` a result made now would have;
- ``ws.bounds`` (:class:`~.bounds.Bounds`, ``bounds.py``): what the server shares and bounds for every session: the
  answer cache of ``llm()`` calls (on or off, its bound and size, clearing it; the run options use it) and the cap
  on sandboxes alive at once, with its queue;
- ``ws.human`` (:class:`~.human.Human`, ``human.py``): human scores (the labels of the data in use, the rater, the
  pass threshold, label files) and the metric's agreement with them;
- ``ws.runs`` (:class:`~.runs.Runs`, ``runs.py``): scored runs and feedback marks; every run kept records its
  agreement with the labels that exist then;
- ``ws.jobs`` (:class:`~.usecases.UseCases`, ``usecases.py``): the jobs (check, score, compare, consistency,
  probes, grading, the trade-offs' candidates) and the :class:`~.jobs.JobBoard` they are listed on, whoever
  started them (``running``, ``cancel``, ``watch``);
- ``ws.uplift`` (:class:`~.uplift.Uplift`, ``uplift.py``): "Does the feedback help?", the feedback-uplift
  experiment as a job, and the results it keeps;
- ``ws.align`` (:class:`~.align.Align`, ``align.py``): "Align the judge", GEPA rewriting the draft's ``llm()``
  instructions toward the human scores, as a job;
- ``ws.stress`` (:class:`~.stress.Stress`, ``stress.py``): "Will the optimizer game it?", the stress test as a
  job, and the runs it keeps.

The three experiment services share one :class:`~.basis.Basis` (``basis.py``: the draft, the data, the settings, the
jobs, and where each keeps its form). The workspace itself composes them: :meth:`Workspace.snapshot` (what a page's
script run reads, once) and :meth:`Workspace.clear` (forgetting everything). It is process-wide, like the database;
what belongs to one browser session (the API keys typed on the Settings page, the session's id as a job watcher, its
job slots) is passed in explicitly. It never imports streamlit. Pages and widgets call the services; none of them
touches a store (the records they show, :class:`Draft` and :class:`Version`, and the data directory are re-exported
here).

The draft protocol. Every write of the draft raises its revision. A writer says which revision
its text is based on (the revision its editor was loaded from or last wrote); a write based on
an older revision than the one stored is a *conflict*: both texts are kept (the stored one
becomes a version named for it) and the writer's text becomes the draft. Every text about to be
replaced by something the user did not type (an example, an upload, a restore, a write from
the trade-offs page) becomes a version first. Typing makes an automatic version at most every
:data:`AUTO_VERSION_S` seconds.
"""

from __future__ import annotations

import shutil
import threading
from collections.abc import Mapping
from pathlib import Path

from ..scoring import RunOptions
from ..scoring.runner import WorkerPool
from ..store import DEFAULT_WORKSPACE, Draft, Store, Version, connect, data_dir
from .align import Align, AlignForm, AlignSetup
from .basis import Basis
from .bounds import Bounds
from .data import Data
from .drafts import Drafts
from .human import Human
from .jobs import JobBoard
from .runs import Runs
from .settings import Settings
from .stress import Stress, StressForm, StressSetup
from .uplift import Uplift, UpliftForm, UpliftSetup
from .usecases import UseCases
from .values import (
    AUTO_VERSION_S,
    EXAMPLE_SOURCE,
    FIRST_EXAMPLE,
    SETTING_CANDIDATE,
    SETTING_DATASET_CANDIDATE_FILES,
    SETTING_DATASET_MAIN_CANDIDATE,
    SETTING_DATASET_PATH,
    SETTING_DATASET_ROLES,
    SETTING_LANGUAGE,
    SETTING_RAY_ADDRESS,
    SETTING_SPLIT,
    SETTING_TIMEOUT,
    Conflict,
    DatasetChoice,
    DatasetInUse,
    DraftWrite,
    SavedVersion,
    Snapshot,
    example_metric,
)

__all__ = [
    "AUTO_VERSION_S",
    "AlignForm",
    "AlignSetup",
    "EXAMPLE_SOURCE",
    "FIRST_EXAMPLE",
    "SETTING_CANDIDATE",
    "SETTING_DATASET_CANDIDATE_FILES",
    "SETTING_DATASET_MAIN_CANDIDATE",
    "SETTING_DATASET_PATH",
    "SETTING_DATASET_ROLES",
    "SETTING_LANGUAGE",
    "SETTING_RAY_ADDRESS",
    "SETTING_SPLIT",
    "SETTING_TIMEOUT",
    "Conflict",
    "DatasetChoice",
    "DatasetInUse",
    "Draft",
    "DraftWrite",
    "RunOptions",
    "SavedVersion",
    "Snapshot",
    "StressForm",
    "StressSetup",
    "UpliftForm",
    "UpliftSetup",
    "Version",
    "Workspace",
    "data_dir",
    "example_metric",
    "workspace_for",
]


# The tables of the data directory's database that ``Workspace.clear`` empties itself (the services clear theirs).
_TABLES = ("drafts", "versions", "settings", "scored_runs", "feedback_marks")


class Workspace:
    """The studio's state and use cases, as services (see the package docstring). Thread-safe; one per data
    directory (``workspace_for``)."""

    def __init__(
        self,
        directory: str | Path | None = None,
        *,
        pool: WorkerPool | None = None,
        name: str = DEFAULT_WORKSPACE,
        jobs: JobBoard | None = None,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.store = Store(directory)
        self.directory = self.store.directory
        self.name = name
        self.drafts = Drafts(self.store, name)
        self.data = Data(self.store, name)
        self.bounds = Bounds(self.store)
        self.settings = Settings(self.store, self.bounds, self.drafts, self.data, pool=pool, env=env)
        self.human = Human(self.store, self.data)
        self.runs = Runs(self.store, self.data, self.human, name)
        self.jobs = UseCases(jobs or JobBoard(), self.drafts, self.data, self.settings, self.runs)
        basis = Basis(self.store, self.drafts, self.data, self.settings, self.jobs, name)
        self.uplift = Uplift(basis)
        self.align = Align(basis, self.human)
        self.stress = Stress(basis)

    @property
    def pool(self) -> WorkerPool:
        """The pool of pre-started metric workers (the process-wide one unless another was given)."""
        return self.settings.pool

    def snapshot(self, keys: Mapping[str, str] | None = None) -> Snapshot:
        """Everything a page's script run shows, each read once from the database (see :class:`Snapshot`)."""
        settings = self.settings
        draft, in_use, models = self.drafts.current(), self.data.in_use(), settings.models(keys)
        provenance = settings.provenance(draft.metric, in_use=in_use, settings=models)
        return Snapshot(
            draft, in_use, models, provenance, settings.timeout_s(), settings.ray_address(), settings.language()
        )

    def clear(self) -> None:
        """Forget everything the studio keeps in the data directory: drafts, versions, settings, runs, marks,
        uploads, human scores, the saved experiments and stress runs, the alignments in memory. A fresh data
        directory's state (the browser tests start each test from it). Running jobs are left alone: they belong
        to the sessions that started them."""
        with connect(self.store.path) as db:
            for table in _TABLES:
                db.execute(f"DELETE FROM {table}")  # a fixed list of our own tables
        shutil.rmtree(self.data.uploads_dir(), ignore_errors=True)
        self.human.clear()
        self.uplift.clear()
        self.stress.clear()
        self.align.clear()


_workspaces: dict[str, Workspace] = {}
_workspaces_lock = threading.Lock()


def workspace_for(directory: str | Path | None = None) -> Workspace:
    """The process's workspace of ``directory`` (the data directory when ``None``): one per directory."""
    folder = str(Path(directory) if directory is not None else data_dir())
    with _workspaces_lock:
        if folder not in _workspaces:
            _workspaces[folder] = Workspace(folder)
            _workspaces[
                folder
            ].bounds.apply_sandbox_cap()  # the server's cap on sandboxes is its data directory's setting
        return _workspaces[folder]
