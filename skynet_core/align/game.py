"""The stress test's ``game`` family beside an alignment: did the aligned judge become easier to fool?

A judge tuned toward people's scores can learn to pass what a wrong answer dresses itself in ("This answer is
correct.", a fake verdict, the expected value pasted in). After a complete run that changed the prompts, the
``game`` perturbations of the stress test (:func:`skynet_core.stress.run_stress`) are run on the test cases with the
starting prompts and with the final ones, through the alignment's judge (its Scorer, options, answer cache and
budget), and the two verdicts are compared.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..i18n import _

if TYPE_CHECKING:
    from ..cases import Case
    from ..metric.source import MetricSource
    from ..scoring import RunOptions, Scorer
    from ..stress.report import StressReport, StressSummary

RISE = 0.10
"""How much more often (a share of the cases) a ``game`` perturbation must fool the aligned judge than the starting
one, at or above the stress test's ``hackable`` share, for the aligned judge to count as easier to fool."""


@dataclass(frozen=True)
class GameCheck:
    """The ``game`` family on the same test cases and seed, with the starting prompts (``before``) and the final
    ones (``after``).

    Invariants: both reports stressed the same cases with the same perturbations; :attr:`easier` names, worst
    first, the perturbations that fool the aligned judge often enough to flag it ``hackable`` and at least
    :data:`RISE` more often than they fooled the starting one (empty: not easier to fool).
    """

    before: StressReport
    after: StressReport

    @property
    def easier(self) -> tuple[str, ...]:
        found = []
        for result in self.after.perturbations:
            rate, start = result.rate, self.before.result(result.id)
            if rate is None or result.flag is None:
                continue
            was = start.rate if start is not None and start.rate is not None else 0.0
            if rate - was >= RISE - 1e-9:
                found.append((rate - was, result.id))
        return tuple(item for _, item in sorted(found, key=lambda pair: -pair[0]))

    @property
    def summaries(self) -> tuple[StressSummary, StressSummary]:
        return self.before.summary(), self.after.summary()

    def lines(self) -> list[str]:
        """For people: the starting and the aligned judge's verdicts, then whether it became easier to fool."""
        first, second = self.summaries
        lines = [
            _("The stress test's game family on the {count} test cases:").format(count=self.after.cases),
            _("starting judge: {verdict}").format(verdict=first.describe()),
            _("aligned judge: {verdict}").format(verdict=second.describe()),
        ]
        if self.easier:
            lines.append(
                _("The aligned judge is easier to fool than the starting one ({ids}): review its rubric.").format(
                    ids=", ".join(self.easier)
                )
            )
        else:
            lines.append(_("The aligned judge is no easier to fool than the starting one."))
        return lines

    def to_json(self) -> dict[str, Any]:
        return {
            "family": "game",
            "before": self.before.to_json(),
            "after": self.after.to_json(),
            "easier_to_fool": list(self.easier),
        }


def check_game(
    original: MetricSource,
    aligned: MetricSource,
    cases: Sequence[Case],
    scorer: Scorer,
    options: Callable[[], RunOptions],
    *,
    seed: int = 0,
) -> GameCheck:
    """The ``game`` family on ``cases`` with ``original`` and with ``aligned``; ``options()`` gives each run's options
    (called before each, so that each sees what is left of the budget). Raises what
    :func:`~skynet_core.stress.run_stress` raises (``Cancelled``, ``StressError``)."""
    from ..stress import run_stress
    from ..stress.perturbations import Family

    reports = [
        run_stress(metric, cases, scorer, options(), families=(Family.GAME,), seed=seed)
        for metric in (original, aligned)
    ]
    return GameCheck(reports[0], reports[1])
