"""The studio's state and its use cases, in one place, for every page and session of one server.

A :class:`Workspace` owns what the studio remembers and runs:

- the database (drafts, versions, settings, scored runs and feedback marks, one SQLite file in
  the data directory);
- the metric draft, with its revision number (:meth:`Workspace.type_draft`,
  :meth:`Workspace.replace_draft`, :meth:`Workspace.save_version`);
- the dataset choice (file, roles, candidate files, candidate, split) and the loaded dataset;
- the model settings (saved settings over the environment) and the run options;
- the jobs (:class:`~skynet_core.jobs.JobBoard`), whoever started them.

It is process-wide, like the database; what belongs to one browser session (the API keys
typed on the Settings page, the session's id as a job watcher) is passed in explicitly.
It never imports streamlit.

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
import weakref
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import orjson

from .cases import Case
from .contract import DEFAULT_TIMEOUT_S, MAX_TIMEOUT_S, MIN_TIMEOUT_S, SAMPLE_SIZE
from .datasets import (
    CandidateFile,
    Dataset,
    DatasetError,
    Role,
    load_dataset,
    load_example,
    roles_from_json,
    roles_to_json,
)
from .examples import EXAMPLE_METRICS
from .feedback.marks import MarkStore
from .i18n import _
from .jobs import Job, JobBoard, JobSlot
from .judge import Consistency
from .llm import ModelSettings, load_settings, make_handler, save_settings
from .metric_source import MetricSource
from .paths import PathRefused, server_path
from .provenance import Provenance, settings_fingerprint
from .results import CaseResult, CheckReport
from .runner import LlmHandler, WorkerPool, default_pool
from .runs import RunKey, RunStore, SavedRun, metric_hash
from .store import DEFAULT_WORKSPACE, Draft, Store, Version, VersionKind, data_dir

if TYPE_CHECKING:
    from .authoring import CheckCases

T = TypeVar("T")

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
SETTING_RAY_ADDRESS = "ray.address"  # the Ray cluster "Score all" scores on; empty: this machine
SETTING_LANGUAGE = "ui.language"  # the language picked in the sidebar ("en", "zh_CN"); missing: the browser's
SETTING_CONFLICT = "draft.conflict"  # the last conflict between two writers: {"version": id, "at": time}
EXAMPLE_SOURCE = "example"
FIRST_EXAMPLE = "Exact match"
AUTO_VERSION_S = 180.0
"""Typing keeps an automatic version of the draft at most this often (seconds)."""
DATASETS_KEPT = 4


def example_metric(title: str = FIRST_EXAMPLE) -> MetricSource:
    """A bundled example metric (metric.py alone)."""
    return MetricSource.of(EXAMPLE_METRICS[title].read_text(encoding="utf-8"))


def runnable(metric: MetricSource) -> MetricSource:
    """What the runner and the contract check are given for ``metric``: the whole folder (contract rule 13)."""
    return metric


@dataclass(frozen=True)
class RunOptions:
    """How metric code runs: per-call timeout, cases in flight, the handler of its ``llm()`` calls, the pool."""

    timeout_s: float = DEFAULT_TIMEOUT_S
    concurrency: int = 8
    llm: LlmHandler | None = None
    pool: WorkerPool | None = None
    scorer: Callable[..., Any] | None = None  # scores elsewhere (a Ray cluster); None: on this machine

    def for_job(self, job: Job[Any], *, concurrency: bool = True) -> dict[str, Any]:
        """The runner's keyword arguments for ``job``: these options, its cancel event and its progress."""
        common: dict[str, Any] = {
            "timeout": self.timeout_s,
            "llm": self.llm,
            "pool": self.pool,
            "cancel": job.cancel,
            "on_result": job.add_result,
        }
        return {**common, "concurrency": self.concurrency} if concurrency else common


@dataclass(frozen=True)
class DatasetChoice:
    """What the Data page chose: the file (or ``"example"``), its column roles (``None``: inferred from the
    names), more candidates as files joined by id, the main file's candidate name, and the candidate and
    split the other pages use (``None``: the first candidate, every split)."""

    path: str = EXAMPLE_SOURCE
    roles: dict[str, tuple[Role, str]] | None = None
    candidate_files: tuple[CandidateFile, ...] = ()
    main_candidate: str | None = None
    candidate: str | None = None
    split: str | None = None


@dataclass(frozen=True)
class DatasetInUse:
    """The loaded dataset, the candidate and split in use, and (when the chosen file failed) why the
    example is shown instead."""

    data: Dataset
    candidate: str
    split: str | None
    problem: str | None = None

    @property
    def cases(self) -> list[Case]:
        """The candidate's cases in the split (every split when none is chosen)."""
        return [
            case for case in self.data.for_candidate(self.candidate) if self.split is None or case.split == self.split
        ]


@dataclass(frozen=True)
class DraftWrite:
    """The outcome of a write of the draft: the draft now stored, and the version that kept the text it
    replaced (``None`` when nothing needed keeping). ``conflict`` is true when the write was based on an
    older revision than the stored one (another tab or page wrote in between)."""

    draft: Draft
    kept: Version | None = None
    conflict: bool = False


@dataclass(frozen=True)
class SavedVersion:
    """A "Save version" request's outcome: the version, and whether a new one was made (``False``: the
    draft was already the latest version, which is returned instead of a duplicate)."""

    version: Version
    created: bool


@dataclass(frozen=True)
class Conflict:
    """The last time two writers edited the draft at once: the version that kept the other text, and when."""

    version_id: int
    at: float


class Workspace:
    """The studio's state and use cases (see the module docstring). Thread-safe; one per data directory."""

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
        self.runs = RunStore(self.directory)
        self.marks = MarkStore(self.store.path)
        self.name = name
        self.jobs = jobs or JobBoard()
        self._pool = pool
        self._env = env
        self._lock = threading.Lock()
        self._datasets: OrderedDict[str, Dataset] = OrderedDict()
        self._handlers: weakref.WeakKeyDictionary[Job[Any], LlmHandler] = weakref.WeakKeyDictionary()

    # --- the pool and run options -----------------------------------------------------------

    @property
    def pool(self) -> WorkerPool:
        """The pool of pre-started metric workers (the process-wide one unless another was given)."""
        return self._pool or default_pool()

    def model_settings(self, keys: Mapping[str, str] | None = None) -> ModelSettings:
        """The models in effect: saved settings over the environment, with a session's ``keys``."""
        return load_settings(self.store, keys, self._env)

    def save_model_settings(self, settings: ModelSettings) -> None:
        """Save the model settings, keys left out (they stay in the session)."""
        save_settings(self.store, settings)

    def timeout_s(self) -> float:
        value = self.store.get(SETTING_TIMEOUT, DEFAULT_TIMEOUT_S)
        try:
            value = float(value)
        except (TypeError, ValueError):
            return DEFAULT_TIMEOUT_S
        return value if MIN_TIMEOUT_S <= value <= MAX_TIMEOUT_S else DEFAULT_TIMEOUT_S

    def set_timeout_s(self, value: float) -> None:
        self.store.set(SETTING_TIMEOUT, float(value))

    def run_options(self, keys: Mapping[str, str] | None = None, settings: ModelSettings | None = None) -> RunOptions:
        """The options every run of metric code uses now (``settings`` overrides the saved models, for a try-out)."""
        settings = settings or self.model_settings(keys)
        address = self.ray_address()
        scorer = None
        if address:
            from .runner.cluster import ray_scorer

            scorer = ray_scorer(address)
        return RunOptions(self.timeout_s(), settings.concurrency, make_handler(settings), self.pool, scorer)

    def ray_address(self) -> str:
        """The Ray cluster "Score all" scores on (empty: this machine)."""
        value = self.store.get(SETTING_RAY_ADDRESS, "")
        return value.strip() if isinstance(value, str) else ""

    def set_ray_address(self, address: str) -> None:
        self.store.set(SETTING_RAY_ADDRESS, address.strip())

    # --- the draft and its versions ----------------------------------------------------------

    def draft(self) -> Draft:
        """The stored draft; revision 0 with the first example when nothing was ever written."""
        return self.store.draft_record(self.name) or Draft(0, example_metric(), 0.0)

    def type_draft(self, metric: str | MetricSource, base_revision: int) -> DraftWrite:
        """Save what the user typed, based on ``base_revision`` (the revision the editor showed).

        On a conflict, the stored text is kept as a version and the typed text becomes the draft.
        """
        metric = MetricSource.of(metric)
        written, stored = self.store.write_draft(metric, base_revision, self.name)
        if written:
            self._autosave(metric)
            return DraftWrite(stored)
        if stored.metric == metric:
            return DraftWrite(stored)
        kept = None
        while not written:
            # Whatever another writer stored meanwhile is kept before the typed text replaces it.
            kept = self.store.save_version(
                _("other tab's text, replaced at {time}").format(time=_clock()),
                stored.metric,
                self.name,
                VersionKind.KEPT,
            )
            written, stored = self.store.write_draft(metric, stored.revision, self.name)
        assert kept is not None
        self.store.set(self._key(SETTING_CONFLICT), {"version": kept.id, "at": kept.created_at})
        return DraftWrite(stored, kept, conflict=True)

    def replace_draft(self, metric: str | MetricSource, reason: str, *, keep: bool = True) -> DraftWrite:
        """Make ``metric`` the draft for ``reason`` (an example, an upload, a restore…); the text it replaces
        becomes a version first when it differs and was ever written. ``keep=False`` is for changes that lose
        no text (adding an empty file, renaming one)."""
        metric = MetricSource.of(metric)
        current = self.draft()
        kept = None
        if keep and current.revision and current.metric != metric and current.source.strip():
            name = _("before {reason} ({time})").format(reason=reason, time=_clock())
            kept = self.store.save_version(name, current.metric, self.name, VersionKind.KEPT)
        return DraftWrite(self.store.write_draft(metric, None, self.name)[1], kept)

    def save_version(self, name: str, metric: str | MetricSource | None = None) -> SavedVersion:
        """Save the draft (or ``metric``) as a named version, unless it is already the latest version."""
        metric = MetricSource.of(metric) if metric is not None else self.draft().metric
        latest = self.store.latest_version(self.name)
        if latest is not None and latest.folder == metric:
            if latest.kind is VersionKind.NAMED:
                return SavedVersion(latest, created=False)
            # The latest version is an automatic copy of the same text: it gets the name instead of a twin.
            return SavedVersion(self.store.name_version(latest.id, name.strip() or "unnamed"), created=True)
        return SavedVersion(self.store.save_version(name.strip() or "unnamed", metric, self.name), created=True)

    def versions(self) -> list[Version]:
        """The saved versions, newest first."""
        return self.store.versions(self.name)

    def last_conflict(self) -> Conflict | None:
        """The last conflict between two writers of the draft, if there was one."""
        value = self.store.get(self._key(SETTING_CONFLICT))
        if not isinstance(value, dict):
            return None
        return Conflict(int(value.get("version", 0)), float(value.get("at", 0.0)))

    def _autosave(self, metric: MetricSource) -> None:
        last_auto = self.store.latest_version(self.name, VersionKind.AUTO)
        if last_auto is not None and self.draft().updated_at - last_auto.created_at < AUTO_VERSION_S:
            return
        latest = self.store.latest_version(self.name)
        if latest is None or latest.folder != metric:
            self.store.save_version(_("autosave {time}").format(time=_clock()), metric, self.name, VersionKind.AUTO)

    def _key(self, key: str) -> str:
        return key if self.name == DEFAULT_WORKSPACE else f"{self.name}:{key}"

    # --- the dataset ---------------------------------------------------------------------------

    def dataset_choice(self) -> DatasetChoice:
        """The stored choice (raises DatasetError when the stored roles cannot be read)."""
        get = self.store.get
        roles = get(SETTING_DATASET_ROLES)
        split = get(SETTING_SPLIT)
        return DatasetChoice(
            str(get(SETTING_DATASET_PATH, EXAMPLE_SOURCE) or EXAMPLE_SOURCE),
            roles_from_json(roles) if roles else None,
            tuple(CandidateFile.from_json(item) for item in get(SETTING_DATASET_CANDIDATE_FILES) or []),
            get(SETTING_DATASET_MAIN_CANDIDATE),
            get(SETTING_CANDIDATE),
            split if isinstance(split, str) and split else None,
        )

    def save_dataset_choice(
        self,
        path: str,
        roles: dict[str, tuple[Role, str]] | None = None,
        candidate_files: list[CandidateFile] | None = None,
        main_candidate: str | None = None,
    ) -> None:
        """Choose a dataset file (the candidate and split are kept; an unknown candidate means the first)."""
        self.store.set(SETTING_DATASET_PATH, path)
        self.store.set(SETTING_DATASET_ROLES, roles_to_json(roles) if roles else None)
        self.store.set(SETTING_DATASET_CANDIDATE_FILES, [item.to_json() for item in candidate_files or []])
        self.store.set(SETTING_DATASET_MAIN_CANDIDATE, main_candidate)

    def choose_cases(self, candidate: str | None, split: str | None) -> None:
        """Choose the candidate and split the pages score (``None``: the first candidate, every split)."""
        self.store.set(SETTING_CANDIDATE, candidate)
        self.store.set(SETTING_SPLIT, split)

    def load(
        self,
        path: str,
        roles: dict[str, tuple[Role, str]] | None = None,
        candidate_files: list[CandidateFile] | tuple[CandidateFile, ...] = (),
        main_candidate: str | None = None,
    ) -> Dataset:
        """Load a dataset (kept in memory while its files are unchanged). Raises DatasetError or OSError."""
        if path == EXAMPLE_SOURCE:
            key = EXAMPLE_SOURCE
        else:
            stamps = [Path(name).stat().st_mtime_ns for name in (path, *(item.path for item in candidate_files))]
            key = orjson.dumps(
                [
                    path,
                    stamps,
                    roles_to_json(roles) if roles else None,
                    [item.to_json() for item in candidate_files],
                    main_candidate,
                ]
            ).decode()
        with self._lock:
            if key in self._datasets:
                self._datasets.move_to_end(key)
                return self._datasets[key]
        data = (
            load_example()
            if path == EXAMPLE_SOURCE
            else load_dataset(path, roles=roles, candidate_files=list(candidate_files), main_candidate=main_candidate)
        )
        with self._lock:
            self._datasets[key] = data
            while len(self._datasets) > DATASETS_KEPT:
                self._datasets.popitem(last=False)
        return data

    def dataset(self) -> DatasetInUse:
        """The dataset in use with its candidate and split; the example (and why) when the chosen one fails."""
        try:
            choice = self.dataset_choice()
        except DatasetError as exc:
            return self._in_use(
                self.load(EXAMPLE_SOURCE),
                DatasetChoice(),
                _("The saved dataset choice could not be read ({error}); using the example.").format(error=exc),
            )
        try:
            if choice.path != EXAMPLE_SOURCE:  # a choice saved earlier, or by another session: the same roots
                for name in (choice.path, *(item.path for item in choice.candidate_files)):
                    server_path(name)
            data = self.load(choice.path, choice.roles, choice.candidate_files, choice.main_candidate)
            return self._in_use(data, choice)
        except PathRefused as exc:
            reason = str(exc)
        except DatasetError as exc:
            reason = str(exc)
        except OSError as exc:
            reason = _("{path} could not be read ({error}).").format(
                path=exc.filename or choice.path, error=exc.strerror or exc
            )
        return self._in_use(
            self.load(EXAMPLE_SOURCE),
            choice,
            _("The example is in use: the chosen dataset could not be loaded. {reason}").format(reason=reason),
        )

    @staticmethod
    def _in_use(data: Dataset, choice: DatasetChoice, problem: str | None = None) -> DatasetInUse:
        candidate = choice.candidate if choice.candidate in data.candidates else data.candidates[0]
        return DatasetInUse(data, candidate, choice.split, problem)

    def uploads_dir(self) -> Path:
        """Where uploaded case files are kept (so a choice of one survives a restart)."""
        return self.directory / "uploads"

    # --- what produced a result --------------------------------------------------------------

    def provenance(
        self,
        metric: str | MetricSource | None = None,
        keys: Mapping[str, str] | None = None,
        in_use: DatasetInUse | None = None,
    ) -> Provenance:
        """The provenance a result made now would have (the draft's metric unless ``metric`` is given)."""
        metric = MetricSource.of(metric) if metric is not None else self.draft().metric
        in_use = in_use or self.dataset()
        settings = self.model_settings(keys)
        effective = settings.effective()
        model, base = (effective[0].model, effective[0].api_base) if effective else ("", None)
        return Provenance(
            metric.digest,
            in_use.data.source,
            in_use.data.name,
            in_use.candidate,
            in_use.split,
            settings_fingerprint(model, base, settings.temperature),
            model,
        )

    # --- use cases: check, score, compare ------------------------------------------------------

    def submit(self, slot: JobSlot, job: Job[T], target: Callable[[Job[T]], T], watcher: str | None) -> Job[T]:
        """Start ``job`` in ``slot`` (cancelling the slot's older job) and list it on the job board."""
        self.jobs.add(job, watcher)
        return slot.submit(job, target)

    def check(
        self, slot: JobSlot, metric: MetricSource, *, keys: Mapping[str, str] | None = None, watcher: str | None = None
    ) -> Job[CheckReport]:
        """The contract check of ``metric`` on the sampled cases in use."""
        from .contract import check_metric

        in_use = self.dataset()
        cases, options = in_use.cases, self.run_options(keys)
        provenance = self.provenance(metric, keys, in_use)
        chosen = self.check_cases(in_use)
        sample = chosen.cases if chosen.pinned else None

        def run(job: Job[CheckReport]) -> CheckReport:
            return check_metric(runnable(metric), cases, sample=sample, **options.for_job(job, concurrency=False))

        total = len(chosen.cases) if chosen.pinned else min(SAMPLE_SIZE, len(cases))
        job: Job[CheckReport] = Job(kind="check", total=total, label="contract check", provenance=provenance)
        return self.submit(slot, job, run, watcher)

    # --- the cases the live check runs, and one typed case --------------------------------------

    def check_pins(self, in_use: DatasetInUse | None = None) -> list[str]:
        """The case ids pinned for the live check on the dataset in use (none: the planner's sample)."""
        from .authoring import SETTING_CHECK_PINS, pins_for

        in_use = in_use or self.dataset()
        return pins_for(self.store.get(self._key(SETTING_CHECK_PINS)), in_use.data.source)

    def set_check_pins(self, ids: list[str], in_use: DatasetInUse | None = None) -> None:
        """Pin ``ids`` for the live check on the dataset in use (an empty list goes back to the sample)."""
        from .authoring import SETTING_CHECK_PINS, with_pins

        in_use = in_use or self.dataset()
        key = self._key(SETTING_CHECK_PINS)
        self.store.set(key, with_pins(self.store.get(key), in_use.data.source, ids))

    def check_cases(self, in_use: DatasetInUse | None = None) -> CheckCases:
        """The cases the live check runs on the dataset in use, and why (pinned or sampled)."""
        from .authoring import check_cases

        in_use = in_use or self.dataset()
        return check_cases(in_use.cases, self.check_pins(in_use))

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
        return self.score(
            slot, metric, [case], self.run_options(keys), kind="try", label=f"case {case.id}", watcher=watcher
        )

    def save_user_case(self, case: Case) -> Path:
        """Add ``case`` to the user dataset (a JSON Lines file in the uploads folder, loadable on Data)."""
        from .authoring import save_user_case

        return save_user_case(self.uploads_dir(), case)

    def score(
        self,
        slot: JobSlot,
        metric: MetricSource,
        cases: list[Case],
        options: RunOptions,
        *,
        kind: str = "score",
        label: str = "",
        watcher: str | None = None,
        provenance: Provenance | None = None,
        keep: bool = False,
    ) -> Job[CheckReport]:
        """Score every case of ``cases`` (the one way to do it): a hanging case times out alone and the run
        goes on; the report's ``cases`` hold every result in case order. With ``keep`` (and a provenance),
        a run that finishes (not cancelled, at least one case scored) is kept in the database."""
        from .contract import check_metric

        def run(job: Job[CheckReport]) -> CheckReport:
            report = check_metric(
                runnable(metric),
                cases,
                sample=cases,
                stop_on_timeout=False,
                scorer=options.scorer,
                **options.for_job(job),
            )
            if keep and provenance is not None and not job.cancel.is_set() and report.cases:
                self.keep_run(metric, report.cases, provenance, cases)
            return report

        job: Job[CheckReport] = Job(kind=kind, total=len(cases), label=label, provenance=provenance)
        if options.llm is not None:
            self._handlers[job] = options.llm
        return self.submit(slot, job, run, watcher)

    def llm_spent(self, job: Job[Any]) -> float | None:
        """What ``job``'s ``llm()`` calls have cost so far (USD), when it is a scoring run with a model handler."""
        spent = getattr(self._handlers.get(job), "spent_usd", None)
        return float(spent) if isinstance(spent, int | float) else None

    def keep_run(
        self,
        metric: MetricSource,
        results: list[CaseResult],
        made_by: Provenance,
        cases: list[Case] | None = None,
    ) -> int:
        """Keep scored results in the database (the run of ``made_by``'s dataset, candidate and split), with
        the ``cases`` scored when given, so the run can be opened and exported with its inputs and outputs
        even after the dataset changes."""
        key = RunKey(made_by.dataset, made_by.candidate, made_by.split, metric_hash(metric.main), made_by.dataset_name)
        return self.runs.save(key, results, metric_source=metric.main, provenance=made_by, cases=cases)

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
        metric = metric or self.draft().metric
        in_use = self.dataset()
        return self.score(
            slot,
            metric,
            in_use.cases,
            self.run_options(keys),
            label="score all",
            watcher=watcher,
            provenance=self.provenance(metric, keys, in_use),
            keep=True,
        )

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
        """Score ``cases`` ``repeats`` times each: how far a judge's verdicts spread on the same case."""
        from .judge import judge_consistency

        options = self.run_options(keys)

        def run(job: Job[Consistency]) -> Consistency:
            return judge_consistency(runnable(metric), cases, repeats, **options.for_job(job))

        job: Job[Consistency] = Job(
            kind="consistency", total=len(cases) * repeats, provenance=self.provenance(metric, keys)
        )
        return self.submit(slot, job, run, watcher)

    def compare_versions(
        self,
        slot: JobSlot,
        old: MetricSource,
        new: MetricSource,
        *,
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
    ) -> Job[tuple[list[CaseResult], list[CaseResult]]]:
        """Score both versions on the cases in use; the result is (old results, new results)."""
        from .runner import score_cases

        in_use = self.dataset()
        cases, options = in_use.cases, self.run_options(keys)

        def run(job: Job[tuple[list[CaseResult], list[CaseResult]]]) -> tuple[list[CaseResult], list[CaseResult]]:
            common = options.for_job(job)
            return (
                score_cases(runnable(old), cases, **common).results,
                score_cases(runnable(new), cases, **common).results,
            )

        job: Job[tuple[list[CaseResult], list[CaseResult]]] = Job(
            kind="compare",
            total=2 * len(cases),
            label=f"{len(cases)} cases",
            provenance=self.provenance(new, keys, in_use),
        )
        return self.submit(slot, job, run, watcher)

    def cases_of(self, source: str) -> list[Case] | None:
        """Every case of the dataset ``source`` (``"example"`` or the file in use) as it is now; ``None``
        when that dataset is not the one in use (its roles and candidate files are not known any more)."""
        if source == EXAMPLE_SOURCE:
            return self.load(EXAMPLE_SOURCE).cases
        in_use = self.dataset()
        return in_use.data.cases if in_use.data.source == source and not in_use.problem else None

    def latest_run(self, in_use: DatasetInUse | None = None) -> SavedRun | None:
        """The newest saved run of the dataset and candidate in use."""
        in_use = in_use or self.dataset()
        return self.runs.latest(in_use.data.source, in_use.candidate)


def _clock() -> str:
    return f"{datetime.now():%H:%M:%S}"


_workspaces: dict[str, Workspace] = {}
_workspaces_lock = threading.Lock()


def workspace_for(directory: str | Path | None = None) -> Workspace:
    """The process's workspace of ``directory`` (the data directory when ``None``): one per directory."""
    folder = str(Path(directory) if directory is not None else data_dir())
    with _workspaces_lock:
        if folder not in _workspaces:
            _workspaces[folder] = Workspace(folder)
        return _workspaces[folder]
