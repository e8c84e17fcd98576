"""What a stress run will do before it starts: the outputs it scores, and for a metric that may call a model or
an exploit search, the model calls at most and what they should cost.

The metric's ``llm()`` calls are estimated at one a scored output (what most judges make), the search's as the
most GEPA's loop can ask for (:func:`search_calls`), and the search's outputs are scored by the metric too.
Tokens are estimated at :data:`~skynet_core.engines.uplift.plan.CHARS_PER_TOKEN` characters a token: a judge call
sends a case's input, output and expected value and about :data:`JUDGE_INSTRUCTIONS` characters of instructions,
and answers about :data:`JUDGE_ANSWER` characters; a task call sends the rewrite instruction and an output and
answers about as long; a reflection call sends GEPA's prompt of a minibatch. Prices are the ones typed for a model,
else litellm's offline cost map's (that reads litellm: only a run that involves a model asks).
"""

from __future__ import annotations

import json
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..cases import Case
from ..engines.uplift.calls import price
from ..engines.uplift.plan import CHARS_PER_TOKEN, CallPlan
from ..i18n import _, format_number
from ..llm import ModelSettings
from ..metric.source import MetricSource
from .defaults import JUDGE_CALLS
from .perturbations import Perturbation
from .run import WRONG_KINDS
from .search import BACKGROUND, MINIBATCH, OBJECTIVE, START, SearchPlan

JUDGE_INSTRUCTIONS = 400
JUDGE_ANSWER = 120
REFLECTION_EXTRA = 1_500  # GEPA's template, the headings and the feedback of a minibatch
MIN_TOKENS = 8


@dataclass(frozen=True)
class StressPlan:
    """A run as it would start: ``cases`` sampled of ``total`` (``default_sample``: fewer than all by default,
    ``judged``: because the metric may call a model, else because more would change the shares little),
    ``outputs`` sent to the scorer at most, and the model calls: the metric's (``judge``, ``None`` without a model
    to call) and the search's task and reflection calls (``None`` without a search)."""

    cases: int
    total: int
    perturbations: int
    outputs: int
    default_sample: bool
    judged: bool = False
    judge: CallPlan | None = None
    task: CallPlan | None = None
    reflection: CallPlan | None = None

    @property
    def calls(self) -> int:
        return sum(plan.calls for plan in (self.judge, self.task, self.reflection) if plan is not None)

    @property
    def cost_usd(self) -> float | None:
        """The estimated cost of every call, ``None`` when a model involved has no known price (or none is)."""
        plans = [plan for plan in (self.judge, self.task, self.reflection) if plan is not None]
        costs = [plan.cost_usd for plan in plans]
        if not plans or any(cost is None for cost in costs):
            return None
        return sum(cost for cost in costs if cost is not None)

    def describe(self) -> list[str]:
        """The plan for people, a line each: what is scored, why fewer cases when so, the calls and their cost."""
        lines = [
            _(
                "Planned: {cases} of {total} cases, each scored as it is and under {perturbations} perturbations: "
                "{outputs} outputs at most."
            ).format(
                cases=format_number(self.cases),
                total=format_number(self.total),
                perturbations=self.perturbations,
                outputs=format_number(self.outputs),
            )
        ]
        if self.default_sample and not self.judged:
            lines.append(
                _(
                    "{cases} cases are sampled by default: more would change the shares little and take longer; "
                    "choose how many with --cases (the Cases field)."
                ).format(cases=format_number(self.cases))
            )
        elif self.default_sample:
            lines.append(
                _(
                    "The metric may call a model, so {cases} cases are sampled by default, to keep the run near "
                    "{calls} llm() calls (at one call a case); choose how many with --cases (the Cases field)."
                ).format(cases=format_number(self.cases), calls=format_number(JUDGE_CALLS))
            )
        if self.calls:
            parts = [
                text.format(count=format_number(plan.calls))
                for plan, text in (
                    (self.judge, _("{count} llm() calls of the metric")),
                    (self.task, _("{count} task calls")),
                    (self.reflection, _("{count} reflection calls")),
                )
                if plan is not None
            ]
            cost = self.cost_usd
            spent = (
                _("about ${cost}").format(cost=f"{cost:,.4f}")
                if cost is not None
                else _("cost unknown: a model has no known price (enter one on the Settings page)")
            )
            lines.append(_("Model calls at most: {calls}; {cost}.").format(calls=", ".join(parts), cost=spent))
        return lines


def plan_stress(
    metric: MetricSource,
    cases: Sequence[Case],
    total: int,
    perturbations: Sequence[Perturbation],
    settings: ModelSettings,
    *,
    default_sample: bool = False,
    search: SearchPlan | None = None,
) -> StressPlan:
    """The plan of a run of ``perturbations`` on ``cases`` (sampled of ``total``) with ``settings``'s models."""
    outputs = len(cases) * (1 + len(perturbations))
    judge = None
    judged = metric.names_llm() and settings.effective() is not None
    if judged:
        chosen = settings.effective()
        assert chosen is not None
        judge = _judge_plan(chosen[0].model, price(chosen[0]), cases, outputs)
    task = reflection = None
    if search is not None:
        wrong = min(search.cases, len(cases)) * len(WRONG_KINDS)
        task_calls, reflection_calls = search_calls(wrong, search.rounds)
        output_chars = _mean_chars(case.output for case in cases)
        models = search.models
        task = CallPlan(
            models.task.model,
            task_calls,
            _tokens(len(START) * 4 + output_chars),
            _tokens(output_chars),
            price(models.task),
        )
        prompt = len(OBJECTIVE) + len(BACKGROUND) + REFLECTION_EXTRA + MINIBATCH * 3 * output_chars
        reflection = CallPlan(
            models.reflection.model,
            reflection_calls,
            _tokens(prompt),
            _tokens(len(START) * 4),
            price(models.reflection),
        )
        if judge is not None:
            judge = CallPlan(
                judge.model, judge.calls + task_calls, judge.prompt_tokens, judge.completion_tokens, judge.price
            )
    return StressPlan(
        len(cases), total, len(perturbations), outputs, default_sample, metric.names_llm(), judge, task, reflection
    )


def search_calls(wrong: int, rounds: int) -> tuple[int, int]:
    """The most (task, reflection) calls a search of ``rounds`` proposals on ``wrong`` outputs makes: the start on
    every output, then per proposal its parent and itself on a minibatch, and every output when it is kept."""
    return wrong + rounds * (2 * MINIBATCH + wrong), rounds


def _judge_plan(model: str, cost: tuple[float, float] | None, cases: Sequence[Case], outputs: int) -> CallPlan:
    sent = _mean_chars(
        json.dumps([case.input, case.output, case.expected], ensure_ascii=False, default=str) for case in cases
    )
    return CallPlan(model, outputs, _tokens(JUDGE_INSTRUCTIONS + sent), _tokens(JUDGE_ANSWER), cost)


def _mean_chars(values: Any) -> float:
    lengths = [len(value if isinstance(value, str) else json.dumps(value, default=str)) for value in values]
    return statistics.fmean(lengths) if lengths else 0.0


def _tokens(chars: float) -> int:
    return max(MIN_TOKENS, round(chars / CHARS_PER_TOKEN))
