"""Will the optimizer game it? The stress test as a workspace job, and the runs it keeps.

:meth:`Stress.start` runs :func:`~skynet_core.stress.run_stress` for the draft metric on the cases in use
(the candidate and split the Data page chose), sampled as the form says, through the workspace's one scorer and
run options (the answer cache, the budget per run, the Ray address), as a job on the job board: listed under
Running jobs, cancellable, its progress counted in outputs scored and then the exploit search's proposals. A run
whose scoring finished is saved with the metric version it tested (:class:`~skynet_core.store.stress.StressStore`),
so the Stress test page, History and Runs read it back.

The form (:class:`StressForm`: cases, seed, budget, the search and its rounds) is kept in the store, so it survives
a visit to another page and a reload.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from skynet_core.store.stress import StressStore
from skynet_core.stress.saved import SavedStress, StressRow

from ..cases import Case
from ..i18n import _
from ..llm import ModelSettings
from ..results import JobKind
from ..stress.defaults import DEFAULT_ROUNDS, MAX_ROUNDS
from .basis import Basis
from .jobs import Job, JobSlot
from .uplift import missing_models, missing_models_message
from .values import DatasetInUse

if TYPE_CHECKING:  # the run's modules load numpy and GEPA's pieces: only when a run is planned or started
    from ..stress import StressReport
    from ..stress.plan import StressPlan
    from ..stress.search import SearchPlan

SETTING_STRESS_FORM = "stress.form"  # {"cases", "seed", "max_cost_usd", "search", "rounds"}: the form's last values


@dataclass(frozen=True)
class StressForm:
    """A stress run as last asked for: ``cases`` to sample (``None``: the default, all of them or, for a metric
    that may call a model, a sample that keeps it near 300 calls), the ``seed``, a budget in US dollars for the
    run's model calls (``None``: the settings' budget per run), and whether to run the exploit search, with its
    ``rounds``."""

    cases: int | None = None
    seed: int = 0
    max_cost_usd: float | None = None
    search: bool = False
    rounds: int = DEFAULT_ROUNDS

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "seed": self.seed,
            "max_cost_usd": self.max_cost_usd,
            "search": self.search,
            "rounds": self.rounds,
        }

    @classmethod
    def from_json(cls, data: Any) -> StressForm:
        """The form stored as ``data``; a value missing or of the wrong type takes the default."""
        data = data if isinstance(data, Mapping) else {}

        def whole(name: str, low: int, high: int) -> int | None:
            value = data.get(name)
            ok = isinstance(value, int) and not isinstance(value, bool) and low <= value <= high
            return value if ok else None

        budget = data.get("max_cost_usd")
        usable = isinstance(budget, int | float) and not isinstance(budget, bool) and math.isfinite(budget)
        return cls(
            cases=whole("cases", 1, 10_000_000),
            seed=whole("seed", 0, 2**31) or 0,
            max_cost_usd=float(budget) if usable and budget > 0 else None,
            search=data.get("search") is True,
            rounds=whole("rounds", 1, MAX_ROUNDS) or DEFAULT_ROUNDS,
        )


@dataclass(frozen=True)
class StressSetup:
    """A run as it would start now: the ``plan`` (cases, outputs, model calls at most and their estimated cost),
    the model ``settings`` with the form's budget, the ``sample`` of the cases in use and the ``search`` asked for."""

    plan: StressPlan
    settings: ModelSettings
    sample: list[Case]
    search: SearchPlan | None


class Stress:
    """The stress test of the draft on the data in use with the settings' scorer and run options, as a job (all from
    ``basis``, which keeps its form); its runs in the data directory's
    :class:`~skynet_core.store.stress.StressStore` (``store``)."""

    def __init__(self, basis: Basis) -> None:
        self.basis = basis
        self.store = StressStore(basis.store.directory)
        self._rounds: weakref.WeakKeyDictionary[Job[Any], int] = weakref.WeakKeyDictionary()

    def form(self) -> StressForm:
        return StressForm.from_json(self.basis.form(SETTING_STRESS_FORM))

    def set_form(self, form: StressForm) -> None:
        self.basis.keep_form(SETTING_STRESS_FORM, form.to_json())

    def plan(
        self, form: StressForm, keys: Mapping[str, str] | None = None, in_use: DatasetInUse | None = None
    ) -> StressSetup:
        """A run of ``form`` for the draft as it would start now (litellm's prices are read when a model is
        involved). Raises ``ValueError`` for people: no cases, a model missing for the search."""
        from ..engines.uplift.config import Models
        from ..stress import CATALOG, default_cases, sample_cases
        from ..stress.plan import plan_stress
        from ..stress.search import SearchPlan

        settings = self.basis.settings.models(keys)
        if form.max_cost_usd is not None:
            settings = settings.with_changes(max_cost_usd=form.max_cost_usd)
        cases = (in_use or self.basis.data.in_use()).cases
        if not cases:
            raise ValueError(_("There are no cases to stress: choose a dataset (and split) that has some."))
        metric = self.basis.drafts.current().metric
        count = form.cases if form.cases is not None else default_cases(metric, len(cases), len(CATALOG))
        sample = sample_cases(cases, count, form.seed)
        search = None
        if form.search:
            missing = missing_models(settings)
            if missing or settings.task is None or settings.reflection is None:
                raise ValueError(missing_models_message(missing))
            search = SearchPlan(Models(settings.task, settings.reflection, settings), form.rounds)
        default_sample = form.cases is None and len(sample) < len(cases)
        plan = plan_stress(metric, sample, len(cases), CATALOG, settings, default_sample=default_sample, search=search)
        return StressSetup(plan, settings, sample, search)

    def start(
        self, slot: JobSlot, form: StressForm, *, keys: Mapping[str, str] | None = None, watcher: str | None = None
    ) -> Job[StressReport]:
        """Stress the draft in the background; raises ``ValueError`` for people before anything starts. A run whose
        scoring finished is saved with the draft's metric folder and the run's provenance (a search stopped by
        Cancel keeps what it found); the job's result is the report (none when cancelled)."""
        from ..stress import run_stress

        metric, in_use = self.basis.drafts.current().metric, self.basis.data.in_use()
        setup = self.plan(form, keys, in_use)
        plan, search = setup.plan, setup.search
        options = self.basis.settings.run_options(keys, setup.settings)
        scorer = self.basis.settings.scorer()
        made_by = self.basis.settings.provenance(metric, keys, in_use, setup.settings)
        total = len(in_use.cases)

        def run(job: Job[StressReport]) -> StressReport:
            def proposal(number: int) -> None:
                self._rounds[job] = number
                job.done = plan.outputs + number

            report = run_stress(
                metric,
                setup.sample,
                scorer,
                options.watched_by(job),
                seed=form.seed,
                total=total,
                search=search,
                on_round=proposal,
            )
            self.store.save(report, metric, made_by)
            return report

        steps = plan.outputs + (search.rounds if search is not None else 0)
        job: Job[StressReport] = Job(JobKind.STRESS, steps, in_use.data.source, provenance=made_by)
        return self.basis.jobs.submit(slot, job, run, watcher, llm=options.llm)

    def round(self, job: Job[Any]) -> int | None:
        """The exploit search's proposal the stress ``job`` is at (``None`` before the search)."""
        return self._rounds.get(job)

    def latest(self, in_use: DatasetInUse | None = None) -> SavedStress | None:
        """The newest saved run of the dataset and candidate in use, whatever metric version made it."""
        in_use = in_use or self.basis.data.in_use()
        return self.store.latest(in_use.data.source, in_use.candidate)

    def latest_of(self, metric: str, dataset: str) -> StressRow | None:
        """The newest saved run of the metric folder ``metric`` (a digest) on ``dataset`` (a source): what History
        and Runs show for a metric version."""
        found = self.store.list(metric=metric, dataset=dataset)
        return found[0] if found else None

    def clear(self) -> None:
        """Forget the saved stress runs (``Workspace.clear``)."""
        self.store.clear()
