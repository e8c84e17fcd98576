"""A figure with its bootstrap interval, or the reason it is undefined."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from skynet_core.i18n import N_, _


class Undefined(StrEnum):
    """Why a figure has no value. The value (``constant_scores`` …) is what JSON carries, in every language."""

    TOO_FEW = "too_few"
    CONSTANT_SCORES = "constant_scores"
    CONSTANT_HUMAN = "constant_human"
    ONE_CLASS = "one_class"
    NO_HUMAN_PASSES = "no_human_passes"
    NO_HUMAN_FAILS = "no_human_fails"
    NO_FLAGS = "no_flags"
    NO_WEAK_MARKS = "no_weak_marks"
    CONSTANT_RATINGS = "constant_ratings"
    TOO_LARGE = "too_large"

    @property
    def message(self) -> str:
        """The reason for people, in the current language."""
        return _(_MESSAGES[self])


_MESSAGES = {
    Undefined.TOO_FEW: N_("too few labelled cases"),
    Undefined.CONSTANT_SCORES: N_("the metric gave every labelled case the same score"),
    Undefined.CONSTANT_HUMAN: N_("every labelled case has the same human score"),
    Undefined.ONE_CLASS: N_("the metric and the person put every case on the same side of the threshold"),
    Undefined.NO_HUMAN_PASSES: N_("the person passed no case"),
    Undefined.NO_HUMAN_FAILS: N_("the person failed no case"),
    Undefined.NO_FLAGS: N_("the rule flagged none of the marked cases"),
    Undefined.NO_WEAK_MARKS: N_("no marked case is marked weak"),
    Undefined.CONSTANT_RATINGS: N_("both raters gave every case the same score"),
    Undefined.TOO_LARGE: N_("the scores are too large to compare"),
}


@dataclass(frozen=True)
class Estimate:
    """A figure and its 95% percentile bootstrap interval over cases.

    Invariants: ``value`` is ``None`` exactly when ``reason`` is set; an undefined figure has no
    interval either. ``low`` and ``high`` are ``None`` also on fewer than :data:`.report.MIN_LABELLED` cases
    (resamples of so few repeat the same cases: their interval would be a point) and when no resample defined
    the figure; otherwise ``low <= high``. The interval is
    that of the resamples' values, so it need not contain ``value``. Every number is finite.
    """

    value: float | None
    low: float | None = None
    high: float | None = None
    reason: Undefined | None = None

    def __post_init__(self) -> None:
        if (self.value is None) != (self.reason is not None):
            raise ValueError(f"an estimate has a value or a reason, not both or neither: {self!r}")
        if self.value is None and (self.low is not None or self.high is not None):
            raise ValueError(f"an undefined estimate has no interval: {self!r}")
        if (self.low is None) != (self.high is None):
            raise ValueError(f"an interval has both ends or neither: {self!r}")
        numbers = [item for item in (self.value, self.low, self.high) if item is not None]
        if not all(math.isfinite(item) for item in numbers):
            raise ValueError(f"an estimate's numbers are finite: {self!r}")

    @classmethod
    def undefined(cls, reason: Undefined) -> Estimate:
        return cls(None, reason=reason)

    @property
    def defined(self) -> bool:
        return self.value is not None

    def to_json(self) -> dict[str, Any]:
        """``{"value", "low", "high"}``, and ``"reason"`` (an :class:`Undefined` value) when undefined."""
        data: dict[str, Any] = {"value": self.value, "low": self.low, "high": self.high}
        if self.reason is not None:
            data["reason"] = self.reason.value
        return data

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Estimate:
        reason = data.get("reason")
        return cls(data.get("value"), data.get("low"), data.get("high"), Undefined(reason) if reason else None)
