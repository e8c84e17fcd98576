"""Does the feedback help? Measure what GEPA's reflection gains from a metric's feedback.

The same instruction, cases, seeds and budget run in arms that differ only in what the reflection
model reads about each case (:class:`Arm`): the metric's feedback, the score alone, or another case's
feedback. Each arm improves the instruction for a few rounds with GEPA's own reflection prompt and
extractor; its final instruction is scored on validation cases, and the feedback's value is the gain
with feedback minus the gain with the score only, with a 95% interval across seeds::

    from skynet_core.engines import SandboxedMetric, model_from_env
    from skynet_core.engines.uplift import Experiment, Models, UpliftConfig, plan_uplift, run_uplift, split_cases

    experiment = Experiment(
        SandboxedMetric(source),
        split_cases(cases),
        UpliftConfig("Classify the ticket.", max_cost_usd=1.0),
        Models(model_from_env("task"), model_from_env("reflection")),
    )
    print(plan_uplift(experiment).describe())    # the calls at most, and what they should cost
    result = run_uplift(experiment, cancel=event, on_progress=print)
    result.feedback_value                          # Interval(value, low, high, n)

Modules: ``config`` (the arms, the experiment's size, the models), ``cases`` (the split and the seeded
choices), ``arms`` (what each arm shows), ``calls`` (counting, pricing, budget and Cancel), ``loop``
(the run), ``stats`` (t-intervals), ``result``, ``plan`` (calls and cost before a run), ``saved`` (the
records of results kept with the metric version: the SQL is ``skynet_core.store.uplift``),
``charts`` (plotly figures, imported from their module) and ``cli``.
"""

from typing import TYPE_CHECKING

from ...lazy import lazy_face

if TYPE_CHECKING:
    from .cases import Split, split_cases
    from .config import ALL_ARMS, Arm, Models, UpliftConfig
    from .loop import Experiment, Progress, run_uplift, total_steps
    from .plan import CallPlan, UpliftPlan, plan_uplift
    from .result import ArmResult, Calls, Outcome, Round, SeedRun, UpliftResult
    from .stats import Interval, mean_interval

__getattr__ = lazy_face(__name__, __file__)


__all__ = [
    "ALL_ARMS",
    "Arm",
    "ArmResult",
    "CallPlan",
    "Calls",
    "Experiment",
    "Interval",
    "Models",
    "Outcome",
    "Progress",
    "Round",
    "SeedRun",
    "Split",
    "UpliftConfig",
    "UpliftPlan",
    "UpliftResult",
    "mean_interval",
    "plan_uplift",
    "run_uplift",
    "split_cases",
    "total_steps",
]
