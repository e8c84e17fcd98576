"""What a run will call and cost, before it starts.

Judge calls are bounded by the case scorings a run can ask for: every labelled case once with the starting
prompts; per round a proposal on its minibatch (its parent's scores are known or scored once, at most another
minibatch) and, when it does better there, on dev; test once with the final prompts; and the stress test's
``game`` family on the test cases with the starting and the final prompts. Each scoring makes the
``llm()`` calls of metric.py (counted by their call sites). A run usually makes fewer: answers the answer cache
holds are not calls, and a round whose minibatch holds no disagreement asks nothing. One reflection call a round.

Tokens are estimated at :data:`~skynet_core.engines.uplift.plan.CHARS_PER_TOKEN` characters a token: a judge call
sends the prompts and a case's input and output and answers :data:`JUDGE_ANSWER_CHARS` characters; a reflection
call sends GEPA's prompt with a minibatch of disagreements and answers the prompt again, a little longer.
"""

from __future__ import annotations

import ast
import statistics
from dataclasses import dataclass

import orjson

from ..engines.uplift.plan import CHARS_PER_TOKEN, MIN_ANSWER_TOKENS, CallPlan, estimated_cost
from ..i18n import _, format_number
from ..metric.pysource import parse
from ..metric.source import MAIN_FILE
from .config import AlignConfig
from .judge import price
from .loop import Alignment
from .prompts import Prompt
from .split import AlignSplit

JUDGE_ANSWER_CHARS = 200
REFLECTION_FRAME_CHARS = 3_000  # GEPA's template, the background and a case's judge answer and note
GROWTH = 1.5


@dataclass(frozen=True)
class AlignPlan:
    """The most a run calls (``judge``: the metric's ``llm()`` calls, ``reflection``: one a round) and what that
    should cost (``None``: a model has no known price); ``scorings``: the case scorings at most, each making
    ``per_case`` ``llm()`` calls."""

    prompts: tuple[Prompt, ...]
    split: AlignSplit
    config: AlignConfig
    judge: CallPlan
    reflection: CallPlan
    scorings: int
    per_case: int
    labelled: int
    notes: int

    @property
    def cost_usd(self) -> float | None:
        judge, reflection = self.judge.cost_usd, self.reflection.cost_usd
        return None if judge is None or reflection is None else judge + reflection

    def describe(self) -> list[str]:
        """The plan for people, a line each: the prompts, the split, the calls, the cost."""
        split = self.split
        names = ", ".join(prompt.name for prompt in self.prompts)
        lines = [
            _(
                "Planned: at most {judge} judge calls ({scorings} case scorings × {per} llm() calls in metric.py) and "
                "{reflection} reflection calls ({rounds} rounds)."
            ).format(
                judge=format_number(self.judge.calls),
                scorings=format_number(self.scorings),
                per=self.per_case,
                reflection=format_number(self.reflection.calls),
                rounds=self.config.rounds,
            ),
            _(
                "Optimized: {names}. {count} labelled cases ({notes} with a note), split {train} train, {dev} dev, "
                "{test} test (seed {seed})."
            ).format(
                names=names,
                count=self.labelled,
                notes=self.notes,
                train=len(split.train),
                dev=len(split.dev),
                test=len(split.test),
                seed=split.seed,
            ),
        ]
        lines += estimated_cost(self.cost_usd)
        for role, plan in ((_("judge model"), self.judge), (_("reflection model"), self.reflection)):
            if plan.price is None:
                lines.append(plan.price_line(role))
        return lines


def game_scorings(test: int) -> int:
    """The case scorings of the stress test's ``game`` family after the run: each test case as it is and with each
    ``game`` perturbation, with the starting prompts and with the final ones."""
    from ..stress.perturbations import Family, chosen

    return 2 * test * (1 + len(chosen((Family.GAME,))))


def call_sites(source: str) -> int:
    """The ``llm`` calls written in metric.py (at least 1): what one case's scoring makes, unless it loops."""
    try:
        tree = parse(source)
    except SyntaxError:
        return 1
    found = 0
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
            found += name == "llm"
    return max(1, found)


def plan_align(alignment: Alignment) -> AlignPlan:
    """The plan of ``alignment`` (reads litellm's cost map for the models' prices)."""
    config, split = alignment.config, alignment.split
    scorings = (
        len(split.ids)
        + config.rounds * (2 * config.minibatch + len(split.dev))
        + len(split.test)
        + game_scorings(len(split.test))
    )
    per_case = call_sites(alignment.metric.files[MAIN_FILE])
    prompts = sum(len(prompt.text) for prompt in alignment.prompts)
    cases = [item.case for item in alignment.labelled.cases]
    shown = statistics.fmean(len(_text(case.input)) + len(_text(case.output)) for case in cases) if cases else 0.0
    judge_model = alignment.settings.effective()
    reflection_model = alignment.settings.reflection
    reflection_in = REFLECTION_FRAME_CHARS + GROWTH * prompts + config.minibatch * (shown + JUDGE_ANSWER_CHARS)
    return AlignPlan(
        alignment.prompts,
        split,
        config,
        CallPlan(
            judge_model[0].model if judge_model else "",
            scorings * per_case,
            _tokens(GROWTH * prompts / max(1, len(alignment.prompts)) + shown),
            _tokens(JUDGE_ANSWER_CHARS),
            price(judge_model[0]) if judge_model else None,
        ),
        CallPlan(
            reflection_model.model if reflection_model else "",
            config.rounds,
            _tokens(reflection_in),
            _tokens(GROWTH * prompts),
            price(reflection_model),
        ),
        scorings,
        per_case,
        len(alignment.labelled),
        alignment.labelled.with_notes,
    )


def _text(value: object) -> str:
    return value if isinstance(value, str) else orjson.dumps(value, default=str).decode()


def _tokens(chars: float) -> int:
    return max(MIN_ANSWER_TOKENS, round(chars / CHARS_PER_TOKEN))
