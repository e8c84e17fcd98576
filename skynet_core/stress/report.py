"""A stress run's report, its JSON (the command line's ``--json``, and what the store keeps) and its verdict for
people: one sentence, and the short line History and Runs show ("stress: hackable (claims_correct 47%)")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..i18n import _, format_cost, format_number, ngettext
from .feedback import FeedbackReport
from .search import SearchResult
from .verdict import SEARCH, Flag, PerturbationResult, Verdict, percent


@dataclass(frozen=True)
class JudgeCalls:
    """The metric's ``llm()`` calls over the run: ``judge`` reached the model, ``cached`` the answer cache answered
    (no call, no cost), ``refused`` a limit stopped (calls per case, the budget); ``cost_usd`` is what the calls
    that reached the model cost (``None`` when none had a known price)."""

    judge: int = 0
    cached: int = 0
    refused: int = 0
    cost_usd: float | None = None

    @property
    def any(self) -> bool:
        return bool(self.judge or self.cached or self.refused)


@dataclass(frozen=True)
class StressReport:
    """What one stress run found.

    Invariants: ``cases`` counts the cases stressed (sampled, and scored as they were); ``sampled`` the cases
    sampled (``cases`` plus those whose own output could not be scored: ``baseline_errors``); ``total`` the cases
    given; ``perturbations`` are in catalog order, one per perturbation run; ``verdict`` is made of them and of
    ``search`` (when it ran); ``budget_reached`` says the budget stopped some cases (they count as errors).
    """

    cases: int
    sampled: int
    total: int
    seed: int
    perturbations: tuple[PerturbationResult, ...]
    verdict: Verdict
    feedback: FeedbackReport = field(default_factory=FeedbackReport)
    calls: JudgeCalls = field(default_factory=JudgeCalls)
    search: SearchResult | None = None
    budget_reached: bool = False
    created_at: float = 0.0

    @property
    def baseline_errors(self) -> int:
        return self.sampled - self.cases

    @property
    def cost_usd(self) -> float | None:
        """What the run's model calls cost: the judge's and the search's (``None`` when neither cost anything
        known)."""
        parts = [self.calls.cost_usd, self.search.cost_usd if self.search is not None else None]
        known = [part for part in parts if part is not None]
        return sum(known) if known else None

    def result(self, perturbation: str) -> PerturbationResult | None:
        return next((item for item in self.perturbations if item.id == perturbation), None)

    def to_json(self) -> dict[str, Any]:
        """The command line's ``--json`` object (see docs/stress.md)."""
        return {
            "cases": self.cases,
            "perturbations": [item.to_json() for item in self.perturbations],
            "verdict": self.verdict.to_json(),
            "feedback": self.feedback.to_json(),
            "calls": {
                "judge": self.calls.judge,
                "cached": self.calls.cached,
                "refused": self.calls.refused,
                "judge_cost_usd": self.calls.cost_usd,
            },
            "cost_usd": self.cost_usd,
            "search": self.search.to_json() if self.search is not None else None,
            "sampled": self.sampled,
            "total": self.total,
            "seed": self.seed,
            "baseline_errors": self.baseline_errors,
            "budget_reached": self.budget_reached,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], created_at: float = 0.0) -> StressReport:
        calls = data.get("calls") or {}
        search = data.get("search")
        judge_cost = calls.get("judge_cost_usd")
        return cls(
            cases=int(data["cases"]),
            sampled=int(data.get("sampled", data["cases"])),
            total=int(data.get("total", data["cases"])),
            seed=int(data.get("seed", 0)),
            perturbations=tuple(PerturbationResult.from_json(item) for item in data.get("perturbations", ())),
            verdict=Verdict.from_json(data.get("verdict") or {}),
            feedback=FeedbackReport.from_json(data.get("feedback")),
            calls=JudgeCalls(
                int(calls.get("judge", 0)),
                int(calls.get("cached", 0)),
                int(calls.get("refused", 0)),
                float(judge_cost) if judge_cost is not None else None,
            ),
            search=SearchResult.from_json(search) if isinstance(search, Mapping) else None,
            budget_reached=bool(data.get("budget_reached")),
            created_at=created_at,
        )

    def summary(self) -> StressSummary:
        return StressSummary.of(self)

    def headline(self) -> str:
        """The verdict in one sentence, for people."""
        verdict = self.verdict
        if not self.cases:
            return _("No case could be stressed: the metric scored none of the sampled cases as they are.")
        if verdict.sound:
            return _(
                "The metric held: no perturbation moved its score the wrong way on enough of the {cases} cases to "
                "flag it."
            ).format(cases=format_number(self.cases))
        return _("An optimizer can game this metric: it is {flags}.").format(flags=self.summary().describe_flags())

    def notes(self) -> list[str]:
        """What a reader must know to read the counts: cases left out, the budget reached (each a sentence)."""
        found = []
        if self.baseline_errors:
            found.append(
                ngettext(
                    "{count} sampled case was left out: the metric could not score its own output.",
                    "{count} sampled cases were left out: the metric could not score their own output.",
                    self.baseline_errors,
                ).format(count=format_number(self.baseline_errors))
            )
        if self.budget_reached:
            found.append(_("The budget was reached: the cases it stopped count as errors, not as violations."))
        return found

    def spent(self) -> str:
        """The calls that reached a model and what they cost, for people ("" for a metric that asked none)."""
        parts = []
        if self.calls.any:
            parts.append(
                _("judge: {calls} calls reached the model, {cached} answered from the cache").format(
                    calls=format_number(self.calls.judge), cached=format_number(self.calls.cached)
                )
            )
        if self.search is not None:
            parts.append(
                _("exploit search: {task} task and {reflection} reflection calls").format(
                    task=format_number(self.search.calls.task), reflection=format_number(self.search.calls.reflection)
                )
            )
        if not parts:
            return ""
        cost = self.cost_usd
        return "; ".join(parts) + ("; " + _("cost {cost}").format(cost=format_cost(cost)) if cost is not None else "")


@dataclass(frozen=True)
class StressSummary:
    """A run as History and Runs show it: per flag set, its reasons with their shares (a perturbation's share of
    violating cases, or the search's gain), worst first; and the cases stressed."""

    cases: int
    flags: Mapping[Flag, tuple[tuple[str, float], ...]] = field(default_factory=dict)

    @classmethod
    def of(cls, report: StressReport) -> StressSummary:
        flags: dict[Flag, tuple[tuple[str, float], ...]] = {}
        for flag, ids in report.verdict.why.items():
            reasons = []
            for reason in ids:
                if reason == SEARCH and report.search is not None:
                    reasons.append((reason, report.search.gain))
                elif (found := report.result(reason)) is not None and found.rate is not None:
                    reasons.append((reason, found.rate))
            flags[flag] = tuple(reasons)
        return cls(report.cases, flags)

    @property
    def sound(self) -> bool:
        return not self.flags

    def describe_flags(self) -> str:
        """Each flag with its worst reason: "hackable (claims_correct 47%) and brittle (case 100%)"."""
        return _(" and ").join(self._flag(flag, reasons) for flag, reasons in self.flags.items())

    def describe(self) -> str:
        """The line History and Runs show: "stress: hackable (claims_correct 47%)", "stress: sound"."""
        if self.sound:
            return ngettext("stress: sound ({cases} case)", "stress: sound ({cases} cases)", self.cases).format(
                cases=format_number(self.cases)
            )
        return _("stress: {flags}").format(flags=self.describe_flags())

    @staticmethod
    def _flag(flag: Flag, reasons: Sequence[tuple[str, float]]) -> str:
        if not reasons:
            return flag.label
        reason, value = reasons[0]
        shown = f"{value:+.2f}" if reason == SEARCH else percent(value)
        return _("{flag} ({reason} {value})").format(flag=flag.label, reason=reason, value=shown)

    def to_json(self) -> dict[str, Any]:
        return {
            "cases": self.cases,
            "flags": {flag.value: [list(item) for item in items] for flag, items in self.flags.items()},
        }

    @classmethod
    def from_json(cls, data: Any) -> StressSummary:
        data = data if isinstance(data, Mapping) else {}
        flags = {
            Flag(flag): tuple((str(item[0]), float(item[1])) for item in items)
            for flag, items in (data.get("flags") or {}).items()
            if flag in {member.value for member in Flag}
        }
        return cls(int(data.get("cases", 0)), flags)
