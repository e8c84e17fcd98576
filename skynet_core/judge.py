"""What a model-as-judge metric costs, and how consistent its verdicts are.

- :func:`judge_summary`: the judge's calls, time and cost over a run, per 1,000
  cases, from each case's :class:`~skynet_core.results.JudgeUsage`.
- :func:`judge_consistency`: score each case N times and show the spread per
  case and overall. A judge whose verdict flips on the same case is a weak
  metric: the engines would chase noise.
"""

from __future__ import annotations

import statistics
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from .cases import Case
from .i18n import N_, _, format_cost, format_number, ngettext
from .llm import kind_label
from .metric_source import MetricSource
from .results import CaseResult, RunTally
from .runner.pool import WorkerPool
from .runner.run import score_cases
from .runner.values import LlmHandler

REPEAT_MARK = " #"  # a repeated case's id is "<id> #<k>", k counting from 1
DEFAULT_THRESHOLD = 0.5


@dataclass(frozen=True)
class JudgeSummary:
    """The metric's ``llm`` calls over ``cases`` results.

    ``calls`` counts every call, ``failed`` those that failed (refused by a
    limit too), ``errors`` the failed ones by kind (the error's class name, e.g.
    ``RateLimitError``), most frequent first; ``cached`` those the answer cache
    answered (no model call, cost 0: costs count real calls only).
    ``ms_per_1000`` is the judge's time summed over calls (what 1,000 cases
    cost in judge time one at a time; wall time divides it by the calls in
    flight). ``cost_per_1000`` is None when no call had a known price;
    ``unpriced_cases`` counts cases whose answered calls had none (enter a price per
    million tokens on the Settings page for models litellm does not know).
    """

    cases: int
    calls: int
    total_ms: float
    total_cost_usd: float | None
    unpriced_cases: int
    failed: int = 0
    errors: Mapping[str, int] = field(default_factory=dict)
    cached: int = 0

    @property
    def answered(self) -> int:
        return self.calls - self.failed

    @property
    def ms_per_1000(self) -> float:
        return self.total_ms / self.cases * 1000.0 if self.cases else 0.0

    @property
    def cost_per_1000(self) -> float | None:
        if self.total_cost_usd is None or not self.cases:
            return None
        return self.total_cost_usd / self.cases * 1000.0

    @property
    def used(self) -> bool:
        """Whether the metric called ``llm`` at all."""
        return self.calls > 0

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "calls": self.calls,
            "total_ms": self.total_ms,
            "total_cost_usd": self.total_cost_usd,
            "ms_per_1000": self.ms_per_1000,
            "cost_per_1000": self.cost_per_1000,
            "unpriced_cases": self.unpriced_cases,
            "failed_calls": self.failed,
            "errors_by_kind": dict(self.errors),
            "cached_calls": self.cached,
        }

    def error_kinds(self) -> str:
        """The failed calls by kind, e.g. "RateLimitError 3, connection refused 1" (a provider's error classes
        stay as they are; a connection that could not be made says why, in words)."""
        return ", ".join(f"{kind_label(kind)} {format_number(count)}" for kind, count in self.errors.items())

    def describe(self) -> str:
        """One line for people, e.g. "judge: 200 calls, 2 failed (Timeout 2); per 1,000 cases 210.0 s of judge
        time and $0.0300"."""
        if not self.used:
            return _("judge: the metric made no llm() calls")
        cost = format_cost(self.cost_per_1000) if self.cost_per_1000 is not None else _("an unknown cost")
        calls = ngettext("{count} call", "{count} calls", self.calls).format(count=format_number(self.calls))
        seconds = format_number(self.ms_per_1000 / 1000.0, 1)
        if self.failed:
            line = _(
                "judge: {calls}, {failed} failed ({kinds}); per 1,000 cases {seconds} s of judge time and {cost}"
            ).format(
                calls=calls, failed=format_number(self.failed), kinds=self.error_kinds(), seconds=seconds, cost=cost
            )
        else:
            line = _("judge: {calls}; per 1,000 cases {seconds} s of judge time and {cost}").format(
                calls=calls, seconds=seconds, cost=cost
            )
        if self.unpriced_cases and self.cost_per_1000 is not None:
            line += " " + ngettext(
                "({count} case had no known price; enter one on the Settings page)",
                "({count} cases had no known price; enter one on the Settings page)",
                self.unpriced_cases,
            ).format(count=format_number(self.unpriced_cases))
        if self.cached:
            line += " " + ngettext(
                "({count} answered from the cache, at no cost)",
                "({count} answered from the cache, at no cost)",
                self.cached,
            ).format(count=format_number(self.cached))
        return line


def judge_summary(results: Sequence[CaseResult]) -> JudgeSummary:
    """The judge's calls, time and cost over ``results`` (every case counts, with or without a call)."""
    tally = RunTally()
    for result in results:
        tally.add(result)
    return judge_summary_of(tally)


def judge_summary_of(tally: RunTally) -> JudgeSummary:
    """The same from a run's tally, for runs whose results were streamed rather than kept."""
    errors = dict(sorted(tally.judge_errors.items(), key=lambda item: (-item[1], item[0])))
    return JudgeSummary(
        tally.total,
        tally.judge_calls,
        tally.judge_ms,
        tally.judge_cost_usd,
        tally.judge_unpriced,
        tally.judge_failed,
        errors,
        tally.judge_cached,
    )


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
        from .llm_cache import FRESH_ANSWERS  # here, as in judge_consistency: main's imports changed beside it

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
    source: str | MetricSource,
    cases: Sequence[Case],
    repeats: int = 3,
    *,
    llm: LlmHandler | None,
    timeout: float = 60.0,
    concurrency: int = 8,
    threshold: float = DEFAULT_THRESHOLD,
    pool: WorkerPool | None = None,
    cancel: threading.Event | None = None,
    on_result: Callable[[CaseResult], None] | None = None,
) -> Consistency:
    """Score every case ``repeats`` times with metric.py ``source`` and measure how much the scores move.

    Runs through the isolated runner like any scoring (``on_result`` and
    ``cancel`` as in :func:`~skynet_core.runner.score_cases`); a cancelled run
    reports the runs that finished. Every run asks the model afresh: the answer
    cache is bypassed (:attr:`Consistency.cache_note`).
    """
    from .llm_cache import without_cache

    repeated = repeat_cases(cases, repeats)
    run = score_cases(
        source,
        repeated,
        timeout=timeout,
        concurrency=concurrency,
        llm=without_cache(llm),
        pool=pool,
        cancel=cancel,
        on_result=on_result,
    )
    return consistency_of(cases, run.results, repeats, threshold)
