"""The studio's state and its use cases, in one place, for every page and session of one server.

A :class:`Workspace` owns what the studio remembers and runs, one part per module:

- ``draft``: the metric draft with its revision number (:meth:`Workspace.type_draft`,
  :meth:`Workspace.replace_draft`, :meth:`Workspace.save_version`), and the reflection step's text;
- ``dataset``: the dataset choice (file, roles, candidate files, candidate, split), the loaded dataset,
  uploads, and the cases the live check runs;
- ``settings``: the model settings (saved settings over the environment), the timeout, the Ray address,
  the language; the run options and the one scorer they make; provenance; the :meth:`Workspace.snapshot`
  a page's script run reads;
- ``bounds``: what the server shares and bounds for every session: the answer cache of ``llm()`` calls
  (on or off, its bound and size, clearing it; the run options use it) and the cap on sandboxes alive at
  once, with its queue;
- ``records``: scored runs and feedback marks;
- ``human``: human scores (the labels of the data in use, the rater, the pass threshold, label files) and the
  metric's agreement with them; every run kept records its agreement with the labels that exist then;
- ``usecases``: the jobs (check, score, compare, consistency, probes, grading, the trade-offs' candidates),
  on the :class:`~skynet_core.workspace.jobs.JobBoard`, whoever started them;
- ``uplift``: "Does the feedback help?", the feedback-uplift experiment as a job, and the results it keeps;
- ``align``: "Align the judge", GEPA rewriting the draft's ``llm()`` instructions toward the human scores, as a job.
- ``stress``: "Will the optimizer game it?", the stress test as a job, and the runs it keeps.

It is process-wide, like the database; what belongs to one browser session (the API keys typed on the
Settings page, the session's id as a job watcher, its job slots) is passed in explicitly. It never
imports streamlit. Pages and widgets call these methods; none of them touches a store.

The draft protocol. Every write of the draft raises its revision. A writer says which revision
its text is based on (the revision its editor was loaded from or last wrote); a write based on
an older revision than the one stored is a *conflict*: both texts are kept (the stored one
becomes a version named for it) and the writer's text becomes the draft. Every text about to be
replaced by something the user did not type (an example, an upload, a restore, a write from
the trade-offs page) becomes a version first. Typing makes an automatic version at most every
:data:`AUTO_VERSION_S` seconds.
"""

from __future__ import annotations

import threading
from pathlib import Path

from ..scoring import RunOptions
from ..store import data_dir
from .align import AlignForm, AlignPart, AlignSetup
from .stress import StressForm, StressPart, StressSetup
from .uplift import UpliftForm, UpliftPart, UpliftSetup
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
    "DraftWrite",
    "RunOptions",
    "SavedVersion",
    "Snapshot",
    "StressForm",
    "StressSetup",
    "UpliftForm",
    "UpliftSetup",
    "Workspace",
    "example_metric",
    "workspace_for",
]


class Workspace(AlignPart, StressPart, UpliftPart):
    """The studio's state and use cases (see the package docstring). Thread-safe; one per data directory."""


_workspaces: dict[str, Workspace] = {}
_workspaces_lock = threading.Lock()


def workspace_for(directory: str | Path | None = None) -> Workspace:
    """The process's workspace of ``directory`` (the data directory when ``None``): one per directory."""
    folder = str(Path(directory) if directory is not None else data_dir())
    with _workspaces_lock:
        if folder not in _workspaces:
            _workspaces[folder] = Workspace(folder)
            _workspaces[folder].apply_sandbox_cap()  # the server's cap on sandboxes is its data directory's setting
        return _workspaces[folder]
