"""How consistent a judge's verdicts are: score each case N times and show the spread per case and overall. A
judge whose verdict flips on the same case is a weak metric: the engines would chase noise."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..cases import Case
from ..i18n import N_, _, format_number, ngettext
from ..llm.cache import FRESH_ANSWERS, without_cache
from ..metric.source import MetricSource
from ..results import CaseResult
from ..scoring import RunOptions, Scorer

REPEAT_MARK = " #"  # a repeated case's id is "<id> #<k>", k counting from 1
DEFAULT_THRESHOLD = 0.5


@dataclass(frozen=True)
class CaseSpread:
    """One case judged ``runs`` times: its scores (ok runs only), their spread, and whether the verdict flipped.

    A verdict is pass when the score is at least the threshold. ``errors`` are
    the runs that did not return a score (their messages, in run order).
    """

    id: str
    scores: tuple[float, ...]
    feedbacks: tuple[str, ...]
    errors: tuple[str, ...]
    threshold: float = DEFAULT_THRESHOLD

    @property
    def runs(self) -> int:
        return len(self.scores) + len(self.errors)

    @property
    def low(self) -> float | None:
        return min(self.scores) if self.scores else None

    @property
    def high(self) -> float | None:
        return max(self.scores) if self.scores else None

    @property
    def spread(self) -> float | None:
        return max(self.scores) - min(self.scores) if self.scores else None

    @property
    def mean(self) -> float | None:
        return statistics.fmean(self.scores) if self.scores else None

    @property
    def stdev(self) -> float | None:
        """The sample standard deviation; None with fewer than two scores."""
        return statistics.stdev(self.scores) if len(self.scores) >= 2 else None

    @property
    def passes(self) -> int:
        return sum(1 for score in self.scores if score >= self.threshold)

    @property
    def flipped(self) -> bool:
        """Some runs passed and some failed on this very case."""
        return 0 < self.passes < len(self.scores)

    @property
    def agreement(self) -> float | None:
        """The share of scored runs that agree with the case's majority verdict (1.0: always the same)."""
        if not self.scores:
            return None
        return max(self.passes, len(self.scores) - self.passes) / len(self.scores)


@dataclass(frozen=True)
class Consistency:
    """Every case's spread, and the overall picture.

    ``flip_rate`` is the share of cases (with at least two scores) whose
    verdict flipped; ``mean_stdev`` the mean of the per-case standard
    deviations; ``agreement`` the share of runs that agree with their case's
    majority verdict.
    """

    repeats: int
    cases: list[CaseSpread] = field(default_factory=list)
    threshold: float = DEFAULT_THRESHOLD

    @property
    def compared(self) -> list[CaseSpread]:
        """Cases with at least two scores: the ones a spread can be measured on."""
        return [case for case in self.cases if len(case.scores) >= 2]

    @property
    def flipped(self) -> list[CaseSpread]:
        return [case for case in self.cases if case.flipped]

    @property
    def flip_rate(self) -> float | None:
        compared = self.compared
        return len(self.flipped) / len(compared) if compared else None

    @property
    def mean_stdev(self) -> float | None:
        stdevs = [case.stdev for case in self.compared if case.stdev is not None]
        return statistics.fmean(stdevs) if stdevs else None

    @property
    def max_spread(self) -> float | None:
        spreads = [case.spread for case in self.compared if case.spread is not None]
        return max(spreads) if spreads else None

    @property
    def agreement(self) -> float | None:
        scored = sum(len(case.scores) for case in self.cases)
        if not scored:
            return None
        return sum((case.agreement or 0.0) * len(case.scores) for case in self.cases) / scored

    @property
    def errors(self) -> int:
        return sum(len(case.errors) for case in self.cases)

    @property
    def cache_note(self) -> str:
        """That every run asked the model afresh (the answer cache is bypassed), for the page to say."""
        return _(FRESH_ANSWERS)

    def describe(self) -> str:
        """One line for people, in the current language."""
        if not self.compared:
            return ngettext(
                "No case was scored at least twice in {repeats} run; see the errors.",
                "No case was scored at least twice in {repeats} runs; see the errors.",
                self.repeats,
            ).format(repeats=self.repeats)
        verdict = (
            _("the judge gave the same verdict every time")
            if not self.flipped
            else ngettext(
                "the verdict flipped on {flipped} of {compared} case ({share}%)",
                "the verdict flipped on {flipped} of {compared} cases ({share}%)",
                len(self.compared),
            ).format(
                flipped=len(self.flipped),
                compared=len(self.compared),
                share=format_number(100 * (self.flip_rate or 0.0), 0),
            )
        )
        return ngettext(
            "Judged {cases} case {repeats} times each: {verdict}; mean standard deviation {stdev}, largest "
            "spread {spread}.",
            "Judged {cases} cases {repeats} times each: {verdict}; mean standard deviation {stdev}, largest "
            "spread {spread}.",
            len(self.cases),
        ).format(
            cases=len(self.cases),
            repeats=self.repeats,
            verdict=verdict,
            stdev=format_number(self.mean_stdev or 0.0, 3),
            spread=format_number(self.max_spread or 0.0, 3),
        )

    def rows(self) -> list[dict[str, Any]]:
        """One row per case, for a table."""
        return [
            {
                "id": case.id,
                "runs": case.runs,
                "mean": case.mean,
                "min": case.low,
                "max": case.high,
                "stdev": case.stdev,
                "flipped": case.flipped,
                "agreement": case.agreement,
                "errors": len(case.errors),
            }
            for case in self.cases
        ]


# The headers of :meth:`Consistency.rows`' columns (translated where shown: :func:`column_labels`).
COLUMN_LABELS = {
    "id": N_("case"),
    "runs": N_("runs"),
    "mean": N_("mean"),
    "min": N_("min"),
    "max": N_("max"),
    "stdev": N_("stdev"),
    "flipped": N_("flipped"),
    "agreement": N_("agreement"),
    "errors": N_("errors"),
}


def column_labels() -> dict[str, str]:
    """The consistency table's column headers in the current language, by the keys of :meth:`Consistency.rows`."""
    return {key: _(label) for key, label in COLUMN_LABELS.items()}


def repeat_id(case_id: str, run: int) -> str:
    """The id of run ``run`` (from 1) of a case."""
    return f"{case_id}{REPEAT_MARK}{run}"


def repeat_cases(cases: Sequence[Case], repeats: int) -> list[Case]:
    """Each case ``repeats`` times with distinct ids, run by run (all cases once, then all again…)."""
    if repeats < 1:
        raise ValueError(f"repeats must be at least 1, not {repeats}")
    return [replace(case, id=repeat_id(case.id, run)) for run in range(1, repeats + 1) for case in cases]


def consistency_of(
    cases: Sequence[Case], results: Sequence[CaseResult], repeats: int, threshold: float = DEFAULT_THRESHOLD
) -> Consistency:
    """Group the results of :func:`repeat_cases` back by case, in the order of ``cases``."""
    by_id: dict[str, list[CaseResult]] = {case.id: [] for case in cases}
    for result in results:
        original, _mark, run = result.id.rpartition(REPEAT_MARK)
        if run.isdigit() and original in by_id:
            by_id[original].append(result)
    spreads = []
    for case_id, runs in by_id.items():
        scores = tuple(result.score for result in runs if result.ok and result.score is not None)
        feedbacks = tuple(result.feedback for result in runs if result.ok)
        errors = tuple(
            result.error.splitlines()[0] if result.error else result.status.value for result in runs if not result.ok
        )
        spreads.append(CaseSpread(case_id, scores, feedbacks, errors, threshold))
    return Consistency(repeats, spreads, threshold)


def judge_consistency(
    scorer: Scorer,
    metric: MetricSource,
    cases: Sequence[Case],
    repeats: int,
    options: RunOptions,
    threshold: float = DEFAULT_THRESHOLD,
) -> Consistency:
    """Score every case ``repeats`` times with ``metric`` through ``scorer`` and measure how much the scores move.

    ``options`` are the run's, taken whole; a cancelled run reports the runs that finished. Every run asks the
    model afresh: the answer cache is bypassed (:attr:`Consistency.cache_note`).
    """
    fresh = replace(options, llm=without_cache(options.llm))
    return consistency_of(cases, scorer(metric, repeat_cases(cases, repeats), fresh).results, repeats, threshold)
