"""The judge with candidate prompts, on labelled cases: every scoring goes through the one :class:`Scorer` seam.

For a candidate (a text for each prompt) the metric folder is rewritten (:func:`.prompts.with_prompts`) and scored
on the cases asked for with ``RunOptions`` made by the caller's ``options`` (the handler and options the
``score`` command or the workspace make: the answer cache, the timeout, the place). A case already scored with
the same texts in this run is not scored again: GEPA asks for the same candidate on the same cases many times.

The :class:`Meter` counts the calls that reached a model (an answer from the answer cache is not one), prices
them, and stops the run (:class:`Stopped`) on Cancel, at the budget or after a failed model call. With a budget,
cases are scored one at a time and each scoring's handler may spend only what is left, so a run ends at most one
call past the budget.
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ..cases import Case
from ..llm import LlmError, ModelConfig, ModelSettings
from ..metric.source import MetricSource
from ..results import CaseResult, JobError
from ..results.trace import CLIP_CHARS, LIMIT_REACHED, clip_text
from ..scoring import RunOptions, Scorer
from .prompts import Prompt, with_prompts
from .result import Calls, Outcome

NOT_SENT = frozenset({LIMIT_REACHED, "NoModel", "NoKey"})  # refused before any request left
Texts = Mapping[str, str]
OptionsFor = Callable[[ModelSettings], RunOptions]
"""Makes the ``RunOptions`` of one scoring from model settings (its handler spends within ``max_cost_usd``)."""


class Stopped(Exception):
    """Raised inside a run to end it: ``outcome`` says why, ``detail`` the failure for people."""

    def __init__(self, outcome: Outcome, detail: str = "") -> None:
        super().__init__(detail or outcome.value)
        self.outcome, self.detail = outcome, detail


def price(config: ModelConfig | None) -> tuple[float, float] | None:
    """(input, output) US dollars per million tokens of ``config``: typed on Settings, else litellm's cost map's."""
    from ..engines.uplift.calls import price as model_price  # the one price lookup (imports litellm's cost map)

    return model_price(config) if config is not None else None


class Meter:
    """The calls of a run, what they cost, and when it must stop (thread-safe)."""

    def __init__(self, settings: ModelSettings, max_cost_usd: float | None, cancel: threading.Event | None) -> None:
        self.max_cost_usd = max_cost_usd
        self.cancel = cancel or threading.Event()
        self.reflection_price = price(settings.reflection)
        self.priced = self.reflection_price is not None
        self._judge = self._reflection = 0
        self._spent = 0.0
        self._lock = threading.Lock()

    @property
    def calls(self) -> Calls:
        with self._lock:
            return Calls(self._judge, self._reflection)

    @property
    def cost_usd(self) -> float:
        with self._lock:
            return self._spent

    def remaining(self) -> float | None:
        """What may still be spent (``None``: no budget)."""
        return None if self.max_cost_usd is None else max(0.0, self.max_cost_usd - self.cost_usd)

    def before_call(self) -> None:
        """Raise :class:`Stopped` when the run was cancelled or has spent its budget."""
        if self.cancel.is_set():
            raise Stopped(Outcome.CANCELLED)
        if self.max_cost_usd is not None and self.cost_usd >= self.max_cost_usd:
            raise Stopped(Outcome.BUDGET)

    def judged(self, calls: int, cost_usd: float) -> None:
        with self._lock:
            self._judge += calls
            self._spent += cost_usd

    def reflected(self, prompt_tokens: int, completion_tokens: int) -> None:
        cost = self.reflection_price
        with self._lock:
            self._reflection += 1
            if cost is not None:
                self._spent += (prompt_tokens * cost[0] + completion_tokens * cost[1]) / 1e6

    def reflection_failed(self, error: LlmError) -> None:
        if error.kind not in NOT_SENT:
            with self._lock:
                self._reflection += 1


@dataclass(frozen=True)
class Verdict:
    """The judge on one case: its ``score`` (``None`` when the metric could not score it, ``error`` says why) and
    the answers of its ``llm()`` calls (redacted as every trace is, clipped)."""

    score: float | None
    answer: str
    error: str = ""


class Judge:
    """Scores labelled cases with candidate prompts (see the module's docstring). Not for several threads at once."""

    def __init__(
        self,
        metric: MetricSource,
        prompts: tuple[Prompt, ...],
        cases: Sequence[Case],
        scorer: Scorer,
        options: OptionsFor,
        settings: ModelSettings,
        meter: Meter,
    ) -> None:
        self.metric, self.prompts, self.scorer, self.options = metric, prompts, scorer, options
        self.settings, self.meter = settings, meter
        self.cases = {case.id: case for case in cases}
        self._known: dict[tuple[tuple[str, str], ...], dict[str, Verdict]] = {}

    def verdicts(self, texts: Texts, ids: Sequence[str]) -> dict[str, Verdict]:
        """The verdict on each case of ``ids`` with ``texts``: the ones known, and the others scored now in one run."""
        known = self._known.setdefault(_key(texts), {})
        missing = [case_id for case_id in dict.fromkeys(ids) if case_id not in known]
        if missing:
            known.update(self._score(texts, missing))
        return {case_id: known[case_id] for case_id in ids}

    def scores(self, texts: Texts) -> dict[str, float]:
        """Every case scored so far with ``texts`` that the metric scored, by id."""
        known = self._known.get(_key(texts), {})
        return {case_id: verdict.score for case_id, verdict in known.items() if verdict.score is not None}

    def run_options(self) -> RunOptions:
        """The options of one scoring now: the run's Cancel, and what is left of the budget (raises
        :class:`Stopped` when nothing is); under a budget one case at a time, so it ends at most one call past."""
        self.meter.before_call()
        remaining = self.meter.remaining()
        settings = self.settings if remaining is None else self.settings.with_changes(max_cost_usd=remaining)
        options = dataclasses.replace(self.options(settings), cancel=self.meter.cancel)
        if remaining is not None:
            options = dataclasses.replace(options, concurrency=1)
        return options

    def _score(self, texts: Texts, ids: list[str]) -> dict[str, Verdict]:
        options = self.run_options()
        metric = with_prompts(self.metric, self.prompts, texts)
        try:
            run = self.scorer(metric, [self.cases[case_id] for case_id in ids], options)
        except JobError as exc:
            raise Stopped(Outcome.FAILED, str(exc)) from None
        finally:
            spent = getattr(options.llm, "spent_usd", 0.0)
        results = list(run.results)
        self.meter.judged(sum(_reached(result) for result in results), float(spent or 0.0))
        self._check(results, len(ids))
        return {result.id: _verdict(result) for result in results}

    def _check(self, results: list[CaseResult], asked: int) -> None:
        """Stop the run when it was cancelled, when it has spent its budget (a case the budget ended counts as
        unscored), or when a model call failed (a proposal must not be charged with the provider's trouble). A case
        the per-case cap on calls ended is only unscored."""
        if len(results) < asked or self.meter.cancel.is_set():
            raise Stopped(Outcome.CANCELLED)
        self.meter.before_call()
        for result in results:
            for call in result.llm_calls:
                if call.error_kind and call.error_kind != LIMIT_REACHED:
                    raise Stopped(Outcome.FAILED, call.error.splitlines()[0] if call.error else call.error_kind)


def _key(texts: Texts) -> tuple[tuple[str, str], ...]:
    return tuple(sorted(texts.items()))


def _reached(result: CaseResult) -> int:
    """The case's ``llm()`` calls that reached the model: not answered from a cache, not refused before sending."""
    return sum(1 for call in result.llm_calls if not call.cached and call.error_kind not in NOT_SENT)


def _verdict(result: CaseResult) -> Verdict:
    answers = [call.answer for call in result.llm_calls if call.answer]
    answer = clip_text("\n".join(answers), CLIP_CHARS)[0]
    if result.ok and result.score is not None:
        return Verdict(float(result.score), answer)
    error = result.error.splitlines()[0] if result.error else result.status.value
    return Verdict(None, answer, error)
