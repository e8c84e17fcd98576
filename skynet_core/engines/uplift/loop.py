"""The experiment's loop: for every seed, every arm improves the same instruction on the same minibatches.

Seed by seed (so a stopped run keeps whole seeds), round by round, all arms together:

1. take the seed's round minibatch of training cases (the same in every arm);
2. run each arm's current instruction on it with the task model and score the outputs with the sandboxed
   metric (the arms' calls run together, their outputs are scored in one sandboxed run);
3. build GEPA's reflection prompt (``optimize_anything``'s reflective dataset and template) from what the
   arm shows of the metric's verdicts (:func:`.arms.treated`), and ask the reflection model;
4. extract the proposal with GEPA's extractor, score it on the same minibatch, and keep it unless its score
   is lower than the current instruction's (a tie keeps the proposal). A proposal longer than its limit
   (``reflection.proposal_limit``: 16,000 characters, or 4× the given instruction) is refused unscored, as
   a failed proposal with the reason.

Then each arm's final instruction is scored on the validation cases. The given instruction is scored there
once, first: that is ``start``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from ...i18n import _
from ...llm import Budget, MetricLlm
from ..gepa_adapter import side_info
from ..reflection import gepa_prompt, proposal_problem
from ..sandboxed import SandboxedMetric
from .arms import treated
from .calls import Evaluator, Meter, Reflector, Stopped, reflection_max_tokens, task_max_tokens
from .cases import Split, check_split, derangement, draw, minibatch
from .config import Arm, Models, UpliftConfig
from .result import Calls, Outcome, Round, SeedRun, UpliftResult


@dataclass(frozen=True)
class Experiment:
    """Everything one run needs: the metric (sandboxed, with its ``llm()`` handler if it calls a model), the
    training and validation cases, the config and the models. Making one checks that the cases can hold the
    config (enough training cases for a minibatch, some validation cases)."""

    metric: SandboxedMetric
    split: Split
    config: UpliftConfig
    models: Models

    def __post_init__(self) -> None:
        check_split(self.split, self.config.minibatch)


@dataclass(frozen=True)
class Progress:
    """Where a run is: ``done`` of ``total`` steps finished (a step is the start's validation, one round of
    every arm of a seed, or a seed's final validations), the step that runs now (``seed`` and ``round``,
    from 0; ``round`` is ``None`` for a validation; both ``None`` for the start's and once ``done`` reaches
    ``total``), and what was spent so far."""

    done: int
    total: int
    seed: int | None
    round: int | None
    calls: Calls
    cost_usd: float

    @property
    def fraction(self) -> float:
        return min(1.0, self.done / self.total) if self.total else 1.0

    def describe(self) -> str:
        """What runs now, for people: "seed 2, round 1"."""
        if self.done >= self.total:
            return _("finished")
        if self.seed is None:
            return _("measuring the given instruction on the validation cases")
        if self.round is None:
            return _("seed {seed}: measuring the final instructions on the validation cases").format(seed=self.seed + 1)
        return _("seed {seed}, round {round}").format(seed=self.seed + 1, round=self.round + 1)


def total_steps(config: UpliftConfig) -> int:
    """The steps of a whole run: the start's validation, then per seed its rounds and its validations."""
    return 1 + config.seeds * (config.rounds + 1)


def run_uplift(
    experiment: Experiment,
    *,
    cancel: threading.Event | None = None,
    on_progress: Callable[[Progress], None] | None = None,
) -> UpliftResult:
    """Run the experiment; return what finished. Never raises for a model or budget problem: a run that stops
    early (``cancel`` set, the budget reached, a failed model call) returns the seeds finished before, with
    its ``outcome``. ``on_progress`` is called before each step and once at the end of a whole run, from this
    thread."""
    return _Loop(experiment, cancel, on_progress).run()


class _Loop:
    def __init__(
        self,
        experiment: Experiment,
        cancel: threading.Event | None,
        on_progress: Callable[[Progress], None] | None,
    ) -> None:
        self.experiment, self.config, self.split = experiment, experiment.config, experiment.split
        # One budget for every call of the run: the metric's llm() calls are charged to it and stop at it too.
        budget = Budget(self.config.max_cost_usd)
        metric, judge = experiment.metric, None
        if isinstance(metric.options.llm, MetricLlm):
            judge = metric.options.llm.with_budget(budget)
            metric = SandboxedMetric(metric.source, replace(metric.options, llm=judge), metric.scorer)
        tokens = {
            "task": task_max_tokens([*self.split.train, *self.split.val]),
            "reflection": reflection_max_tokens(self.config.instruction),
        }
        self.meter = Meter(experiment.models, budget, tokens, cancel, judge)
        self.evaluate = Evaluator(metric, experiment.models, self.meter)
        self.reflect = Reflector(experiment.models, self.meter)
        self.on_progress = on_progress
        self.done = 0
        self.total = total_steps(self.config)

    def run(self) -> UpliftResult:
        start: float | None = None
        runs: list[SeedRun] = []
        outcome, error = Outcome.COMPLETE, ""
        try:
            self.begin(None, None)
            measured = self.evaluate(self.config.instruction, self.split.val)
            if not any(verdict.ok for verdict in measured.verdicts):
                raise Stopped(Outcome.METRIC_FAILED, measured.verdicts[0].feedback)
            start = measured.mean
            self.done += 1
            for seed in range(self.config.seeds):
                runs.extend(self.seed_runs(seed))  # every arm of the seed, or none
            self.begin(None, None)
        except Stopped as stop:
            outcome, error = stop.outcome, stop.detail
        models = self.experiment.models
        return UpliftResult(
            config=self.config,
            start=start,
            runs=tuple(runs),
            calls=self.meter.calls,
            cost_usd=self.meter.cost_usd,
            outcome=outcome,
            error=error,
            unpriced=self.meter.unpriced,
            models=(models.task.model, models.reflection.model),
            train_ids=tuple(example["id"] for example in self.split.train),
            val_ids=tuple(example["id"] for example in self.split.val),
            split_from_dataset=self.split.from_dataset,
            created_at=time.time(),
            steps=(self.done, self.total),
        )

    def seed_runs(self, seed: int) -> list[SeedRun]:
        arms = self.config.arms
        current = dict.fromkeys(arms, self.config.instruction)
        rounds: dict[Arm, list[Round]] = {arm: [] for arm in arms}
        for index in range(self.config.rounds):
            self.begin(seed, index)
            for arm, found in zip(arms, self.round(seed, index, [current[arm] for arm in arms]), strict=True):
                rounds[arm].append(found)
                if found.accepted:
                    current[arm] = found.proposed
            self.done += 1
        self.begin(seed, None)
        ends = self.evaluate.many([(current[arm], self.split.val) for arm in arms])
        self.done += 1
        return [
            SeedRun(arm, seed, tuple(rounds[arm]), current[arm], end.mean) for arm, end in zip(arms, ends, strict=True)
        ]

    def round(self, seed: int, index: int, currents: list[str]) -> list[Round]:
        """Round ``index`` of every arm (in the config's order) from its current instruction."""
        config, train, arms = self.config, self.split.train, self.config.arms
        batch = [train[i] for i in minibatch(draw("minibatch", config.seed, seed, index), config.minibatch, len(train))]
        ids = tuple(example["id"] for example in batch)
        parents = self.evaluate.many([(current, batch) for current in currents])
        shuffled = Arm.SHUFFLED in arms
        order = derangement(draw("derangement", config.seed, seed, index), len(batch)) if shuffled else None
        prompts = []
        for arm, current, parent in zip(arms, currents, parents, strict=True):
            shown = treated(arm, parent.verdicts, order)
            infos = [
                side_info(example, output, verdict)
                for example, output, verdict in zip(batch, parent.outputs, shown, strict=True)
            ]
            prompts.append(gepa_prompt(current, [verdict.score for verdict in parent.verdicts], infos))
        proposals = [answer.proposed for answer in self.reflect.many(prompts)]
        refused = [proposal_problem(proposal, config.instruction) or "" for proposal in proposals]
        proposals = ["" if problem else proposal for proposal, problem in zip(proposals, refused, strict=True)]
        new = [i for i, (p, current) in enumerate(zip(proposals, currents, strict=True)) if p.strip() and p != current]
        children = dict(zip(new, self.evaluate.many([(proposals[i], batch) for i in new]), strict=True))
        found = []
        for i, parent in enumerate(parents):
            child = children.get(i)
            after = child.mean if child is not None else None
            accepted = child is not None and child.total >= parent.total
            found.append(Round(index, ids, parent.mean, proposals[i], after, accepted, refused[i]))
        return found

    def begin(self, seed: int | None, round_: int | None) -> None:
        if self.on_progress is not None:
            self.on_progress(Progress(self.done, self.total, seed, round_, self.meter.calls, self.meter.cost_usd))
