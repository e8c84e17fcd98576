"""Reward weights as the trade-offs page's controls move them: a dragged weight with the other two rescaled,
a click on the weight map, the REWARD_SPEC the controls write and the controls a spec sets, the shares as text."""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from skynet_core.i18n import N_, _
from skynet_core.reward.parts import PARTS, validate_reward_spec, weight_vector

# The parts as people read them; translate with ``_()`` where shown.
PART_LABELS = {"accuracy": N_("accuracy"), "speed": N_("speed"), "cost": N_("cost")}


def renormalize(weights: Mapping[str, float], part: str, value: float, digits: int = 3) -> dict[str, float]:
    """The weights after ``part`` was dragged to ``value``, scaled so that the three sum to 1.

    ``value`` is clipped to [0, 1]; the other two parts share ``1 - value`` in proportion to their
    old weights (``weights`` need not sum to 1), or equally when both were 0. Values are rounded
    to ``digits`` decimals, and the larger of the other two takes the rounding's remainder, so the
    sum is 1 and the numbers read well once written into REWARD_SPEC.
    """
    if part not in PARTS:
        raise ValueError(f"part must be one of {', '.join(PARTS)}; got {part!r}.")
    new = round(min(max(float(value), 0.0), 1.0), digits)
    others = [other for other in PARTS if other != part]
    old = [max(float(weights.get(other, 0.0)), 0.0) for other in others]
    total = sum(old)
    rest = 1.0 - new
    shares = [rest * w / total for w in old] if total > 0 else [rest / 2, rest / 2]
    big = 0 if shares[0] >= shares[1] else 1
    small = 1 - big
    result = {part: new, others[small]: round(shares[small], digits)}
    result[others[big]] = round(rest - result[others[small]], digits)
    return {name: result[name] for name in PARTS}


def weights_from_point(point: Sequence[float] | Mapping[str, float]) -> dict[str, float]:
    """A point ``(accuracy, speed, cost)`` of the weight map as weights scaled to sum 1 (a click on the map).

    The point may come back as an object of its indexes, ``{"0": a, "1": s, "2": c}`` (how a typed array
    reads once it crossed to Python): its values are taken in the order of the indexes, never its keys."""
    if isinstance(point, Mapping):
        if sorted(point) != ["0", "1", "2"]:
            raise ValueError(f"A point of the weight map has the weights 0, 1 and 2; got {point!r}.")
        point = [point[str(index)] for index in range(3)]
    values = [max(float(v), 0.0) for v in point]
    if len(values) != 3 or sum(values) <= 0:
        raise ValueError(f"A point of the weight map has three weights of 0 or more, not all 0; got {point!r}.")
    total = sum(values)
    return {part: round(v / total, 3) for part, v in zip(PARTS, values, strict=True)}


def spec_from_controls(
    base: Mapping[str, Any],
    weights: Mapping[str, float],
    speed_ref: float | None,
    cost_ref: float | None,
    accuracy_ref: float | None,
) -> dict[str, Any]:
    """``base`` (a REWARD_SPEC dict) with the page's weights and references; every other key of it is kept.

    An ``accuracy`` section is written when ``base`` had one or an accuracy reference is set; without
    an accuracy reference, a ``reference`` in ``base``'s section is dropped.
    """
    spec = copy.deepcopy(dict(base))
    spec["weights"] = {part: weights[part] for part in PARTS}
    for part, ref in (("speed", speed_ref), ("cost", cost_ref)):
        section = spec.get(part)
        spec[part] = {**(section if isinstance(section, dict) else {}), "reference": ref}
    accuracy = spec.get("accuracy")
    section = dict(accuracy) if isinstance(accuracy, dict) else {}
    section.pop("reference", None)
    if accuracy_ref is not None:
        section["reference"] = accuracy_ref
    if section or "accuracy" in base:
        spec["accuracy"] = section
    return spec


def controls_from_spec(spec: Mapping[str, Any], fallback: Mapping[str, Any]) -> dict[str, Any]:
    """The page's control values for ``spec``: its weights as written, and its references (``fallback``'s
    speed and cost references where ``spec`` has none, since those controls always hold a number)."""
    norm, default = validate_reward_spec(dict(spec)), validate_reward_spec(dict(fallback))
    values: dict[str, Any] = {part: float(spec["weights"][part]) for part in PARTS}
    for part in ("speed", "cost"):
        values[f"{part}_ref"] = float(norm.reference(part) or default.reference(part) or 0.0)
    values["accuracy_ref"] = norm.accuracy_ref
    return values


def shares_text(weights: Mapping[str, float]) -> str:
    """The weights' shares, e.g. "accuracy 70% · speed 20% · cost 10%", in the current language."""
    vector = weight_vector(weights) if sum(float(weights[part]) for part in PARTS) > 0 else np.zeros(3)
    return " · ".join(
        _("{part} {share}").format(part=_(PART_LABELS[part]), share=f"{share:.0%}")
        for part, share in zip(PARTS, vector, strict=True)
    )
