"""What a run will cost, before it starts: the calls it makes at most, and their price from the models' prices.

Calls are counted exactly as an upper bound: the start's validation; per seed, round 1's current instruction
on the minibatch (once for all arms at temperature 0, where the arms start identical), later rounds' current
instruction, every proposal, and each arm's final validation; one reflection per arm, seed and round. A run
usually makes fewer (an empty or repeated proposal is not scored; at temperature 0 an instruction already run
on a case is not run again).

Tokens are estimated at :data:`CHARS_PER_TOKEN` characters a token: a task call sends the instruction (taken
at :data:`GROWTH` times its length, as proposals add to it) and a case's input, and answers about as long as
the expected value; a reflection call sends GEPA's real prompt for the first minibatch with feedback of
:data:`FEEDBACK_CHARS` characters a case, and answers a new instruction. Prices are the ones typed for a model,
else litellm's offline cost map's (:func:`.calls.price`).
"""

from __future__ import annotations

import statistics
from dataclasses import dataclass

from ...i18n import _, format_number
from ..gepa_adapter import side_info
from ..reflection import gepa_prompt
from ..sandboxed import Verdict
from ..task import render_input
from .calls import price
from .cases import expected_text
from .config import UpliftConfig
from .loop import Experiment
from .result import calls_phrase

CHARS_PER_TOKEN = 4
GROWTH = 2.0
FEEDBACK_CHARS = 300
MIN_ANSWER_TOKENS = 8


@dataclass(frozen=True)
class CallPlan:
    """One model's share of a run: at most ``calls`` calls of about ``prompt_tokens`` and ``completion_tokens``
    tokens each, at ``price`` (input, output) US dollars per million tokens (``None``: not known)."""

    model: str
    calls: int
    prompt_tokens: int
    completion_tokens: int
    price: tuple[float, float] | None

    @property
    def cost_usd(self) -> float | None:
        if self.price is None:
            return None
        return self.calls * (self.prompt_tokens * self.price[0] + self.completion_tokens * self.price[1]) / 1e6

    def price_line(self, role: str) -> str:
        """What a call of this model (``role``: its part, for people) sends, answers and costs; or that its price is
        not known, so its cost is not counted."""
        if self.price is None:
            return _(
                "{role} {model}: no known price, so its cost is not counted; enter one on the Settings page."
            ).format(role=role, model=self.model)
        return _(
            "{role} {model}: about {prompt} tokens in and {completion} out a call, at ${price_in} and "
            "${price_out} per million tokens."
        ).format(
            role=role,
            model=self.model,
            prompt=format_number(self.prompt_tokens),
            completion=format_number(self.completion_tokens),
            price_in=f"{self.price[0]:g}",
            price_out=f"{self.price[1]:g}",
        )


@dataclass(frozen=True)
class UpliftPlan:
    """The most a run will call and its estimated cost (``None`` when a model has no known price)."""

    config: UpliftConfig
    task: CallPlan
    reflection: CallPlan
    validation_cases: int

    @property
    def calls(self) -> int:
        return self.task.calls + self.reflection.calls

    @property
    def cost_usd(self) -> float | None:
        task, reflection = self.task.cost_usd, self.reflection.cost_usd
        return None if task is None or reflection is None else task + reflection

    def describe(self) -> list[str]:
        """The plan for people, a line each: the calls, the estimated cost, and what each model costs."""
        config = self.config
        lines = [
            _(
                "Planned: at most {calls} (seeds {seeds} × arms {arms} × rounds {rounds}, minibatch {minibatch}, "
                "validation cases {val})."
            ).format(
                calls=calls_phrase(self.task.calls, self.reflection.calls),
                seeds=config.seeds,
                arms=len(config.arms),
                rounds=config.rounds,
                minibatch=config.minibatch,
                val=format_number(self.validation_cases),
            )
        ]
        lines += estimated_cost(self.cost_usd)
        lines += [
            plan.price_line(role)
            for role, plan in ((_("task model"), self.task), (_("reflection model"), self.reflection))
        ]
        return lines


def estimated_cost(cost: float | None) -> list[str]:
    """A plan's estimated cost, for people: a line when every model's price is known (``cost``), else none."""
    return [] if cost is None else [_("Estimated cost: about ${cost}.").format(cost=f"{cost:,.4f}")]


def planned_calls(config: UpliftConfig, validation_cases: int, deterministic: bool) -> tuple[int, int]:
    """The most (task, reflection) calls a run makes (see the module's docstring)."""
    arms, rounds, size = len(config.arms), config.rounds, config.minibatch
    first = size if deterministic else arms * size
    per_seed = first + arms * size * (rounds - 1) + arms * size * rounds + arms * validation_cases
    return validation_cases + config.seeds * per_seed, config.seeds * arms * rounds


def plan_uplift(experiment: Experiment) -> UpliftPlan:
    """The plan of a run of ``experiment``; reads litellm's cost map (imports litellm)."""
    config, split, models = experiment.config, experiment.split, experiment.models
    task_calls, reflection_calls = planned_calls(config, len(split.val), models.deterministic)
    cases = [*split.train, *split.val]
    instruction = len(config.instruction) * GROWTH
    task_in = instruction + statistics.fmean(len(render_input(case["input"])) for case in cases)
    task_out = statistics.fmean(len(expected_text(case)) for case in cases)
    first = list(split.train[: config.minibatch])
    infos = [side_info(case, expected_text(case), Verdict(0.0, "x" * FEEDBACK_CHARS)) for case in first]
    prompt = gepa_prompt(config.instruction, [0.0] * len(first), infos)
    reflection_in = len(prompt) - len(config.instruction) + instruction
    return UpliftPlan(
        config,
        CallPlan(models.task.model, task_calls, _tokens(task_in), _tokens(task_out), price(models.task)),
        CallPlan(
            models.reflection.model,
            reflection_calls,
            _tokens(reflection_in),
            _tokens(instruction),
            price(models.reflection),
        ),
        len(split.val),
    )


def _tokens(chars: float) -> int:
    return max(MIN_ANSWER_TOKENS, round(chars / CHARS_PER_TOKEN))
