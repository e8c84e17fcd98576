"""An alignment run: GEPA's own loop (``optimize_anything``) over the judge's prompts, on a split fixed first.

1. The labelled cases are split (train / dev / test) before any call (:mod:`.split`).
2. Every labelled case is scored with the starting prompts: the disagreements are counted (fewer than
   :data:`~.labelled.MIN_DISAGREEMENTS` refuses the run: nothing to learn from), and test is scored for "before".
3. ``optimize_anything`` runs its rounds: it samples a train minibatch, asks for a proposal (ours: the
   reflection prompt over the minibatch's disagreements, the guards of :mod:`.guards`), scores it on the
   minibatch, and scores on dev the proposals that did better there; the candidate with the best objective on dev
   is the result. Every scoring goes through the :class:`~.judge.Judge` (the Scorer seam).
4. Test is scored once with the final prompts: the figures before and after, the paired gain of κ, the cases fixed
   and broken.

A run never raises for a model, budget or Cancel: it returns what it measured, with its ``outcome``.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..human.estimate import Estimate
from ..i18n import _
from ..llm import LlmError, ModelSettings
from ..metric.source import MetricSource
from ..redact import known_secrets
from ..scoring import Scorer
from ..scoring.runner.values import Cancelled
from .config import AlignConfig
from .game import GameCheck, check_game
from .guards import CopyIndex, cleaned, rejection
from .judge import Judge, Meter, OptionsFor, Stopped
from .labelled import MIN_DISAGREEMENTS, Labelled
from .measures import figures, objective, paired_gain, per_case
from .prompts import Prompt, with_prompts
from .reflection import disagreements, reflection_prompt, side_info
from .result import AlignResult, Calls, Measured, Outcome
from .rounds import Rounds
from .split import AlignSplit


@dataclass(frozen=True)
class Alignment:
    """Everything one run needs: the metric and its prompts, the labelled cases and their split, the size, the models'
    settings, and the one way to score (``scorer`` with the options ``options`` makes, as ``score`` makes them)."""

    metric: MetricSource
    prompts: tuple[Prompt, ...]
    labelled: Labelled
    split: AlignSplit
    config: AlignConfig
    settings: ModelSettings
    scorer: Scorer
    options: OptionsFor


@dataclass(frozen=True)
class AlignProgress:
    """Where a run is: ``done`` of ``total`` steps (the first scoring, each round, the last scoring), the round now
    (``None`` outside the rounds), and the calls and cost so far."""

    done: int
    total: int
    round: int | None
    calls: Calls
    cost_usd: float

    def describe(self) -> str:
        if self.done >= self.total:
            return _("finished")
        if self.done == 0:
            return _("scoring every labelled case with the starting prompts")
        if self.round is None:
            return _("scoring the test cases with the final prompts")
        return _("round {round}").format(round=self.round)


def total_steps(config: AlignConfig) -> int:
    """The first scoring, the rounds, test with the final prompts, and the stress test's ``game`` family."""
    return config.rounds + 3


def run_align(
    alignment: Alignment,
    *,
    cancel: threading.Event | None = None,
    on_progress: Callable[[AlignProgress], None] | None = None,
) -> AlignResult:
    """Run ``alignment`` (see the module's docstring); ``on_progress`` is called before each step, from this thread."""
    return _Run(alignment, cancel, on_progress).run()


class _Run:
    def __init__(
        self,
        alignment: Alignment,
        cancel: threading.Event | None,
        on_progress: Callable[[AlignProgress], None] | None,
    ) -> None:
        self.a = alignment
        self.meter = Meter(alignment.settings, alignment.config.max_cost_usd, cancel)
        self.judge = Judge(
            alignment.metric,
            alignment.prompts,
            [item.case for item in alignment.labelled.cases],
            alignment.scorer,
            alignment.options,
            alignment.settings,
            self.meter,
        )
        self.start = {prompt.name: prompt.text for prompt in alignment.prompts}
        self.cases = alignment.labelled.by_id()
        self.humans = alignment.labelled.humans()
        self.rounds = Rounds(alignment.split.train, self._dev_point)
        self.copies = CopyIndex.of(self.cases[case_id] for case_id in alignment.split.train)
        self.secrets = known_secrets(None, [c.api_key for c in (alignment.settings.reflection,) if c is not None])
        self.on_progress = on_progress
        self.stop: Stopped | None = None
        self.done = 0

    def run(self) -> AlignResult:
        split, labelled = self.a.split, self.a.labelled
        before: Measured | None = None
        game: GameCheck | None = None
        after: Measured | None = None
        final: Mapping[str, str] = self.start
        outcome, detail, count = Outcome.COMPLETE, "", 0
        try:
            self.progress(None)
            start = self.judge.verdicts(self.start, split.ids)
            judged = self.judge.scores(self.start)
            before = self.measured(judged)
            count = sum(
                1
                for case_id, verdict in start.items()
                if verdict.score is not None and labelled.scale.disagrees(verdict.score, self.cases[case_id].human)
            )
            refused = self.refusal(count, start)
            if refused is not None:
                return self.result(before, None, final, Outcome.REFUSED, refused, count)
            self.done += 1
            final = self.optimize()
            self.progress(None)
            self.judge.verdicts(final, split.test)
            after = self.measured(self.judge.scores(final))
            self.done += 1
            self.progress(None)
            game = self.game(final)
            self.done += 1
            self.progress(None)
        except Stopped as stop:
            outcome, detail = stop.outcome, stop.detail
            final = self.rounds.best_texts or self.start
        return dataclasses.replace(self.result(before, after, final, outcome, detail, count), stress=game)

    def game(self, final: Mapping[str, str]) -> GameCheck | None:
        """The stress test's ``game`` family on the test cases with the starting and the final prompts (``None``
        when the prompts did not change); its calls count toward the run's and its budget."""
        if dict(final) == dict(self.start):
            return None
        test = [self.cases[case_id].case for case_id in self.a.split.test]
        original = with_prompts(self.a.metric, self.a.prompts, self.start)
        aligned = with_prompts(self.a.metric, self.a.prompts, final)
        try:
            check = check_game(original, aligned, test, self.a.scorer, self.judge.run_options, seed=self.a.config.seed)
        except Cancelled:
            raise Stopped(Outcome.CANCELLED) from None
        for report in (check.before, check.after):
            self.meter.judged(report.calls.judge, report.calls.cost_usd or 0.0)
        return check

    def refusal(self, count: int, start: Mapping[str, Any]) -> str | None:
        scored = [verdict for verdict in start.values() if verdict.score is not None]
        if not scored:
            first = next(iter(start.values()))
            return _("The metric could not score the labelled cases with its own prompts: {error}").format(
                error=first.error
            )
        if count < MIN_DISAGREEMENTS:
            return _(
                "The judge disagrees with people on {count} of the {total} labelled cases; aligning it needs at least "
                "{least}. It already agrees with them, or label the cases where you think it is wrong."
            ).format(count=count, total=len(start), least=MIN_DISAGREEMENTS)
        return None

    def measured(self, judged: Mapping[str, float]) -> Measured:
        """The figures on dev and on test of the judge's scores ``judged``."""
        split, seed = self.a.split, self.a.config.seed
        humans, scale = self.a.labelled.humans(), self.a.labelled.scale
        return Measured(
            figures(judged, humans, scale, split.dev, seed=seed), figures(judged, humans, scale, split.test, seed=seed)
        )

    def optimize(self) -> dict[str, str]:
        """GEPA's loop from the starting prompts; the best texts on dev (raises :class:`Stopped` when it stopped)."""
        from gepa.optimize_anything import EngineConfig, GEPAConfig, ReflectionConfig, TrackingConfig, optimize_anything

        config = self.a.config
        callbacks: list[Any] = [self.rounds, _Steps(self)]  # GEPA calls the methods each one has
        gepa_config = GEPAConfig(
            engine=EngineConfig(seed=config.seed, parallel=False, track_best_outputs=False, use_cloudpickle=False),
            reflection=ReflectionConfig(
                reflection_lm=None,
                custom_candidate_proposer=self.propose,
                reflection_minibatch_size=config.minibatch,
                skip_perfect_score=True,
                perfect_score=1.0,
            ),
            tracking=TrackingConfig(logger=_Quiet()),
            stop_callbacks=[self.should_stop],
            callbacks=callbacks,
        )
        optimize_anything(
            dict(self.start),
            batch_evaluator=self.evaluate,
            dataset=list(self.a.split.train),
            valset=list(self.a.split.dev),
            config=gepa_config,
        )
        if self.stop is not None:
            raise self.stop
        return dict(self.rounds.best_texts or self.start)

    def should_stop(self, gepa_state: Any) -> bool:
        """GEPA's stopper: after the rounds asked for, or once a stop was kept."""
        return self.stop is not None or gepa_state.i + 1 >= self.a.config.rounds

    def evaluate(self, pairs: list[tuple[dict[str, str], str]]) -> list[tuple[float, dict[str, Any]]]:
        """GEPA's batch evaluator: each (candidate, case id) scored with the judge, its share of the objective (over
        the cases of its candidate in this call) and what the reflection model reads about it."""
        groups: dict[tuple[tuple[str, str], ...], list[str]] = {}
        for texts, case_id in pairs:
            groups.setdefault(tuple(sorted(texts.items())), []).append(case_id)
        shares: dict[tuple[Any, str], float] = {}
        infos: dict[tuple[Any, str], dict[str, Any]] = {}
        for key, ids in groups.items():
            texts = dict(key)
            verdicts = self.judge.verdicts(texts, ids)
            judged = {i: verdict.score for i, verdict in verdicts.items() if verdict.score is not None}
            for case_id, share in zip(ids, per_case(judged, self.humans, self.a.labelled.scale, ids), strict=True):
                shares[(key, case_id)] = share
                infos[(key, case_id)] = side_info(self.cases[case_id], verdicts[case_id], self.a.labelled.scale)
        return [
            (shares[(tuple(sorted(texts.items())), case_id)], infos[(tuple(sorted(texts.items())), case_id)])
            for texts, case_id in pairs
        ]

    def propose(
        self,
        candidate: dict[str, str],
        reflective_dataset: Mapping[str, Sequence[Mapping[str, Any]]],
        components_to_update: list[str],
    ) -> dict[str, str]:
        """GEPA's proposer: a new text for each prompt of ``names``, from the minibatch's disagreements, past the
        guards. Never raises (GEPA would ask again): a stop is kept for the stopper, a rejection for the round."""
        from ..engines.reflection import reflect

        proposed: dict[str, str] = {}
        reflection = self.a.settings.reflection
        assert reflection is not None
        for name in components_to_update:
            records = disagreements(reflective_dataset.get(name, ()))
            if not records:
                self.rounds.note(_("The minibatch held no disagreement to learn from."))
                continue
            prompt = reflection_prompt(name, candidate, records, self.a.labelled.scale)
            try:
                self.meter.before_call()
                answer = reflect(prompt, reflection, self.a.settings)
            except Stopped as stop:
                self.stop = stop
                return {}
            except LlmError as exc:
                self.meter.reflection_failed(exc)
                self.stop = Stopped(Outcome.FAILED, str(exc))
                return {}
            self.meter.reflected(answer.prompt_tokens, answer.completion_tokens)
            text = cleaned(answer.proposed, self.start[name], self.secrets)
            why = rejection(name, text, self.start[name], self.copies, "\n".join(self.start.values()))
            if why is None and text == candidate[name]:
                why = _("The proposal for {name} is its current text again.").format(name=name)
            if why is not None:
                self.rounds.note(why)
                continue
            proposed[name] = text
        self.rounds.proposed(proposed)
        return proposed

    def _dev_point(self, texts: Mapping[str, str]) -> tuple[float, float | None]:
        """The objective and κ on dev of candidate ``texts`` (scored on dev already)."""
        split = self.a.split
        judged = self.judge.scores(texts)
        scale = self.a.labelled.scale
        found = figures(judged, self.humans, scale, split.dev, resamples=0)
        return objective(judged, self.humans, scale, split.dev), found.kappa.value

    def progress(self, round_: int | None) -> None:
        if self.on_progress is not None:
            total = total_steps(self.a.config)
            self.on_progress(AlignProgress(self.done, total, round_, self.meter.calls, self.meter.cost_usd))

    def result(
        self,
        before: Measured | None,
        after: Measured | None,
        final: Mapping[str, str],
        outcome: Outcome,
        detail: str,
        count: int,
    ) -> AlignResult:
        split, labelled = self.a.split, self.a.labelled
        gain: Estimate | None = None
        fixed: tuple[str, ...] = ()
        broken: tuple[str, ...] = ()
        if after is not None:
            start, end = self.judge.scores(self.start), self.judge.scores(final)
            gain = paired_gain(start, end, self.humans, labelled.scale, split.test, seed=self.a.config.seed)
            fixed, broken = _moved(start, end, labelled, split.test)
        priced = self.meter.priced and self.a.settings.effective() is not None
        return AlignResult(
            original=self.a.metric,
            aligned=with_prompts(self.a.metric, self.a.prompts, final),
            prompts=self.a.prompts,
            final=dict(final),
            split=split,
            threshold=labelled.scale.threshold,
            before=before,
            after=after,
            gain=gain,
            fixed=fixed,
            broken=broken,
            rounds=tuple(self.rounds.records),
            calls=self.meter.calls,
            cost_usd=self.meter.cost_usd if priced else None,
            outcome=outcome,
            detail=detail,
            notes=labelled.with_notes,
            disagreements=count,
        )


def _moved(
    before: Mapping[str, float], after: Mapping[str, float], labelled: Labelled, ids: Sequence[str]
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The test cases whose disagreement (sides of the threshold) the final prompts mended, and the ones they made."""
    humans, scale = labelled.humans(), labelled.scale

    def agrees(judged: Mapping[str, float], case_id: str) -> bool | None:
        score = judged.get(case_id)
        return None if score is None else scale.passes(score) == scale.passes(humans[case_id])

    fixed = tuple(i for i in ids if agrees(before, i) is False and agrees(after, i) is True)
    broken = tuple(i for i in ids if agrees(before, i) is True and agrees(after, i) is False)
    return fixed, broken


class _Quiet:
    """GEPA's logger, silenced: the run reports through its progress and result, and standard output is the JSON's."""

    def log(self, message: str) -> None:
        return None


class _Steps:
    """Counts GEPA's rounds as the run's steps (a GEPA callback)."""

    def __init__(self, run: _Run) -> None:
        self.run = run

    def on_iteration_start(self, event: Mapping[str, Any]) -> None:
        self.run.progress(int(event["iteration"]))

    def on_iteration_end(self, event: Mapping[str, Any]) -> None:
        self.run.done += 1
