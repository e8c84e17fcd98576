"""Will the optimizer game it? The stress test: named perturbations of each output, what they do to the metric's
scores, and the verdict (``brittle``, ``insensitive``, ``hackable``), with an exploit search in which the reflection
model looks for a rewrite of wrong outputs that the metric rewards::

    from skynet_core.scoring import RunOptions, scorer_for
    from skynet_core.stress import Family, run_stress, sample_cases

    report = run_stress(metric, sample_cases(cases, 200), scorer_for(None), RunOptions(), families=(Family.GAME,))
    report.verdict.hackable          # Verdict: the flags and the perturbations behind each
    report.headline()                # the verdict in one sentence
    report.to_json()                 # the command line's --json

Modules: ``perturbations`` (the catalog: :class:`Perturbation`, :class:`Family`), ``verdict`` (the rules, the
per-perturbation :class:`PerturbationResult` and the :class:`Verdict`), ``violations`` (a perturbation's scored
cases made into its result), ``stats`` (the mean change's bootstrap interval), ``feedback`` (feedback under
stress), ``search`` (the exploit search, through GEPA's ``optimize_anything``), ``run`` (:func:`run_stress`: one
scorer run for every perturbed case), ``report`` (:class:`StressReport`, its JSON and its words), ``plan`` (calls
and cost before a run), ``saved`` (the records of runs kept
with the metric version: the SQL is ``skynet_core.store.stress``) and ``cli`` (``python -m skynet_core
stress``).
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_face

if TYPE_CHECKING:
    from .feedback import FeedbackReport, Finding
    from .perturbations import BY_ID, CATALOG, UNCHANGED, Draw, Family, Perturbation
    from .report import JudgeCalls, StressReport, StressSummary
    from .run import StressError, default_cases, run_stress, sample_cases
    from .search import SearchPlan, SearchResult
    from .verdict import Example, Flag, PerturbationResult, Verdict

# Imported on first use (PEP 562): the command line imports this package for its ``stress`` parser, and every
# other command should not pay for the run's modules.
__getattr__ = lazy_face(__name__, __file__)

__all__ = [
    "BY_ID",
    "CATALOG",
    "UNCHANGED",
    "Draw",
    "Example",
    "FeedbackReport",
    "Family",
    "Finding",
    "Flag",
    "JudgeCalls",
    "Perturbation",
    "PerturbationResult",
    "SearchPlan",
    "SearchResult",
    "StressError",
    "StressReport",
    "StressSummary",
    "Verdict",
    "default_cases",
    "run_stress",
    "sample_cases",
]
