"""Align the judge with people: GEPA rewrites the instructions of a metric's ``llm()`` calls toward the human scores,
and the gain is measured on labelled cases the optimizer never saw.

::

    from skynet_core.align import (
        AlignConfig, Alignment, labelled_cases, plan_align, prompts_of, run_align, split_labelled,
    )

    labelled = labelled_cases(cases, human_scores, candidate, threshold=0.5)   # the people's side
    alignment = Alignment(metric, prompts_of(metric), labelled, split_labelled(labelled, seed=0),
                          AlignConfig(rounds=8, max_cost_usd=1.0), settings, scorer, options_for)
    plan_align(alignment).describe()          # the calls at most and their cost, before anything runs
    result = run_align(alignment, cancel=event, on_progress=print)
    result.gain                               # κ after − κ before on test, with its paired interval
    result.aligned                            # the metric folder with only its prompts changed

Modules, one idea each: ``prompts`` (the instruction strings in metric.py, found and rewritten with ``ast``),
``labelled`` (the labelled cases of the candidate in use, the scale, the raters: the one reader of the human
scores), ``split`` (train / dev / test, stratified, seeded), ``measures`` (the objective and the figures),
``config`` (a run's size), ``guards`` (what a proposal must pass), ``judge`` (scoring through the Scorer seam;
calls, cost, budget), ``reflection`` (what the reflection model reads), ``rounds`` (GEPA's rounds recorded),
``loop`` (the run), ``plan``, ``result``, ``text`` (the words) and ``charts``. The command line's ``align`` is
``skynet_core.cli.align``.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_face

if TYPE_CHECKING:
    from .config import DEFAULT_ROUNDS, MAX_ROUNDS, AlignConfig
    from .labelled import (
        MIN_DISAGREEMENTS,
        MIN_LABELLED,
        HumanCase,
        Labelled,
        RaterPair,
        Scale,
        labelled_cases,
        rater_pairs,
        refusal,
    )
    from .loop import Alignment, AlignProgress, run_align, total_steps
    from .measures import Figures, figures, objective, paired_gain
    from .plan import AlignPlan, plan_align
    from .prompts import NoPrompt, Prompt, find_prompts, placeholders, prompts_of, rewrite, with_prompts
    from .result import AlignResult, Calls, Measured, Outcome, RoundRecord
    from .split import AlignSplit, split_labelled

__getattr__ = lazy_face(__name__, __file__)


__all__ = [
    "DEFAULT_ROUNDS",
    "MAX_ROUNDS",
    "MIN_DISAGREEMENTS",
    "MIN_LABELLED",
    "AlignConfig",
    "AlignPlan",
    "AlignProgress",
    "AlignResult",
    "AlignSplit",
    "Alignment",
    "Calls",
    "Figures",
    "HumanCase",
    "Labelled",
    "Measured",
    "NoPrompt",
    "Outcome",
    "Prompt",
    "RaterPair",
    "RoundRecord",
    "Scale",
    "figures",
    "find_prompts",
    "labelled_cases",
    "objective",
    "paired_gain",
    "placeholders",
    "plan_align",
    "prompts_of",
    "rater_pairs",
    "refusal",
    "rewrite",
    "run_align",
    "split_labelled",
    "total_steps",
    "with_prompts",
]
