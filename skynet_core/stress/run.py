"""A stress run: every perturbation of every sampled case's output, scored in one scorer run, made into a report.

The cases as they are and all their perturbed copies (ids ``<id>~<perturbation>``) go to the
:class:`~skynet_core.scoring.Scorer` as one list, with the caller's :class:`~skynet_core.scoring.RunOptions`
whole: a Ray address, the answer cache of a judge's ``llm()`` calls, its budget and Cancel reach it as they
reach "Score all". A case whose own output the metric cannot score is left out of every perturbation.
"""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from ..cases import Case
from ..i18n import _
from ..llm import MetricLlm
from ..metric.source import MetricSource
from ..results import CaseResult
from ..results.trace import LIMIT_REACHED
from ..scoring import RunOptions, Scorer
from ..scoring.runner.values import Cancelled
from .defaults import JUDGE_CALLS, PLAIN_CASES
from .feedback import check_feedback
from .perturbations import UNCHANGED, Draw, Family, Perturbation, chosen
from .report import JudgeCalls, StressReport
from .search import Search, SearchPlan, SearchResult, Wrong, run_search, wrong_outputs
from .verdict import verdict_of
from .violations import Pair, changes, measure

WRONG_KINDS = ("other_case", "null")
"""The perturbations whose outputs are wrong by construction: what the exploit search rewrites."""


class StressError(ValueError):
    """A stress run that cannot be made (no cases, a metric that does not load): the message says what to do."""


def default_cases(metric: MetricSource, total: int, perturbations: int) -> int:
    """How many cases a run samples when not told: all of them up to :data:`PLAIN_CASES`, or for a metric that may
    call a model, as many as keep its calls under :data:`JUDGE_CALLS` at one call a case (each case is scored once
    as it is and once per perturbation)."""
    if not metric.names_llm():
        return min(total, PLAIN_CASES)
    return max(1, min(total, JUDGE_CALLS // (1 + perturbations)))


def sample_cases(cases: Sequence[Case], count: int | None, seed: int = 0) -> list[Case]:
    """``count`` of ``cases`` chosen by ``seed`` (all when ``count`` is ``None`` or not smaller), in their order."""
    if count is None or count >= len(cases):
        return list(cases)
    picked = sorted(random.Random(f"stress\x1f{seed}").sample(range(len(cases)), count))
    return [cases[index] for index in picked]


def planned_cases(cases: Sequence[Case], perturbations: Sequence[Perturbation]) -> int:
    """The cases a run of ``perturbations`` sends to the scorer, at most: each case, and each perturbed copy."""
    return len(cases) * (1 + len(perturbations))


def run_stress(
    metric: MetricSource,
    cases: Sequence[Case],
    scorer: Scorer,
    options: RunOptions,
    *,
    families: Sequence[Family] | None = None,
    perturbations: Sequence[str] | None = None,
    seed: int = 0,
    total: int | None = None,
    search: SearchPlan | None = None,
    on_round: Callable[[int], None] | None = None,
) -> StressReport:
    """Stress ``metric`` on ``cases`` (already sampled; ``total`` is how many the data had) with the perturbations
    of ``families`` (default: all), or only those named in ``perturbations``.

    Raises :class:`StressError` when there is nothing to stress or the metric does not load, and
    :class:`~skynet_core.scoring.runner.values.Cancelled` when ``options.cancel`` stopped the scoring. With ``search``,
    the exploit search runs next on the wrong outputs it scored (``on_round`` is told each proposal's number);
    a search stopped by Cancel or the budget keeps what it found."""
    if not cases:
        raise StressError(_("There are no cases to stress: choose a dataset (and split) that has some."))
    chosen_ones = chosen(families, perturbations)
    if search is not None:
        chosen_ones = tuple(dict.fromkeys([*chosen_ones, *chosen(ids=WRONG_KINDS)]))
    outputs = [case.output for case in cases]
    sent: list[Case] = list(cases)
    made: list[tuple[int, Perturbation, object]] = []  # (case index, perturbation, perturbed output)
    for index, case in enumerate(cases):
        for perturbation in chosen_ones:
            changed = perturbation.apply(case.output, case, Draw.of(seed, perturbation.id, case.id, outputs))
            if changed is not UNCHANGED:
                made.append((index, perturbation, changed))
                sent.append(_copy(case, f"{case.id}~{perturbation.id}", changed))
    run = scorer(metric, sent, options)
    if run.load_error is not None:
        raise StressError(
            _("metric.py could not be loaded, so nothing was stressed: {error}").format(error=run.load_error.message)
        )
    if run.cancelled or len(run.results) < len(sent):
        raise Cancelled()
    results = run.results
    before = results[: len(cases)]
    pairs: dict[str, list[Pair]] = {item.id: [] for item in chosen_ones}
    for position, (index, perturbation, changed) in enumerate(made, start=len(cases)):
        if _scored(before[index]):
            pairs[perturbation.id].append(Pair(cases[index], changed, before[index], results[position], index))
    asked = {item.id for item in chosen(families, perturbations)}
    shown = [item for item in chosen_ones if item.id in asked]
    intervals = changes([pairs[item.id] for item in shown], len(cases), seed)
    measured = tuple(
        measure(item.id, item.family, pairs[item.id], seed, interval)
        for item, interval in zip(shown, intervals, strict=True)
    )
    found = _search(metric, pairs, scorer, options, search, seed, on_round) if search is not None else None
    return StressReport(
        cases=sum(1 for result in before if _scored(result)),
        sampled=len(cases),
        total=len(cases) if total is None else total,
        seed=seed,
        perturbations=measured,
        verdict=verdict_of(measured, found.gain if found is not None else None),
        feedback=check_feedback((item.id, item.family, pairs[item.id]) for item in shown),
        calls=judge_calls(results),
        search=found,
        budget_reached=_budget_reached(options),
        created_at=time.time(),
    )


def _copy(case: Case, case_id: str, output: Any) -> Case:
    """``case`` with another id and output (made directly: ``dataclasses.replace`` took a tenth of a run)."""
    return Case(case_id, case.input, output, case.expected, case.split, case.observation, case.candidate, case.human)


def _scored(result: CaseResult) -> bool:
    return result.ok and result.score is not None


def _search(
    metric: MetricSource,
    pairs: dict[str, list[Pair]],
    scorer: Scorer,
    options: RunOptions,
    plan: SearchPlan,
    seed: int,
    on_round: Callable[[int], None] | None,
) -> SearchResult:
    wrong = [
        Wrong(pair.case, kind, pair.output, pair.after.score or 0.0, pair.after.feedback)
        for kind in WRONG_KINDS
        for pair in pairs[kind]
        if pair.scored
    ]
    wrong.sort(key=lambda item: (item.case.id, item.kind))
    llm = options.llm
    budget = llm.settings.max_cost_usd if isinstance(llm, MetricLlm) else None
    spent = llm.spent_usd if isinstance(llm, MetricLlm) else 0.0
    search = Search(
        metric,
        wrong_outputs(wrong, plan.cases),
        scorer,
        replace(options, on_result=None, in_order=None),
        plan,
        max(0.0, budget - spent) if budget is not None else None,
        seed,
    )
    return run_search(search, cancel=options.cancel or threading.Event(), on_round=on_round)


def judge_calls(results: Sequence[CaseResult]) -> JudgeCalls:
    """The metric's ``llm()`` calls over ``results``: those that reached the model and their cost, those the cache
    answered, those a limit refused."""
    reached = cached = refused = 0
    cost: float | None = None
    for result in results:
        for call in result.llm_calls:
            if call.cached:
                cached += 1
            elif call.error_kind == LIMIT_REACHED:
                refused += 1
            else:
                reached += 1
                if call.cost_usd is not None:
                    cost = (cost or 0.0) + call.cost_usd
    return JudgeCalls(reached, cached, refused, cost)


def _budget_reached(options: RunOptions) -> bool:
    llm = options.llm
    if not isinstance(llm, MetricLlm) or llm.settings.max_cost_usd is None:
        return False
    return llm.spent_usd >= llm.settings.max_cost_usd
