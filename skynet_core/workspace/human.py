"""Human scores: the labels of the data in use, the rater and the pass threshold, label files in and out, and
the metric's agreement with the labels (of a run or a job's results, two runs, two raters).

A label belongs to the dataset's source, the key the scored runs use (see :mod:`skynet_core.human.labels`
for why not its identity). The data file's ``human`` column is read live as one more rater's scores. Every
run kept (``keep_run``) records its agreement with the labels that exist then.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Sequence
from functools import cached_property

from ..cases import Case
from ..human import (
    FILE_RATER,
    Agreement,
    AgreementComparison,
    HumanLabels,
    HumanScore,
    HumanScores,
    ImportedLabels,
    RaterAgreement,
    RunAgreements,
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
from ..metric.source import MetricSource
from ..provenance import Provenance
from ..results import CaseResult
from ..runs import SavedRun
from ..store import connect
from .records import RecordsPart
from .values import DatasetInUse

AGREEMENTS_KEPT = 8
_TABLES = ("human_scores", "run_agreements")
AgreementKey = tuple[float, int, int]


class HumanPart(RecordsPart):
    @cached_property
    def human_store(self) -> HumanScores:
        return HumanScores(self.directory)

    @cached_property
    def run_agreements(self) -> RunAgreements:
        return RunAgreements(self.directory)

    @cached_property
    def _agreements(self) -> OrderedDict[AgreementKey, Agreement | None]:
        return OrderedDict()

    def rater(self) -> str:
        """Who the labels made here belong to: the saved name, else the OS user."""
        return rater_name(self.store)

    def set_rater(self, name: str) -> str:
        """Save the rater's name (empty: the OS user again); the name in force. ``ValueError`` for a bad name."""
        return set_rater_name(self.store, name)

    def pass_threshold(self) -> float:
        """The pass threshold of κ, the confusion counts and the least-sure order (0.5 unless changed)."""
        return pass_threshold(self.store)

    def set_pass_threshold(self, value: float) -> float:
        return set_pass_threshold(self.store, value)

    def human_labels(self, source: str | None = None) -> HumanLabels:
        """Every human score of the dataset ``source`` (the one in use when ``None``): the stored ones, and the
        data file's ``human`` column when that dataset is the one in use (as the rater ``FILE_RATER``)."""
        source = source or self.dataset().data.source
        cases = self.cases_of(source) or []
        return HumanLabels.merged(source, self.human_store.scores(source), scores_from_cases(cases, source, FILE_RATER))

    def set_human_score(
        self, case_id: str, value: float, note: str = "", *, in_use: DatasetInUse | None = None
    ) -> HumanScore:
        """The rater's score of one case of the candidate in use (scoring it again replaces it), with a note."""
        in_use = in_use or self.dataset()
        score = HumanScore(in_use.data.source, case_id, in_use.candidate, float(value), self.rater(), note)
        return self.human_store.set(score)

    def clear_human_score(self, case_id: str, *, in_use: DatasetInUse | None = None) -> None:
        """Remove the rater's score of one case of the candidate in use (the one the labelling view shows)."""
        in_use = in_use or self.dataset()
        shown = self.human_labels(in_use.data.source).of_rater(self.rater(), in_use.candidate).get(case_id)
        if shown is not None:
            self.human_store.clear(shown.dataset, shown.case_id, shown.candidate, shown.rater)

    def import_human_scores(
        self, name: str, data: bytes, *, rater: str | None = None, in_use: DatasetInUse | None = None
    ) -> ImportedLabels:
        """Keep the scores of a ``.csv`` / ``.jsonl`` labels file's bytes for the dataset in use, all or none (a row
        without a rater is ``rater``'s, else the rater's). ``LabelError`` names the file and line of a bad one."""
        in_use = in_use or self.dataset()
        scores = labels_from_bytes(data, name, dataset=in_use.data.source, rater=rater or self.rater())
        kept = self.human_store.set_many(scores)
        known = {case.id for case in in_use.data.cases}
        unknown = tuple(dict.fromkeys(score.case_id for score in kept if score.case_id not in known))
        return ImportedLabels(len(kept), tuple(HumanLabels(in_use.data.source, tuple(kept)).raters()), unknown)

    def export_human_scores(self, form: str, source: str | None = None) -> bytes:
        """The stored human scores of a dataset as ``csv`` or ``jsonl`` bytes (the data file's column is its own)."""
        scores = self.human_labels(source).stored()
        return labels_jsonl(scores) if form == "jsonl" else labels_csv(scores)

    def human_agreement(
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
        labels = labels or self.human_labels(source)
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

    def compare_human_agreement(
        self,
        results_a: Sequence[CaseResult],
        results_b: Sequence[CaseResult],
        source: str,
        candidate: str,
        *,
        rater: str | None = None,
    ) -> AgreementComparison | None:
        """Two sets of results of one candidate against the same human scores now; ``None`` without any."""
        humans = self.human_labels(source).values(candidate, rater)
        if not humans:
            return None
        return compare_agreement(results_a, results_b, humans, threshold=self.pass_threshold())

    def rater_agreement(self, first: str, second: str, candidate: str, labels: HumanLabels) -> RaterAgreement:
        """Two raters' agreement (Krippendorff's α, interval) on ``candidate``'s cases, and where they differ."""
        return rater_agreement(labels.values(candidate, first), labels.values(candidate, second), names=(first, second))

    def keep_run(
        self, metric: MetricSource, results: list[CaseResult], made_by: Provenance, cases: list[Case] | None = None
    ) -> int:
        """Keep the run (see ``RecordsPart.keep_run``) and its agreement with the human scores that exist now."""
        run_id = super().keep_run(metric, results, made_by, cases)
        humans = self.human_labels(made_by.dataset).values(made_by.candidate)
        record_run_agreement(run_id, results, humans, self.run_agreements, threshold=self.pass_threshold())
        return run_id

    def run_human_agreement(self, run: SavedRun, *, rater: str | None = None) -> Agreement | None:
        """A saved run's agreement with its dataset's human scores as they are now."""
        return self.human_agreement(run.results, run.key.dataset, run.key.candidate, rater=rater)

    def clear(self) -> None:
        """Forget everything (``RecordsPart.clear``), the human scores and the runs' agreements too."""
        super().clear()
        stores = (self.human_store, self.run_agreements)  # opening a store makes its table (both in one file)
        with connect(stores[0].path) as db:
            for table in _TABLES:
                db.execute(f"DELETE FROM {table}")  # a fixed list of our own tables
