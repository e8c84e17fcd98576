"""What a model-as-judge metric costs: the judge's calls, time and cost over a run, per 1,000 cases, from each
case's :class:`~skynet_core.results.JudgeUsage`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..i18n import _, format_cost, format_number, ngettext
from ..llm.provider import kind_label
from ..results import CaseResult, RunTally


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
