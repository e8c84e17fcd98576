"""Does the feedback help? The uplift experiment as a workspace job, and the results it keeps.

:meth:`Uplift.start` runs :func:`~skynet_core.engines.uplift.run_uplift` for the draft metric on the
cases in use (the candidate and split the Data page chose), with the task and reflection models of the settings,
as a job on the job board: listed under Running jobs, cancellable, its progress counted in steps
(:class:`~skynet_core.engines.uplift.Progress`, read with :meth:`Uplift.progress`). A run that
finished at least one seed (whole, cancelled or stopped at its budget) is saved with the metric version that made
it (:class:`~skynet_core.store.uplift.UpliftStore`), so Feedback review, History and Runs read it back.

The instruction is the workspace's text of the dataset (``Drafts.instruction``, shared with "Try one reflection
step": one text being optimized per dataset), prefilled from the dataset's own instruction; the experiment's size
(:class:`UpliftForm`) is kept in the store too, so both survive a visit to another page and a reload.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skynet_core.engines.uplift.saved import SavedUplift, UpliftSummary
from skynet_core.store.uplift import UpliftStore

from ..engines.uplift.config import DEFAULT_MINIBATCH, DEFAULT_ROUNDS, DEFAULT_SEEDS, Models, UpliftConfig
from ..engines.uplift.result import cases_phrase
from ..engines.uplift.standing import most_complete
from ..i18n import _
from ..llm import ModelSettings
from ..metric.source import MetricSource
from ..results import JobKind
from .basis import Basis
from .jobs import Job, JobSlot
from .values import DatasetInUse

if TYPE_CHECKING:  # the experiment's loop and plan load GEPA's pieces: only when a run is planned or started
    from ..engines.uplift import Experiment, Progress, UpliftPlan, UpliftResult

SETTING_UPLIFT_FORM = "uplift.form"  # {"rounds", "seeds", "minibatch", "max_cost_usd"}: the panel's last values
UPLIFT_ROLES = ("task", "reflection")


@dataclass(frozen=True)
class UpliftForm:
    """The experiment's size as last asked for (checked only when a config is made of it): rounds, seeds, minibatch
    and a budget in US dollars (``None``: none)."""

    rounds: int = DEFAULT_ROUNDS
    seeds: int = DEFAULT_SEEDS
    minibatch: int = DEFAULT_MINIBATCH
    max_cost_usd: float | None = None

    def config(self, instruction: str) -> UpliftConfig:
        """The experiment's config; raises ``ValueError`` for people when a value is impossible."""
        return UpliftConfig(
            instruction,
            rounds=self.rounds,
            seeds=self.seeds,
            minibatch=self.minibatch,
            max_cost_usd=self.max_cost_usd,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "rounds": self.rounds,
            "seeds": self.seeds,
            "minibatch": self.minibatch,
            "max_cost_usd": self.max_cost_usd,
        }

    @classmethod
    def from_json(cls, data: Any) -> UpliftForm:
        """The form stored as ``data``; a value missing or of the wrong type takes the default."""
        data = data if isinstance(data, Mapping) else {}
        whole = {
            name: value
            for name in ("rounds", "seeds", "minibatch")
            if isinstance(value := data.get(name), int) and not isinstance(value, bool)
        }
        budget = data.get("max_cost_usd")
        usable = isinstance(budget, int | float) and not isinstance(budget, bool) and math.isfinite(budget)
        return cls(**whole, max_cost_usd=float(budget) if usable and budget > 0 else None)


@dataclass(frozen=True)
class UpliftSetup:
    """A run as it would start now: its ``plan`` (the calls at most, their estimated cost) and the cases it learns
    from (``train``) and is measured on (``val``), from the dataset's own splits or not (``from_dataset``)."""

    plan: UpliftPlan
    train: int
    val: int
    from_dataset: bool

    def describe_cases(self) -> str:
        """Where the cases come from, for people."""
        train, val = cases_phrase(self.train), cases_phrase(self.val)
        if self.from_dataset:
            return _(
                "It learns from the {train} of the train split and measures on the {val} of the val split."
            ).format(train=train, val=val)
        return _(
            "The cases in use have no train and val splits: it learns from a seeded half ({train}) and measures on "
            "the other ({val})."
        ).format(train=train, val=val)


def missing_models(settings: ModelSettings) -> tuple[str, ...]:
    """The roles among ``task`` and ``reflection`` that have no model in ``settings`` (the experiment needs both)."""
    return tuple(role for role in UPLIFT_ROLES if settings.config(role) is None)


class Uplift:
    """The uplift experiment of the draft on the data in use with the settings' models, scorer and run options, as a
    job (all from ``basis``, which keeps its form); its results in the data directory's
    :class:`~skynet_core.store.uplift.UpliftStore` (``store``)."""

    def __init__(self, basis: Basis) -> None:
        self.basis = basis
        self.store = UpliftStore(basis.store.directory)
        self._progress: weakref.WeakKeyDictionary[Job[Any], Progress] = weakref.WeakKeyDictionary()

    # --- what the panel asks for, kept ----------------------------------------------------------------------

    def instruction(self, in_use: DatasetInUse | None = None) -> str:
        """The instruction the experiment starts from: the text kept for the dataset in use, else the dataset's own
        instruction (the bundled example has one), else ``""``."""
        from ..engines.reflection import dataset_instruction

        data = (in_use or self.basis.data.in_use()).data
        kept = self.basis.drafts.instruction(data.source)
        return kept if kept is not None else dataset_instruction(data) or ""

    def form(self) -> UpliftForm:
        return UpliftForm.from_json(self.basis.form(SETTING_UPLIFT_FORM))

    def set_form(self, form: UpliftForm) -> None:
        self.basis.keep_form(SETTING_UPLIFT_FORM, form.to_json())

    # --- the experiment ------------------------------------------------------------------------------------------

    def experiment(
        self,
        config: UpliftConfig,
        keys: Mapping[str, str] | None = None,
        *,
        metric: MetricSource | None = None,
        in_use: DatasetInUse | None = None,
    ) -> Experiment:
        """The experiment of ``config`` for the draft (or ``metric``) on the cases in use, with the task and reflection
        models of the settings. Raises ``ValueError`` for people: a model missing, too few cases for the config."""
        from ..engines.sandboxed import SandboxedMetric
        from ..engines.uplift import Experiment, split_cases

        settings = self.basis.settings.models(keys)
        missing = missing_models(settings)
        if missing or settings.task is None or settings.reflection is None:
            raise ValueError(missing_models_message(missing))
        in_use = in_use or self.basis.data.in_use()
        options = self.basis.settings.run_options(keys, settings)
        sandboxed = SandboxedMetric(metric or self.basis.drafts.current().metric, options, self.basis.settings.scorer())
        split = split_cases(in_use.cases, config.seed)
        return Experiment(sandboxed, split, config, Models(settings.task, settings.reflection, settings))

    def plan(self, config: UpliftConfig, keys: Mapping[str, str] | None = None) -> UpliftSetup:
        """A run of ``config`` as it would start now: the calls it would make at most, their estimated cost (litellm
        is imported for the models' prices), and its cases. Raises ``ValueError`` like :meth:`experiment`."""
        from ..engines.uplift import plan_uplift

        experiment = self.experiment(config, keys)
        split = experiment.split
        return UpliftSetup(plan_uplift(experiment), len(split.train), len(split.val), split.from_dataset)

    def start(
        self,
        slot: JobSlot,
        config: UpliftConfig,
        *,
        keys: Mapping[str, str] | None = None,
        watcher: str | None = None,
    ) -> Job[UpliftResult]:
        """Run the experiment of ``config`` for the draft in the background; raises ``ValueError`` for people before
        anything starts (see :meth:`experiment`). A run that finished a seed is saved with the draft's metric
        folder and the provenance of the run, cancelled or not; the job's result is the whole
        :class:`~skynet_core.engines.uplift.UpliftResult` (none when cancelled: the saved one holds its seeds)."""
        from ..engines.uplift import run_uplift, total_steps

        metric, in_use = self.basis.drafts.current().metric, self.basis.data.in_use()
        experiment = self.experiment(config, keys, metric=metric, in_use=in_use)
        made_by = self.basis.settings.provenance(metric, keys, in_use)

        def run(job: Job[UpliftResult]) -> UpliftResult:
            def seen(progress: Progress) -> None:
                self._progress[job] = progress
                job.done = progress.done

            result = run_uplift(experiment, cancel=job.cancel, on_progress=seen)
            if result.seeds_finished:
                self.store.save(result, metric, made_by)
            return result

        job: Job[UpliftResult] = Job(JobKind.UPLIFT, total_steps(config), in_use.data.source, provenance=made_by)
        return self.basis.jobs.submit(slot, job, run, watcher)

    def progress(self, job: Job[Any]) -> Progress | None:
        """Where the uplift ``job`` is (``None`` before its first step)."""
        return self._progress.get(job)

    # --- saved results --------------------------------------------------------------------------------------

    def results(self, *, metric: str | None = None, dataset: str | None = None) -> list[UpliftSummary]:
        """Saved experiments, newest first; of the metric folder digest ``metric`` and the dataset ``dataset`` only,
        when given."""
        return self.store.list(metric=metric, dataset=dataset)

    def result(self, saved: int) -> SavedUplift | None:
        return self.store.get(saved)

    def latest(self, in_use: DatasetInUse | None = None) -> SavedUplift | None:
        """The newest saved experiment of the dataset and candidate in use, whatever metric version made it."""
        in_use = in_use or self.basis.data.in_use()
        return self.store.latest(in_use.data.source, in_use.candidate)

    def feedback_value_of(self, metric: str, dataset: str) -> UpliftSummary | None:
        """The most complete saved experiment of the metric folder ``metric`` (a digest) on ``dataset`` (a source)
        with a feedback value (``feedback_value.most_complete``): what History and Runs show for a metric version."""
        return most_complete(self.results(metric=metric, dataset=dataset))

    def clear(self) -> None:
        """Forget the saved experiments (``Workspace.clear``)."""
        self.store.clear()


def missing_models_message(missing: tuple[str, ...]) -> str:
    """What to set, for people, when the experiment lacks models (``missing``: roles among task and reflection)."""
    if missing == ("task",):
        return _(
            'The experiment needs a task model, which runs the instruction on each case: set "Task model" on Settings '
            "(or SKYNET_TASK_MODEL in the server's environment)."
        )
    if missing == ("reflection",):
        return _(
            'The experiment needs a reflection model, which writes the next instruction: set "Reflection model" on '
            "Settings (or SKYNET_REFLECTION_MODEL in the server's environment)."
        )
    return _(
        "The experiment needs a task model (runs the instruction on each case) and a reflection model (writes the next "
        'instruction): set "Task model" and "Reflection model" on Settings (or SKYNET_TASK_MODEL and '
        "SKYNET_REFLECTION_MODEL in the server's environment)."
    )
