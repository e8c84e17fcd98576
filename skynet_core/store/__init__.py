"""Persistence: every SQLite table of the studio, in one file in the data directory, and their migrations.

The SQL lives here, one module per group of tables; the record types a store reads back live apart from the SQL
(the studio's own in :mod:`.records`, a feature's in that feature's package), so pages import records, never a
store. Pages and widgets reach storage only through the workspace's services (:mod:`skynet_core.workspace`).

- ``db``: where the file lives (:func:`data_dir`), opening it with a schema (:func:`open_database`, WAL mode) and
  the connection each call has to itself while it runs, kept open for a later call (:func:`connect`);
- ``studio``: ``drafts``, ``versions``, ``settings`` (:class:`Store`; records :class:`Draft`, :class:`Version` in
  ``records``);
- ``runs``: ``scored_runs`` (:class:`~skynet_core.store.runs.RunStore`; records in :mod:`skynet_core.runs.saved`);
- ``marks``: ``feedback_marks`` (:class:`~skynet_core.store.marks.MarkStore`; records in
  :mod:`skynet_core.feedback.marks`);
- ``human``: ``human_scores``, ``human_imports``, ``human_dataset_links``, ``run_agreements``
  (:class:`~skynet_core.store.human.HumanScores`, :class:`~skynet_core.store.human.RunAgreements`; records in
  :mod:`skynet_core.human`);
- ``uplift``: ``uplift_runs`` (:class:`~skynet_core.store.uplift.UpliftStore`; records in
  :mod:`skynet_core.engines.uplift.saved`);
- ``stress``: ``stress_runs`` (:class:`~skynet_core.store.stress.StressStore`; records in
  :mod:`skynet_core.stress.saved`);
- ``saved_runs``: the one shape of table both experiment stores keep their runs in (save and prune, list, get).

The answer cache of ``llm()`` calls is a file of its own, kept by :mod:`skynet_core.llm.cache`. Only ``db``,
``studio`` and ``records`` are re-exported here: the feature stores import their features' records.
"""

from .db import (
    BUSY_TIMEOUT_MS,
    DATA_DIR_ENV,
    DB_NAME,
    DEFAULT_DATA_DIR,
    DEFAULT_WORKSPACE,
    connect,
    data_dir,
    open_database,
)
from .records import Draft, Version, VersionKind
from .studio import Store

__all__ = [
    "BUSY_TIMEOUT_MS",
    "DATA_DIR_ENV",
    "DB_NAME",
    "DEFAULT_DATA_DIR",
    "DEFAULT_WORKSPACE",
    "Draft",
    "Store",
    "Version",
    "VersionKind",
    "connect",
    "data_dir",
    "open_database",
]
