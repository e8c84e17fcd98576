"""Align the judge: an alignment of the draft's prompts with the human scores of the data in use, as a workspace job.

:meth:`Align.setup` says what a run would do before it starts (the plan's calls and cost, the raters'
agreement with each other, or why it cannot start); :meth:`Align.start` runs
:func:`~skynet_core.align.run_align` as a job on the job board (listed under Running jobs, cancellable, its progress
counted in steps) scoring through the workspace's one scorer with its run options (the answer cache, the timeout,
the place). The last result of each dataset and candidate is kept in memory for the page; "Save as a version"
(:meth:`Align.save_version`) writes a new version and leaves the draft as it is, and only
:meth:`Align.open` (asked for) makes it the draft. The panel's form is kept in the store.
"""

from __future__ import annotations

import math
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..align.config import DEFAULT_ROUNDS
from ..i18n import _
from ..llm import ModelSettings
from ..metric.source import MetricSource
from ..results import JobKind
from ..store import Version
from .basis import Basis
from .human import Human
from .jobs import Job, JobSlot
from .values import DatasetInUse, DraftWrite, SavedVersion

if TYPE_CHECKING:  # GEPA's pieces load with the run's modules: only when a run is planned or started
    from ..align import Alignment, AlignPlan, AlignProgress, AlignResult, Figures, Labelled, RaterPair

SETTING_ALIGN_FORM = "align.form"  # {"rounds", "max_cost_usd", "seed", "rater"}: the panel's last values


@dataclass(frozen=True)
class AlignForm:
    """What the panel asks for: the rounds, a budget in US dollars (``None``: the settings' budget per run), the seed,
    and whose labels count (``None``: the mean of every rater's)."""

    rounds: int = DEFAULT_ROUNDS
    max_cost_usd: float | None = None
    seed: int = 0
    rater: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {"rounds": self.rounds, "max_cost_usd": self.max_cost_usd, "seed": self.seed, "rater": self.rater}

    @classmethod
    def from_json(cls, data: Any) -> AlignForm:
        """The form stored as ``data``; a value missing or of the wrong type takes the default."""
        data = data if isinstance(data, Mapping) else {}
        whole = {
            name: value
            for name in ("rounds", "seed")
            if isinstance(value := data.get(name), int) and not isinstance(value, bool) and value >= 0
        }
        budget = data.get("max_cost_usd")
        usable = isinstance(budget, int | float) and not isinstance(budget, bool) and math.isfinite(budget)
        rater = data.get("rater")
        return cls(
            **whole,
            max_cost_usd=float(budget) if usable and budget > 0 else None,
            rater=rater if isinstance(rater, str) and rater else None,
        )


@dataclass(frozen=True)
class AlignSetup:
    """A run as it would start now: its plan, or the reason it cannot start (``refusal``); the raters' agreement with
    each other (the ceiling a judge can reach); how many cases of the candidate in use are labelled."""

    plan: AlignPlan | None
    refusal: str | None
    ceiling: tuple[tuple[RaterPair, Figures], ...]
    labelled: int


class Align:
    """The alignment of the draft's prompts with ``human``'s scores of the data in use, with the settings' models,
    scorer and run options, as a job (all from ``basis``, which keeps its form); the last result of each dataset and
    candidate in memory. Thread-safe."""

    def __init__(self, basis: Basis, human: Human) -> None:
        self.basis = basis
        self.human = human
        self._lock = threading.Lock()
        self._alignments: dict[tuple[str, str], AlignResult] = {}
        self._progress: weakref.WeakKeyDictionary[Job[Any], AlignProgress] = weakref.WeakKeyDictionary()

    def form(self) -> AlignForm:
        return AlignForm.from_json(self.basis.form(SETTING_ALIGN_FORM))

    def set_form(self, form: AlignForm) -> None:
        self.basis.keep_form(SETTING_ALIGN_FORM, form.to_json())

    def labelled(self, in_use: DatasetInUse | None = None, rater: str | None = None) -> Labelled:
        """The labelled cases of the candidate in use (every split), one rater's or every rater's mean."""
        from ..align import labelled_cases

        in_use = in_use or self.basis.data.in_use()
        source = in_use.data.source
        cases = list(in_use.data.cases_of(in_use.candidate, None))
        scores = self.human.labels(source).scores
        return labelled_cases(cases, scores, in_use.candidate, rater=rater, threshold=self.human.pass_threshold())

    def alignment(
        self,
        form: AlignForm,
        keys: Mapping[str, str] | None = None,
        *,
        metric: MetricSource | None = None,
        in_use: DatasetInUse | None = None,
    ) -> Alignment:
        """The alignment of the draft's (or ``metric``'s) prompts with the labels in use; ``ValueError`` for people
        when it cannot start: no reflection model, no prompt, too few labels, an impossible form."""
        from ..align import AlignConfig, Alignment, prompts_of, refusal, split_labelled

        settings = self.basis.settings.models(keys)
        if settings.reflection is None or settings.effective() is None:
            raise ValueError(
                _(
                    'Aligning the judge needs a reflection model, which writes the proposals: set "Reflection model" '
                    "on Settings (or SKYNET_REFLECTION_MODEL in the server's environment)."
                )
            )
        metric = metric or self.basis.drafts.current().metric
        prompts = prompts_of(metric)
        labelled = self.labelled(in_use, form.rater)
        if refused := refusal(labelled):
            raise ValueError(refused)
        budget = form.max_cost_usd if form.max_cost_usd is not None else settings.max_cost_usd
        config = AlignConfig(form.rounds, seed=form.seed, max_cost_usd=budget)
        chosen = settings.with_changes(max_cost_usd=budget)

        def options(given: ModelSettings) -> Any:
            return self.basis.settings.run_options(keys, given)

        split = split_labelled(labelled, form.seed)
        return Alignment(metric, prompts, labelled, split, config, chosen, self.basis.settings.scorer(), options)

    def setup(self, form: AlignForm, keys: Mapping[str, str] | None = None) -> AlignSetup:
        """What a run of ``form`` would do now (its plan reads litellm's cost map), or why it cannot start."""
        from ..align import plan_align, rater_pairs
        from ..align.measures import ceiling

        in_use = self.basis.data.in_use()
        labelled = self.labelled(in_use, form.rater)
        pairs = () if form.rater else rater_pairs(self.human.labels(in_use.data.source).scores, in_use.candidate,
                                                  [item.id for item in labelled.cases])  # fmt: skip
        shown = tuple(ceiling(pairs, labelled.scale, seed=form.seed))
        try:
            plan = plan_align(self.alignment(form, keys, in_use=in_use))
        except (ValueError, SyntaxError) as exc:
            return AlignSetup(None, _syntax(exc) if isinstance(exc, SyntaxError) else str(exc), shown, len(labelled))
        return AlignSetup(plan, None, shown, len(labelled))

    def start(
        self, slot: JobSlot, form: AlignForm, *, keys: Mapping[str, str] | None = None, watcher: str | None = None
    ) -> Job[AlignResult]:
        """Align the draft's prompts in the background; raises ``ValueError`` for people before anything starts. The
        job's result is the :class:`~skynet_core.align.AlignResult`, kept as the latest of the dataset and candidate."""
        from ..align import run_align, total_steps

        in_use = self.basis.data.in_use()
        alignment = self.alignment(form, keys, in_use=in_use)
        made_by = self.basis.settings.provenance(alignment.metric, keys, in_use)
        place = (in_use.data.source, in_use.candidate)

        def run(job: Job[AlignResult]) -> AlignResult:
            def seen(progress: AlignProgress) -> None:
                self._progress[job] = progress
                job.done = progress.done

            result = run_align(alignment, cancel=job.cancel, on_progress=seen)
            with self._lock:
                self._alignments[place] = result
            return result

        job: Job[AlignResult] = Job(
            JobKind.ALIGN, total_steps(alignment.config), in_use.data.source, provenance=made_by
        )
        return self.basis.jobs.submit(slot, job, run, watcher)

    def progress(self, job: Job[Any]) -> AlignProgress | None:
        """Where the alignment ``job`` is (``None`` before its first step)."""
        return self._progress.get(job)

    def latest(self, in_use: DatasetInUse | None = None, metric: MetricSource | None = None) -> AlignResult | None:
        """The last alignment of the dataset and candidate in use since the server started, while the draft (or
        ``metric``) is the metric it aligned or the aligned one (``None``: none, or the draft has moved on)."""
        in_use = in_use or self.basis.data.in_use()
        metric = metric or self.basis.drafts.current().metric
        with self._lock:
            found = self._alignments.get((in_use.data.source, in_use.candidate))
        return found if found is not None and metric in (found.original, found.aligned) else None

    def save_version(self, result: AlignResult, name: str = "") -> SavedVersion:
        """Save the aligned metric as a new version (the original with only its prompts changed); the draft is left
        as it is."""
        return self.basis.drafts.save_version(name.strip() or _("aligned judge"), result.aligned)

    def clear(self) -> None:
        """Forget the alignments kept in memory (``Workspace.clear``)."""
        with self._lock:
            self._alignments.clear()

    def open(self, version: Version) -> DraftWrite:
        """Make a saved aligned version the draft (asked for: the text it replaces is kept as a version first)."""
        return self.basis.drafts.replace(version.folder, _("opening the aligned judge"))


def _syntax(exc: SyntaxError) -> str:
    return _("metric.py does not parse (line {line}): {error}").format(line=exc.lineno, error=exc.msg)
