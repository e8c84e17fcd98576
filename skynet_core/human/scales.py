"""The scales a person labels on, and how each maps onto the metric's scale."""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from skynet_core.i18n import N_, _


class ScaleKind(StrEnum):
    """``unit``: 0 to 1 in steps; ``five``: 1 to 5; ``pass_fail``: pass or fail."""

    UNIT = "unit"
    FIVE = "five"
    PASS_FAIL = "pass_fail"


_NAMES = {
    ScaleKind.UNIT: N_("0 to 1 in steps of {step}"),
    ScaleKind.FIVE: N_("1 to 5"),
    ScaleKind.PASS_FAIL: N_("pass or fail"),
}


@dataclass(frozen=True)
class LabelScale:
    """The scale a person labels on, mapped linearly onto the metric's scale.

    Invariants:

    - :attr:`levels` are the labels a person can choose, ascending: ``unit`` has 0, ``step``, …, 1
      (``1 / step`` a whole number from 1 to 9, so every level has its own digit key), ``five`` has
      1 to 5, ``pass_fail`` has fail (0) and pass (1).
    - :meth:`to_metric` maps the lowest level to ``metric_low`` and the highest to ``metric_high``
      (by default 0 and 1, so a pass is kept as 1.0 and a fail as 0.0, a 4 of 5 as 0.75);
      :meth:`from_metric` is its inverse, rounded to the nearest level. What is stored is always the
      value on the metric's scale, so labels made on different scales can be compared.
    """

    kind: ScaleKind = ScaleKind.UNIT
    step: float = 0.25
    metric_low: float = 0.0
    metric_high: float = 1.0

    def __post_init__(self) -> None:
        parts = 1 / self.step if self.step > 0 else math.inf
        if self.kind is ScaleKind.UNIT and not (1 <= round(parts) <= 9 and math.isclose(parts, round(parts))):
            raise ValueError(
                _("A step of {step} does not divide 0 to 1 into 1 to 9 equal parts; use 0.25, 0.2, 0.5 or 1.").format(
                    step=self.step
                )
            )
        if not (
            math.isfinite(self.metric_low) and math.isfinite(self.metric_high) and self.metric_low < self.metric_high
        ):
            raise ValueError(
                _("The metric's scale must run from a lower to a higher finite number, not {low} to {high}.").format(
                    low=self.metric_low, high=self.metric_high
                )
            )

    @property
    def name(self) -> str:
        """The scale for people, e.g. "0 to 1 in steps of 0.25"."""
        return _(_NAMES[self.kind]).format(step=f"{self.step:g}")

    @property
    def levels(self) -> tuple[float, ...]:
        """The labels a person can choose, ascending, in the scale's own units."""
        if self.kind is ScaleKind.FIVE:
            return (1.0, 2.0, 3.0, 4.0, 5.0)
        if self.kind is ScaleKind.PASS_FAIL:
            return (0.0, 1.0)
        parts = round(1 / self.step)
        return tuple(index / parts for index in range(parts + 1))

    def to_metric(self, level: float) -> float:
        """A label on this scale as a value on the metric's scale (linear: lowest level to ``metric_low``)."""
        first, last = self.levels[0], self.levels[-1]
        return self.metric_low + (level - first) / (last - first) * (self.metric_high - self.metric_low)

    def from_metric(self, value: float) -> float:
        """The level nearest to ``value`` (on the metric's scale), for showing a stored score on this scale."""
        first, last = self.levels[0], self.levels[-1]
        level = first + (value - self.metric_low) / (self.metric_high - self.metric_low) * (last - first)
        return min(self.levels, key=lambda candidate: abs(candidate - level))

    def value_for_key(self, key: str) -> float | None:
        """The value on the metric's scale that a key sets, or ``None`` for a key that sets none.

        ``unit``: digit ``i`` is the ``i``-th level (0 is 0, 1 is ``step``, …); ``five``: digits 1 to 5;
        ``pass_fail``: ``p`` or ``1`` is a pass, ``f`` or ``0`` a fail (``p`` and ``f`` work on every
        scale: its highest and lowest level).
        """
        key = key.strip().lower()
        if key == "p":
            return self.to_metric(self.levels[-1])
        if key == "f":
            return self.to_metric(self.levels[0])
        if len(key) != 1 or not key.isdigit():
            return None
        digit = int(key)
        if self.kind is ScaleKind.FIVE:
            return self.to_metric(float(digit)) if 1 <= digit <= 5 else None
        return self.to_metric(self.levels[digit]) if digit < len(self.levels) else None

    @property
    def keys(self) -> tuple[tuple[str, float], ...]:
        """Every key that sets a label and the value (on the metric's scale) it sets: the levels' digits in
        ascending order, then ``f`` (the lowest level) and ``p`` (the highest)."""
        first = 1 if self.kind is ScaleKind.FIVE else 0
        digits = [str(first + index) for index in range(len(self.levels))]
        return tuple((key, value) for key in (*digits, "f", "p") if (value := self.value_for_key(key)) is not None)

    def label_text(self, value: float) -> str:
        """A stored value as this scale shows it: "pass" / "fail", "4", or "0.75"."""
        level = self.from_metric(value)
        if self.kind is ScaleKind.PASS_FAIL:
            return _("pass") if level == 1.0 else _("fail")
        return f"{level:g}"

    @property
    def keys_help(self) -> str:
        """Which keys set which label, for the page's caption."""
        if self.kind is ScaleKind.PASS_FAIL:
            return _("p or 1: pass, f or 0: fail")
        if self.kind is ScaleKind.FIVE:
            return _("1 to 5: the score; p: 5, f: 1")
        return _("0 to {last}: the score {levels}; p: 1, f: 0").format(
            last=len(self.levels) - 1, levels=" / ".join(f"{level:g}" for level in self.levels)
        )
