"""A run's results summed up as they stream past, for a report that does not hold them."""

from __future__ import annotations

from dataclasses import dataclass, field

from ._case import CaseResult, CaseStatus

SHOWN_CASES = 20
_OK = CaseStatus.OK


@dataclass
class RunTally:
    """What a report needs from a run's results without holding them: counts by status,
    the mean of the scores, the judge's totals, and the first few cases (all of them and the
    failed ones, up to ``SHOWN_CASES`` each) for a text report. Fed in case order."""

    total: int = 0
    by_status: dict[str, int] = field(default_factory=dict)
    scored: int = 0
    score_sum: float = 0.0
    judge_calls: int = 0
    judge_ms: float = 0.0
    judge_cost_usd: float | None = None
    judge_unpriced: int = 0
    judge_failed: int = 0
    judge_errors: dict[str, int] = field(default_factory=dict)
    judge_cached: int = 0  # calls answered by the answer cache (no model call, no cost)
    first: list[CaseResult] = field(default_factory=list)
    failures: list[CaseResult] = field(default_factory=list)
    failed: int = 0

    def add(self, result: CaseResult) -> None:
        self.total += 1
        by_status = self.by_status
        # Not .value for every case: an enum's property (or hash) costs more than the rest of this line.
        if result.status is _OK:
            by_status["ok"] = by_status.get("ok", 0) + 1
            score = result.score
            if score is not None:
                self.scored += 1
                self.score_sum += score
        else:
            status = result.status.value
            by_status[status] = by_status.get(status, 0) + 1
            self.failed += 1
            if len(self.failures) < SHOWN_CASES:
                self.failures.append(result)
        if self.total <= SHOWN_CASES:
            self.first.append(result)
        judge = result.judge
        if judge.calls:
            self.judge_calls += judge.calls
            self.judge_ms += judge.latency_ms
            calls = result._llm_calls
            if calls:
                answered = 0
                for call in calls:
                    if call.cached:
                        self.judge_cached += 1
                    if call.ok:
                        answered += 1
                    else:
                        self.judge_failed += 1
                        kind = call.error_kind or "LlmError"
                        self.judge_errors[kind] = self.judge_errors.get(kind, 0) + 1
                if answered and any(call.ok and call.cost_usd is None for call in calls):
                    self.judge_unpriced += 1
            elif judge.cost_usd is None:  # a result kept before calls were traced
                self.judge_unpriced += 1
        if judge.cost_usd is not None:
            self.judge_cost_usd = (self.judge_cost_usd or 0.0) + judge.cost_usd

    @property
    def mean(self) -> float | None:
        return self.score_sum / self.scored if self.scored else None

    @property
    def first_failure(self) -> CaseResult | None:
        return self.failures[0] if self.failures else None
