"""The workspace's jobs (``Workspace.jobs``): every use case that runs metric code or a model, in the background,
on the job board, and the board itself (running jobs, cancelling one, a session saying it is still here).

Each method starts a :class:`~skynet_core.workspace.jobs.Job` in the caller's
:class:`~skynet_core.workspace.jobs.JobSlot` (a newer job of the slot cancels the older one), lists it on the job
board under ``watcher`` (so every session sees it under Running jobs and may cancel it) and returns it. Every
scoring job scores through the workspace's one :class:`~skynet_core.scoring.Scorer` (the Ray cluster's when an
address is set) with one ``RunOptions``.
"""

from __future__ import annotations

import dataclasses
import threading
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

from .. import llm
from ..cases import Case
from ..feedback import Grade, grade_feedback, probe_cases
from ..i18n import language, use_language
from ..judge.consistency import Consistency, judge_consistency
from ..llm import ModelSettings
from ..llm.cache import without_cache
from ..metric.contract import SAMPLE_SIZE, check_metric
from ..metric.packages import packages_stamp
from ..metric.source import MetricSource
from ..provenance import Provenance
from ..results import CaseResult, CheckReport, JobKind
from ..reward.candidates import candidate_cases
from ..runs import by_candidate
from ..scoring import RunOptions, Scorer
from ..scoring.runner import LlmHandler
from .data import Data
from .drafts import Drafts
from .jobs import Job, JobBoard, JobSlot
from .runs import Runs
from .settings import Settings

T = TypeVar("T")
CHECKS_KEPT = 32  # passed checks remembered (a report of a few sampled cases: some kilobytes each)
Compared = tuple[list[CaseResult], list[CaseResult]]
Pairs = Sequence[tuple[Case, CaseResult]]


def passed_whole(report: CheckReport) -> bool:
    """Whether a check may be remembered: every stage passed, every case scored ok, and no case asked a model
    (an answer may differ next time; a judge's check is run again, its answers from the cache)."""
    return report.ok and all(case.ok and not case.llm_calls for case in report.cases)


class UseCases:
    """The jobs of the draft (``drafts``) on the data in use (``data``) with the ``settings``' scorer and run
    options, listed on ``board``; scored runs are kept in ``runs``. Thread-safe."""

    def __init__(self, board: JobBoard, drafts: Drafts, data: Data, settings: Settings, runs: Runs) -> None:
        self.board = board
        self.drafts = drafts
        self.data = data
        self.settings = settings
        self.runs = runs
        self._lock = threading.Lock()
        self._handlers: weakref.WeakKeyDictionary[Job[Any], LlmHandler] = weakref.WeakKeyDictionary()
        # Checks that passed whole, by what made them: a new tab's check of the same text is drawn from here at once
        # instead of starting a sandbox.
        self._checked: OrderedDict[tuple[Any, ...], CheckReport] = OrderedDict()

    # --- the job board ---------------------------------------------------------------------------------------

    def submit(
        self,
        slot: JobSlot,
        job: Job[T],
        target: Callable[[Job[T]], T],
        watcher: str | None,
        *,
        llm: LlmHandler | None = None,
    ) -> Job[T]:
        """Start ``job`` in ``slot`` (cancelling the slot's older job) and list it on the job board; ``llm`` is the
        handler of its ``llm()`` calls, whose cost :meth:`llm_spent` reads."""
        if llm is not None:
            self._handlers[job] = llm
        self.board.add(job, watcher)
        return slot.submit(job, target)

    def running(self, watcher: str | None = None) -> list[Job[Any]]:
        """Every session's running jobs, oldest first (``JobBoard.running``)."""
        return self.board.running(watcher)

    def cancel(self, job_id: int) -> None:
        """Cancel a running job of any session."""
        self.board.cancel(job_id)

    def watch(self, watcher: str) -> None:
        """``watcher`` (a session) is still here: its jobs are not orphans."""
        self.board.watch(watcher)

    # --- the use cases -----------------------------------------------------------------------------------------

    def check(
        self,
        slot: JobSlot,
        metric: MetricSource,
        *,
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
        fresh: bool = False,
    ) -> Job[CheckReport]:
        """The contract check of ``metric`` on the sampled (or pinned) cases in use.

        A check that passed whole (every stage, every case ok, no ``llm()`` call) is remembered by what made it:
        the metric folder, the dataset, the cases, the model settings, the timeout, the place, the packages folder
        and the language of its messages. The same check asked again (a new tab, a revisit, the server's preload)
        is that report at once, without a sandbox; ``fresh`` runs it again ("Check again"). A failure is never
        remembered, nor a metric that asks a model: those are run each time."""
        in_use = self.data.in_use()
        cases, options, scorer = in_use.cases, self.settings.run_options(keys), self.settings.scorer()
        chosen = self.data.check_cases(in_use)
        sample = chosen.cases if chosen.pinned else None
        made_by = self.settings.provenance(metric, keys, in_use)
        memo = (
            made_by,
            tuple(chosen.ids),
            options.timeout_s,
            self.settings.ray_address(),
            packages_stamp(),
            language(),
        )
        with self._lock:
            known = None if fresh else self._checked.get(memo)
            if known is not None:
                self._checked.move_to_end(memo)

        def run(job: Job[CheckReport]) -> CheckReport:
            if known is not None:
                job.done = job.total
                return known
            # Up to the settings' cases in flight, as "Score all": the runner adds children only once the cases
            # prove slow (a judge's answers), so a quick metric's check stays in the one child that loaded it.
            live = dataclasses.replace(options.watched_by(job), stop_on_timeout=True)
            report = check_metric(metric, cases, live, scorer=scorer, sample=sample)
            if not job.cancel.is_set() and passed_whole(report):
                with self._lock:
                    self._checked[memo] = report
                    while len(self._checked) > CHECKS_KEPT:
                        self._checked.popitem(last=False)
            return report

        total = len(chosen.cases) if chosen.pinned else min(SAMPLE_SIZE, len(cases))
        return self.submit(slot, Job(JobKind.CHECK, total, "contract check", provenance=made_by), run, watcher)

    def score(
        self,
        slot: JobSlot,
        metric: MetricSource,
        cases: list[Case],
        options: RunOptions,
        *,
        kind: JobKind = JobKind.SCORE,
        label: str = "",
        watcher: str | None = None,
        provenance: Provenance | None = None,
        keep: Callable[[CheckReport], None] | None = None,
        scorer: Scorer | None = None,
    ) -> Job[CheckReport]:
        """Score every case of ``cases`` (the one way to do it): a hanging case times out alone and the run
        goes on; the report's ``cases`` hold every result in case order. ``keep`` is given a run that finishes
        (not cancelled, at least one case scored), to keep it in the database."""
        scorer = scorer or self.settings.scorer()

        def run(job: Job[CheckReport]) -> CheckReport:
            report = check_metric(metric, cases, options.watched_by(job), scorer=scorer, sample=cases)
            if keep is not None and not job.cancel.is_set() and report.cases:
                keep(report)
            return report

        job: Job[CheckReport] = Job(kind, len(cases), label, provenance=provenance)
        return self.submit(slot, job, run, watcher, llm=options.llm)

    def try_case(
        self,
        slot: JobSlot,
        metric: MetricSource,
        case: Case,
        *,
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
    ) -> Job[CheckReport]:
        """Score one typed case with ``metric`` in the sandboxed runner (never kept as a run)."""
        options = self.settings.run_options(keys)
        return self.score(slot, metric, [case], options, kind=JobKind.TRY, label=f"case {case.id}", watcher=watcher)

    def score_all(
        self,
        slot: JobSlot,
        metric: MetricSource | None = None,
        *,
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
    ) -> Job[CheckReport]:
        """Score every case in use with the draft (or ``metric``). A run that finishes (not cancelled, at least
        one case scored) is kept in the database with its provenance: Feedback review and later sessions read it."""
        metric = metric or self.drafts.current().metric
        in_use = self.data.in_use()
        made_by = self.settings.provenance(metric, keys, in_use)
        options = self.settings.run_options(keys)
        cases = in_use.cases

        def keep(report: CheckReport) -> None:
            self.runs.keep(metric, report.cases, made_by, cases)

        return self.score(
            slot, metric, cases, options, label="score all", watcher=watcher, provenance=made_by, keep=keep
        )

    def try_judge(
        self,
        slot: JobSlot,
        metric: MetricSource,
        cases: list[Case],
        settings: ModelSettings,
        *,
        watcher: str | None = None,
    ) -> Job[CheckReport]:
        """Score ``cases`` with ``settings`` (saved or not: the Settings page's form), never kept as a run. Every
        call asks the model (the answer cache is bypassed): the try-out shows whether these settings answer."""
        options = self.settings.run_options(settings=settings.with_changes(cache=False))
        return self.score(slot, metric, cases, options, kind=JobKind.TRY_JUDGE, watcher=watcher)

    def probes(
        self,
        slot: JobSlot,
        metric: MetricSource,
        cases: Sequence[Case],
        *,
        label: str = "",
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
    ) -> Job[CheckReport]:
        """Score trivial outputs (an empty string, the input echoed…) on up to 20 of ``cases``."""
        options = self.settings.run_options(keys)
        return self.score(slot, metric, probe_cases(cases), options, kind=JobKind.PROBES, label=label, watcher=watcher)

    def llm_spent(self, job: Job[Any]) -> float | None:
        """What ``job``'s ``llm()`` calls have cost so far (USD), when it is a scoring run with a model handler."""
        spent = getattr(self._handlers.get(job), "spent_usd", None)
        return float(spent) if isinstance(spent, int | float) else None

    def judge_consistency(
        self,
        slot: JobSlot,
        metric: MetricSource,
        cases: list[Case],
        repeats: int,
        *,
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
    ) -> Job[Consistency]:
        """Score ``cases`` ``repeats`` times each: how far a judge's verdicts spread on the same case. Every run
        asks the model afresh (the answer cache is bypassed: the spread is the model's own)."""
        options, scorer = self.settings.run_options(keys), self.settings.scorer()
        options = dataclasses.replace(options, llm=without_cache(options.llm))

        def run(job: Job[Consistency]) -> Consistency:
            return judge_consistency(scorer, metric, cases, repeats, options.watched_by(job))

        made_by = self.settings.provenance(metric, keys)
        job: Job[Consistency] = Job(JobKind.CONSISTENCY, len(cases) * repeats, provenance=made_by)
        return self.submit(slot, job, run, watcher, llm=options.llm)

    def compare_versions(
        self,
        slot: JobSlot,
        old: MetricSource,
        new: MetricSource,
        *,
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
    ) -> Job[Compared]:
        """Score both versions on the cases in use; the result is (old results, new results)."""
        in_use = self.data.in_use()
        cases, options, scorer = in_use.cases, self.settings.run_options(keys), self.settings.scorer()

        def run(job: Job[Compared]) -> Compared:
            watched = options.watched_by(job)
            return scorer(old, cases, watched).results, scorer(new, cases, watched).results

        made_by = self.settings.provenance(new, keys, in_use)
        job: Job[Compared] = Job(JobKind.COMPARE, 2 * len(cases), f"{len(cases)} cases", provenance=made_by)
        return self.submit(slot, job, run, watcher)

    def score_candidates(
        self,
        slot: JobSlot,
        metric: MetricSource,
        *,
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
    ) -> Job[CheckReport]:
        """Score every candidate's cases in use once. Each candidate's run is kept like a "Score all" run: the one
        store of scores (the trade-offs page re-weights ``scored_candidates``; a reload, Feedback review find them)."""
        in_use = self.data.in_use()
        split, names = in_use.split, list(in_use.data.candidates)
        cases, options = candidate_cases(in_use.data, split), self.settings.run_options(keys)
        made_by = self.settings.provenance(metric, keys, in_use)

        def keep(report: CheckReport) -> None:
            for name, (results, scored) in by_candidate(report.cases, cases, names).items():
                self.runs.keep(metric, results, dataclasses.replace(made_by, candidate=name, split=split), scored)

        return self.score(
            slot,
            metric,
            cases,
            options,
            kind=JobKind.TRADEOFFS,
            label="tradeoffs",
            watcher=watcher,
            provenance=made_by,
            keep=keep,
        )

    def grade_feedback(
        self, slot: JobSlot, pairs: Pairs, settings: ModelSettings, *, label: str = "", watcher: str | None = None
    ) -> Job[list[Grade]]:
        """Ask the model in effect to grade each case's feedback (1 to 5, with a reason), in the background.
        The grades so far are the job's ``items``; a failed call is that case's grade's error, and ends the job."""
        chosen = language()  # the job writes its messages in the language of the session that started it

        def ask(instructions: str, text: str) -> str:
            return llm.complete(settings, instructions, text).text  # looked up at call time (tests replace it)

        def run(job: Job[list[Grade]]) -> list[Grade]:
            with use_language(chosen):
                return grade_feedback(pairs, ask, cancel=job.cancel, on_grade=job.add_item)

        return self.submit(slot, Job(JobKind.GRADE, len(pairs), label), run, watcher)
