"""Human scores: the labels of the data in use, the rater and the pass threshold, label files in and out, and
the metric's agreement with the labels (of a run or a job's results, two runs, two raters).

A label belongs to a case id and a candidate's output. It is kept in a label set (:meth:`Human.label_set`):
the source of the data file labelled first, which a later file that keeps its case ids shares, so editing or
growing the file keeps the labels. The data file's ``human`` column is read live as one more rater's scores.
Every run kept (``Runs.keep``) records its agreement with the labels that exist then.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path

from skynet_core.store.human import HumanScores, RunAgreements

from ..datasets import Dataset
from ..human import (
    FILE_RATER,
    Agreement,
    AgreementComparison,
    HumanLabels,
    HumanScore,
    ImportedLabels,
    KnownCases,
    LabelImport,
    RaterAgreement,
    agreement_of,
    compare_agreement,
    labels_csv,
    labels_from_bytes,
    labels_jsonl,
    pass_threshold,
    rater_agreement,
    rater_name,
    record_run_agreement,
    scores_from_cases,
    set_pass_threshold,
    set_rater_name,
)
from ..provenance import Provenance
from ..results import CaseResult
from ..runs import SavedRun
from ..store import Store, connect
from .data import Data
from .values import EXAMPLE_SOURCE, DatasetInUse

AGREEMENTS_KEPT = 8
UNLINKED_KEPT = 8
_TABLES = ("human_scores", "human_imports", "human_dataset_links", "run_agreements")
AgreementKey = tuple[float, int, int]


class Human:
    """The human scores kept in ``store``'s data directory, of the datasets ``data`` loads, and the agreement of
    the metric's results with them. Thread-safe."""

    def __init__(self, store: Store, data: Data) -> None:
        self._settings = store  # the rater's name and the pass threshold are settings of the data directory
        self.data = data
        self.store = HumanScores(store.directory)
        self.run_agreements = RunAgreements(store.directory)
        self._lock = threading.Lock()
        self._agreements: OrderedDict[AgreementKey, Agreement | None] = OrderedDict()
        # A data file found to share no label set's case ids, with the newest score row then: that search reads
        # every set's ids, so it is made again only when a case gains a score (a row is added).
        self._unlinked: OrderedDict[tuple[object, ...], None] = OrderedDict()

    def rater(self) -> str:
        """Who the labels made here belong to: the saved name, else the OS user."""
        return rater_name(self._settings)

    def set_rater(self, name: str) -> str:
        """Save the rater's name (empty: the OS user again); the name in force. ``ValueError`` for a bad name."""
        return set_rater_name(self._settings, name)

    def pass_threshold(self) -> float:
        """The pass threshold of κ, the confusion counts and the least-sure order (0.5 unless changed)."""
        return pass_threshold(self._settings)

    def set_pass_threshold(self, value: float) -> float:
        return set_pass_threshold(self._settings, value)

    def _data_of(self, source: str) -> Dataset | None:
        """The dataset ``source`` as it is now (the example, or the data in use); ``None`` when it is not in use."""
        if source == EXAMPLE_SOURCE:
            return self.data.load(EXAMPLE_SOURCE)
        in_use = self.data.in_use()
        return in_use.data if in_use.data.source == source and not in_use.problem else None

    def label_set(self, source: str, data: Dataset | None = None) -> str:
        """The label set the scores of data file ``source`` are kept in.

        The one it was linked to; else its own (the source itself) when it has scores there (and always a file
        whose cases are not known now); else the label set that shares the most case ids with ``data``, when they
        are at least half of the smaller of the two (the same file grown, trimmed or edited), which it is linked to
        from then on; else its own.
        """
        store = self.store
        linked = store.link(source)
        if linked is not None:
            return linked
        if data is None or store.has_scores(source):
            return source
        key = (source, data.identity, store.last_row())
        with self._lock:
            if key in self._unlinked:
                return source
        sets = {name: count for name, count in store.label_sets().items() if name != source}
        if not sets:
            return source
        ids = data.case_ids()
        labelled = {name: store.case_ids(name) for name in sets}
        shared = {name: len(found & ids) for name, found in labelled.items()}
        best = max(shared, key=lambda name: (shared[name], name))
        if shared[best] and 2 * shared[best] >= min(len(labelled[best]), len(ids)):
            store.set_link(source, best)
            return best
        with self._lock:
            self._unlinked[key] = None
            while len(self._unlinked) > UNLINKED_KEPT:
                self._unlinked.popitem(last=False)
        return source

    def labels(self, source: str | None = None) -> HumanLabels:
        """Every human score of the dataset ``source`` (the one in use when ``None``): the stored ones of its label
        set that name its cases (all of the set's when its cases are not known now), and the data file's ``human``
        column when that dataset is the one in use (as the rater ``FILE_RATER``)."""
        source = source or self.data.in_use().data.source
        data = self._data_of(source)
        label_set = self.label_set(source, data)
        if data is None:
            return HumanLabels.merged(source, self.store.scores(label_set), (), label_set=label_set)
        known, elsewhere = self.store.scores_of_cases(label_set, data.case_ids())
        from_file = scores_from_cases(data.cases, source, FILE_RATER)
        return HumanLabels.merged(source, known, from_file, label_set=label_set, elsewhere=elsewhere)

    def set_score(
        self, case_id: str, value: float, note: str = "", *, in_use: DatasetInUse | None = None
    ) -> HumanScore:
        """The rater's score of one case of the candidate in use (scoring it again replaces it), with a note."""
        in_use = in_use or self.data.in_use()
        label_set = self.label_set(in_use.data.source, in_use.data)
        score = HumanScore(label_set, case_id, in_use.candidate, float(value), self.rater(), note)
        return self.store.set(score)

    def clear_score(self, case_id: str, *, in_use: DatasetInUse | None = None) -> None:
        """Remove the rater's score of one case of the candidate in use (the one the labelling view shows)."""
        in_use = in_use or self.data.in_use()
        shown = self.labels(in_use.data.source).of_rater(self.rater(), in_use.candidate).get(case_id)
        if shown is not None:
            self.store.clear(shown.dataset, shown.case_id, shown.candidate, shown.rater)

    def import_scores(
        self, name: str, data: bytes, *, rater: str | None = None, in_use: DatasetInUse | None = None
    ) -> ImportedLabels:
        """Keep the scores of a ``.csv`` / ``.jsonl`` labels file's bytes for the dataset in use, all or none: the
        rows of its cases (a row without a rater is ``rater``'s, else the rater's; one without a candidate is the
        candidate in use's); the rows of other cases are counted, not kept. ``LabelError`` names the file and line
        of a bad one."""
        in_use = in_use or self.data.in_use()
        label_set = self.label_set(in_use.data.source, in_use.data)
        found = labels_from_bytes(
            data,
            name,
            dataset=label_set,
            rater=rater or self.rater(),
            candidate=in_use.candidate,
            known=KnownCases(in_use.data.case_ids(), in_use.data.candidates),
        )
        record = self.store.import_scores(
            found.scores,
            LabelImport(
                0, label_set, Path(name).name, time.time(), len(found), found.unknown_rows, found.unknown_sample
            ),
        )
        return ImportedLabels(
            count=len(found),
            raters=tuple(HumanLabels(label_set, found.scores).raters()),
            candidate=in_use.candidate if found.defaulted else None,
            import_id=record.id,
            unknown_rows=found.unknown_rows,
            unknown_sample=found.unknown_sample,
        )

    def label_imports(self, source: str | None = None) -> list[LabelImport]:
        """The imports into the label set of ``source`` (the data in use when ``None``) whose scores are still kept,
        newest first."""
        source = source or self.data.in_use().data.source
        return self.store.imports(self.label_set(source, self._data_of(source)))

    def delete_label_import(self, import_id: int) -> int:
        """Delete the scores one import kept (those not scored again since); how many were deleted."""
        return self.store.delete_import(import_id)

    def stored_raters(self, source: str | None = None) -> list[str]:
        """Who has stored scores in the label set of ``source`` (the data in use when ``None``), those of cases the
        data does not have too, most scores first: whose labels "Delete these labels" can delete."""
        source = source or self.data.in_use().data.source
        return self.store.raters(self.label_set(source, self._data_of(source)))

    def delete_rater_labels(self, rater: str, source: str | None = None) -> int:
        """Delete every stored score of ``rater`` in the label set of ``source`` (the data in use when ``None``),
        those of cases the data does not have too; how many were deleted."""
        source = source or self.data.in_use().data.source
        return self.store.delete_rater(self.label_set(source, self._data_of(source)), rater)

    def assign_candidate(self, candidate: str, source: str | None = None) -> int:
        """Give the stored scores that name no candidate (kept before a score belonged to one candidate's output)
        to ``candidate``; how many were given."""
        source = source or self.data.in_use().data.source
        return self.store.assign_candidate(self.label_set(source, self._data_of(source)), candidate)

    def export_scores(self, form: str, source: str | None = None) -> bytes:
        """The stored human scores of a dataset as ``csv`` or ``jsonl`` bytes (the data file's column is its own)."""
        scores = self.labels(source).stored()
        return labels_jsonl(scores) if form == "jsonl" else labels_csv(scores)

    def agreement(
        self,
        results: Sequence[CaseResult],
        source: str,
        candidate: str,
        *,
        rater: str | None = None,
        labels: HumanLabels | None = None,
        threshold: float | None = None,
    ) -> Agreement | None:
        """The agreement of one candidate's ``results`` on dataset ``source`` with its human scores (one rater's,
        or every rater's mean), ``None`` without any; computed once for the same results, labels and threshold."""
        labels = labels or self.labels(source)
        humans = labels.values(candidate, rater)
        threshold = self.pass_threshold() if threshold is None else threshold
        fingerprint = hash(tuple((r.id, r.score, r.status, tuple(r.scores.items())) for r in results))
        key = (threshold, fingerprint, hash(tuple(sorted(humans.items()))))
        with self._lock:
            if key in self._agreements:
                self._agreements.move_to_end(key)
                return self._agreements[key]
        found = agreement_of(results, humans, threshold=threshold)
        with self._lock:
            self._agreements[key] = found
            while len(self._agreements) > AGREEMENTS_KEPT:
                self._agreements.popitem(last=False)
        return found

    def recorded_agreement(self, run_id: int) -> Agreement | None:
        """A run's agreement with the human scores that existed when it was kept (``None``: there were none)."""
        return self.run_agreements.get(run_id)

    def compare_agreement(
        self,
        results_a: Sequence[CaseResult],
        results_b: Sequence[CaseResult],
        source: str,
        candidate: str,
        *,
        rater: str | None = None,
    ) -> AgreementComparison | None:
        """Two sets of results of one candidate against the same human scores now; ``None`` without any."""
        humans = self.labels(source).values(candidate, rater)
        if not humans:
            return None
        return compare_agreement(results_a, results_b, humans, threshold=self.pass_threshold())

    def rater_agreement(self, first: str, second: str, candidate: str, labels: HumanLabels) -> RaterAgreement:
        """Two raters' agreement (Krippendorff's α, interval) on ``candidate``'s cases, and where they differ."""
        return rater_agreement(labels.values(candidate, first), labels.values(candidate, second), names=(first, second))

    def record_run(self, run_id: int, results: list[CaseResult], made_by: Provenance) -> None:
        """Record the kept run ``run_id``'s agreement with the human scores that exist now (``Runs.keep``)."""
        humans = self.labels(made_by.dataset).values(made_by.candidate)
        record_run_agreement(run_id, results, humans, self.run_agreements, threshold=self.pass_threshold())

    def run_agreement(self, run: SavedRun, *, rater: str | None = None) -> Agreement | None:
        """A saved run's agreement with its dataset's human scores as they are now."""
        return self.agreement(run.results, run.key.dataset, run.key.candidate, rater=rater)

    def clear(self) -> None:
        """Forget the human scores and the runs' agreements (``Workspace.clear``)."""
        stores = (self.store, self.run_agreements)  # opening a store makes its table (both in one file)
        with connect(stores[0].path) as db:
            for table in _TABLES:
                db.execute(f"DELETE FROM {table}")  # a fixed list of our own tables
