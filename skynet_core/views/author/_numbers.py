"""How a scoring run's numbers read: counts, the mean, a case's side information and its error's headline."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...results import CaseResult


@dataclass(frozen=True)
class RunNumbers:
    """The headline numbers of a set of results: the mean over ok cases and the share that did not score."""

    total: int
    ok: int
    mean: float | None
    by_status: dict[str, int]

    @property
    def failed(self) -> int:
        return self.total - self.ok

    @property
    def failed_share(self) -> float:
        return self.failed / self.total if self.total else 0.0


def run_numbers(results: Sequence[CaseResult]) -> RunNumbers:
    ok = [r.score for r in results if r.ok and r.score is not None]
    by_status: dict[str, int] = {}
    for result in results:
        by_status[result.status.value] = by_status.get(result.status.value, 0) + 1
    return RunNumbers(len(results), len(ok), sum(ok) / len(ok) if ok else None, by_status)


def side_information(result: CaseResult) -> dict[str, Any] | None:
    """The side information the metric returned, or ``None`` when it returned none (a case that did not score)."""
    if not result.ok:
        return None
    return {"feedback": result.feedback, "scores": result.scores, **result.extra}


def error_headline(error: str, limit: int = 160) -> str:
    """An error's first line, clipped for a table cell (the whole text is shown elsewhere, once)."""
    first = error.strip().splitlines()[0] if error.strip() else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"
