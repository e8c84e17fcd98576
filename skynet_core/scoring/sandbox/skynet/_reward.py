"""The reward: accuracy, speed and cost folded into one score (contract Part A, Part B rule 9).

Standard library only: this module runs inside the metric's sandbox, where nothing else is
guaranteed, and the studio imports the same file (through ``skynet_core.reward``) so that the
parent and the sandbox can never disagree about a reward.

The rules of ``REWARD_SPEC`` (checked by :func:`validate_reward_spec`):

- It is a dict with ``weights``: a dict naming ``accuracy``, ``speed`` and ``cost``, each a real
  number of 0 or more (not a bool, not NaN, not infinite), not all 0. They are scaled to sum
  to 1. Any other key in ``weights`` is refused, because a weight that counts for nothing
  would mislead the reader.
- ``speed.reference`` (milliseconds) and ``cost.reference`` (US dollars) must be positive
  finite numbers. Each is required when its part's weight is above 0, and checked whenever it
  is given. A part with weight 0 and no reference is *off*: it is not scored, and it appears
  neither in ``scores`` nor in the feedback.
- ``accuracy`` is optional; when given it is a dict whose optional ``reference`` is a positive
  finite number. With it, the accuracy passed to ``reward`` is an error (lower is better).
- Other keys, at the top level or inside a part, are allowed and ignored, except a key that
  looks like a misspelling of a known key that is absent (``weight``, ``ref``, ``cots``): that
  is refused with a hint, since the misspelt setting would otherwise be silently dropped.

The reward itself is :func:`reward_pair`.
"""

from __future__ import annotations

import difflib
import math
import numbers
from dataclasses import dataclass
from typing import Any

from ._i18n import N_, _
from ._numbers import cost_decimals

PARTS = ("accuracy", "speed", "cost")
"""The three parts of the reward, in the order every array and table uses."""

# For each part: an example reference and what a reference means, for error messages.
_REFERENCES = {
    "accuracy": ("1.0", N_("the error that scores 0.5")),
    "speed": ("2000", N_("the latency in milliseconds that scores 0.5")),
    "cost": ("0.01", N_("the cost in US dollars that scores 0.5")),
}


class RewardSpecError(ValueError):
    """``REWARD_SPEC`` breaks a rule; the message names the key, the problem and the fix."""


@dataclass(frozen=True)
class NormalizedSpec:
    """A checked ``REWARD_SPEC``.

    ``weights`` holds all three parts, each 0 or more, scaled to sum to 1. A reference is
    ``None`` only for a part that is off (weight 0 and no reference given) or, for accuracy,
    when accuracy is a score in [0, 1] rather than an error.
    """

    weights: dict[str, float]
    speed_ref: float | None
    cost_ref: float | None
    accuracy_ref: float | None = None

    def reference(self, part: str) -> float | None:
        """The reference of ``part`` (one of :data:`PARTS`)."""
        return {"accuracy": self.accuracy_ref, "speed": self.speed_ref, "cost": self.cost_ref}[part]


def validate_reward_spec(spec: Any) -> NormalizedSpec:
    """Check ``spec`` against the rules in this module's docstring and normalise it.

    A :class:`NormalizedSpec` is returned unchanged, so every function that takes a spec
    accepts either form. Raises :class:`RewardSpecError` on the first broken rule.
    """
    if isinstance(spec, NormalizedSpec):
        return spec
    if not isinstance(spec, dict):
        raise RewardSpecError(
            _(
                "REWARD_SPEC must be a dict like {{'weights': {{'accuracy': 0.7, 'speed': 0.2, 'cost': 0.1}}, "
                "'speed': {{'reference': 2000}}, 'cost': {{'reference': 0.01}}}}; got {type}."
            ).format(type=_type_name(spec))
        )
    _refuse_lookalikes(spec, ("weights", *PARTS), "REWARD_SPEC")
    if "weights" not in spec:
        raise RewardSpecError(
            _(
                "REWARD_SPEC has no 'weights'; add 'weights': {{'accuracy': 0.7, 'speed': 0.2, 'cost': 0.1}} "
                "(0 turns a part off)."
            ).format()
        )
    weights = _weights(spec["weights"])
    refs = {part: _reference(spec, part, weights[part]) for part in PARTS}
    return NormalizedSpec(
        weights=weights, speed_ref=refs["speed"], cost_ref=refs["cost"], accuracy_ref=refs["accuracy"]
    )


def part_score(x: float, ref: float) -> float:
    """The score of one part: ``ref / (ref + x)``.

    1 at ``x = 0``, 0.5 at ``x = ref``, falling smoothly toward 0 and never negative. ``x`` is a
    latency in ms, a cost in USD or an error. A negative ``x`` counts as 0 (time and cost
    cannot be negative, so the score never exceeds 1); ``x = inf`` scores 0. Raises
    ``ValueError`` for a NaN ``x`` or a reference that is not a positive finite number.
    """
    ref = float(ref)
    x = float(x)
    if not (ref > 0 and math.isfinite(ref)):
        raise ValueError(f"A reference must be a positive finite number; got {ref!r}.")
    if math.isnan(x):
        raise ValueError("Cannot score a NaN measurement; treat it as not measured instead.")
    x = max(x, 0.0)
    return ref / (ref + x)


def reward_pair(
    spec: Any,
    accuracy: float,
    feedback: str,
    latency_ms: float | None,
    cost_usd: float | None,
) -> tuple[float, dict[str, Any]]:
    """The reward of one case as a contract pair (contract Part B rule 9).

    ``reward = w_accuracy * s_accuracy + w_speed * s_speed + w_cost * s_cost`` with the weights
    of ``spec`` scaled to sum to 1, where:

    - without ``accuracy.reference``, ``accuracy`` must be a real number in [0, 1] and is
      ``s_accuracy`` itself; with it, ``accuracy`` is an error of 0 or more (``inf`` allowed)
      and ``s_accuracy = part_score(accuracy, reference)``. Anything else (a bool, a string,
      NaN, a value out of range) raises ``TypeError`` (wrong type) or ``ValueError`` (wrong value)
      naming the value.
    - ``s_speed = part_score(latency_ms, speed.reference)`` and likewise for cost. A measurement
      that is ``None`` or NaN was not measured: that part scores 0.

    Returns ``(reward, {"feedback": ..., "scores": {...}})``. ``scores`` holds every part that
    is not off, whatever its weight. The feedback is ``feedback`` (left out when empty) followed
    by one line for each of those parts, in the order error, speed, cost::

        Correct.
        Speed: 850 ms against a 2000 ms reference, 0.70.
        Cost: $0.0020 against a $0.01 reference, 0.83.

    An error line (``Error: 0.25 against a 1 reference, 0.80.``) appears only with
    ``accuracy.reference``. A part that was not measured gets
    ``Speed was not measured for this case, so it scored 0.`` instead. The line of a part with
    weight 0 ends ``0.83 (weight 0, so it does not count).``, so the engines reading the feedback
    are not led to improve what does not count.
    """
    norm = validate_reward_spec(spec)
    if not isinstance(feedback, str):
        raise TypeError(
            _("reward() got feedback={value} ({type}); pass a string.").format(
                value=repr(feedback), type=_type_name(feedback)
            )
        )
    weights = norm.weights
    lines: list[str] = []
    s_accuracy = _accuracy_score(accuracy, norm.accuracy_ref)
    scores: dict[str, float] = {"accuracy": s_accuracy}
    if norm.accuracy_ref is not None:
        reference = _plain(norm.accuracy_ref)
        lines.append(
            _line("error", reference_article(reference), weights["accuracy"]).format(
                measured=_brief(float(accuracy)), reference=reference, score=f"{s_accuracy:.2f}"
            )
        )
    measured = {"speed": latency_ms, "cost": cost_usd}
    for part in ("speed", "cost"):
        ref = norm.reference(part)
        if ref is None:
            continue
        x = _measurement(measured[part], part)
        score = 0.0 if x is None else part_score(x, ref)
        scores[part] = score
        lines.append(_part_line(part, x, ref, score, weights[part]))
    reward = (
        weights["accuracy"] * s_accuracy
        + weights["speed"] * scores.get("speed", 0.0)
        + weights["cost"] * scores.get("cost", 0.0)
    )
    text = "\n".join([feedback, *lines] if feedback else lines)
    return reward, {"feedback": text, "scores": scores}


def _weights(raw: Any) -> dict[str, float]:
    if not isinstance(raw, dict):
        raise RewardSpecError(
            _(
                "REWARD_SPEC['weights'] must be a dict like {{'accuracy': 0.7, 'speed': 0.2, 'cost': 0.1}}; got {type}."
            ).format(type=_type_name(raw))
        )
    for part in PARTS:
        if part not in raw:
            typo = next((key for key in raw if isinstance(key, str) and _looks_like(key, part)), None)
            message = (
                _(
                    "REWARD_SPEC['weights'] is missing {part} (it has {typo}; a typo?); give all three of accuracy, "
                    "speed and cost (0 turns a part off)."
                )
                if typo is not None
                else _(
                    "REWARD_SPEC['weights'] is missing {part}; give all three of accuracy, speed and cost "
                    "(0 turns a part off)."
                )
            )
            raise RewardSpecError(message.format(part=repr(part), typo=repr(typo)))
    for key in raw:
        if key not in PARTS:
            raise RewardSpecError(
                _(
                    "REWARD_SPEC['weights'] has {key}, which is not a part of the reward; weights name only "
                    "accuracy, speed and cost, so remove it."
                ).format(key=repr(key))
            )
    given = {
        part: _real(raw[part], f"REWARD_SPEC['weights'][{part!r}]", _("a weight of 0 or more, such as 0.2"))
        for part in PARTS
    }
    for part, value in given.items():
        if value < 0:
            raise RewardSpecError(
                _("REWARD_SPEC['weights'][{part}] is {value}; weights must be 0 or more (0 turns a part off).").format(
                    part=repr(part), value=_plain(value)
                )
            )
    if all(value == 0 for value in given.values()):
        raise RewardSpecError(
            _(
                "All three weights in REWARD_SPEC['weights'] are 0; give at least one of accuracy, speed and cost "
                "a weight above 0."
            )
        )
    try:
        total = math.fsum(given.values())
    except OverflowError:
        total = math.inf
    if math.isinf(total):
        # Huge weights overflow the sum; their ratios are what matter, so scale them down first.
        largest = max(given.values())
        given = {part: value / largest for part, value in given.items()}
        total = math.fsum(given.values())
    return {part: value / total for part, value in given.items()}


def _reference(spec: dict[Any, Any], part: str, weight: float) -> float | None:
    example, meaning = _REFERENCES[part][0], _(_REFERENCES[part][1])
    if part not in spec:
        if part == "accuracy" or weight == 0:
            return None
        raise RewardSpecError(
            _(
                "REWARD_SPEC has no {key}; {part} has a weight above 0, so add {key}: {{'reference': {example}}} "
                "({meaning}) or set its weight to 0."
            ).format(key=repr(part), part=part, example=example, meaning=meaning)
        )
    section = spec[part]
    where = f"REWARD_SPEC[{part!r}]"
    if not isinstance(section, dict):
        raise RewardSpecError(
            _("{where} must be a dict like {{'reference': {example}}} ({meaning}); got {type} {value}.").format(
                where=where, example=example, meaning=meaning, type=_type_name(section), value=repr(section)
            )
        )
    _refuse_lookalikes(section, ("reference",), where)
    if "reference" not in section:
        if part == "accuracy" or weight == 0:
            return None
        raise RewardSpecError(
            _(
                "{where}['reference'] is missing; {part} has a weight above 0, so give a reference such as {example} "
                "({meaning}), or set its weight to 0."
            ).format(where=where, part=part, example=example, meaning=meaning)
        )
    want = _("a positive number such as {example} ({meaning})").format(example=example, meaning=meaning)
    ref = _real(section["reference"], f"{where}['reference']", want)
    if ref <= 0:
        raise RewardSpecError(
            _("{where}['reference'] is {value}; give {want}.").format(where=where, value=_plain(ref), want=want)
        )
    return ref


def _refuse_lookalikes(mapping: dict[Any, Any], known: tuple[str, ...], where: str) -> None:
    """Refuse a key that is probably a misspelling of a known key that is absent."""
    for key in mapping:
        if not isinstance(key, str) or key in known:
            continue
        for name in known:
            if name not in mapping and _looks_like(key, name):
                raise RewardSpecError(
                    _("{where} has {key} but no {name}; rename {key} to {name}.").format(
                        where=where, key=repr(key), name=repr(name)
                    )
                )


def _looks_like(key: str, name: str) -> bool:
    key = key.strip().lower()
    if key == name:
        return True
    if len(key) >= 3 and (key.startswith(name) or name.startswith(key)):
        return True
    return difflib.SequenceMatcher(None, key, name).ratio() >= 0.75


def _real(value: Any, where: str, want: str) -> float:
    """``value`` as a finite float, or a :class:`RewardSpecError` saying what ``where`` should hold."""
    if isinstance(value, bool):
        raise RewardSpecError(
            _("{where} is {value}, a bool; give {want}.").format(where=where, value=repr(value), want=want)
        )
    if isinstance(value, str):
        try:
            unquoted = float(value)
        except ValueError:
            unquoted = math.nan
        if not math.isfinite(unquoted):
            raise RewardSpecError(
                _("{where} is the string {value}; give {want}.").format(where=where, value=repr(value), want=want)
            )
        raise RewardSpecError(
            _("{where} is the string {value}; write it as a number without quotes: {number}.").format(
                where=where, value=repr(value), number=_plain(unquoted)
            )
        )
    if not isinstance(value, numbers.Real):
        raise RewardSpecError(
            _("{where} is {value} ({type}); give {want}.").format(
                where=where, value=repr(value), type=_type_name(value), want=want
            )
        )
    try:
        number = float(value)
    except (OverflowError, ValueError, TypeError):
        raise RewardSpecError(
            _("{where} is {value}, which is not a usable number; give {want}.").format(
                where=where, value=repr(value), want=want
            )
        ) from None
    if not math.isfinite(number):
        raise RewardSpecError(
            _("{where} is {value}; give a finite number, {want}.").format(where=where, value=repr(value), want=want)
        )
    return number


def _accuracy_score(accuracy: Any, ref: float | None) -> float:
    if ref is None:
        want = _("pass a score between 0 and 1")
    else:
        want = _("pass an error of 0 or more (REWARD_SPEC sets accuracy.reference, so accuracy is an error)")
    if isinstance(accuracy, bool):
        raise TypeError(
            _("reward() got accuracy={value}, a bool; pass 1.0 or 0.0 (for example 1.0 if ok else 0.0).").format(
                value=repr(accuracy)
            )
        )
    if not isinstance(accuracy, numbers.Real):
        raise TypeError(
            _("reward() got accuracy={value} ({type}); {want}.").format(
                value=repr(accuracy), type=_type_name(accuracy), want=want
            )
        )
    try:
        value = float(accuracy)
    except (OverflowError, ValueError, TypeError):
        raise ValueError(
            _("reward() got accuracy={value}, which is not a usable number; {want}.").format(
                value=repr(accuracy), want=want
            )
        ) from None
    if math.isnan(value):
        raise ValueError(_("reward() got accuracy=nan; {want}.").format(want=want))
    if ref is None:
        if not 0.0 <= value <= 1.0:
            raise ValueError(
                _(
                    "reward() got accuracy={value}, outside [0, 1]; without REWARD_SPEC['accuracy']['reference'] "
                    "accuracy is a score between 0 and 1 (set that reference to pass an error instead)."
                ).format(value=repr(accuracy))
            )
        return value
    if value < 0:
        raise ValueError(
            _(
                "reward() got accuracy={value}, a negative error; with REWARD_SPEC['accuracy']['reference'] set, "
                "accuracy is an error of 0 or more (use abs() of a signed difference)."
            ).format(value=repr(accuracy))
        )
    return part_score(value, ref)


def _measurement(value: Any, part: str) -> float | None:
    """A measured latency or cost, or ``None`` when it was not measured (``None`` or NaN)."""
    if value is None:
        return None
    name = "latency_ms" if part == "speed" else "cost_usd"
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"The measured {name} is {value!r} ({_type_name(value)}); it must be a number or None.")
    number = float(value)
    return None if math.isnan(number) else number


# The feedback lines, by (part, article of the reference: "a"/"an", whether the part's weight is 0). Whole
# sentences, so that a translation never joins fragments; the article only matters in English. The studio reads
# them back to show a stored run's lines in its reader's language (skynet_core.reward.lines).
FEEDBACK_LINES = {
    ("error", "a", False): N_("Error: {measured} against a {reference} reference, {score}."),
    ("error", "an", False): N_("Error: {measured} against an {reference} reference, {score}."),
    ("error", "a", True): N_(
        "Error: {measured} against a {reference} reference, {score} (weight 0, so it does not count)."
    ),
    ("error", "an", True): N_(
        "Error: {measured} against an {reference} reference, {score} (weight 0, so it does not count)."
    ),
    ("speed", "a", False): N_("Speed: {measured} ms against a {reference} ms reference, {score}."),
    ("speed", "an", False): N_("Speed: {measured} ms against an {reference} ms reference, {score}."),
    ("speed", "a", True): N_(
        "Speed: {measured} ms against a {reference} ms reference, {score} (weight 0, so it does not count)."
    ),
    ("speed", "an", True): N_(
        "Speed: {measured} ms against an {reference} ms reference, {score} (weight 0, so it does not count)."
    ),
    ("cost", "a", False): N_("Cost: {measured} against a ${reference} reference, {score}."),
    ("cost", "a", True): N_(
        "Cost: {measured} against a ${reference} reference, {score} (weight 0, so it does not count)."
    ),
    ("speed", "", False): N_("Speed was not measured for this case, so it scored 0."),
    ("speed", "", True): N_("Speed was not measured for this case, so it scored 0 (weight 0, so it does not count)."),
    ("cost", "", False): N_("Cost was not measured for this case, so it scored 0."),
    ("cost", "", True): N_("Cost was not measured for this case, so it scored 0 (weight 0, so it does not count)."),
}


def _line(part: str, article: str, weight: float) -> str:
    """The template of a feedback line, in the current language."""
    return _(FEEDBACK_LINES[(part, article, weight == 0)])


def _part_line(part: str, x: float | None, ref: float, score: float, weight: float) -> str:
    """The feedback line of a speed or cost part."""
    if x is None:
        return _line(part, "", weight)
    if part == "speed":
        reference = _plain(ref)
        return _line(part, reference_article(reference), weight).format(
            measured=_brief(x), reference=reference, score=f"{score:.2f}"
        )
    return _line(part, "a", weight).format(measured=_usd(x), reference=_plain(ref), score=f"{score:.2f}")


def _plain(value: float) -> str:
    """A number as a person writes it: no exponent, no trailing zeros (2000, 0.01, 0.5)."""
    text = f"{value:.12f}".rstrip("0").rstrip(".")
    return text if text not in ("0", "-0") or value == 0 else repr(value)


def _brief(value: float) -> str:
    """A measurement to three significant digits, whole numbers kept whole (850, 1235, 2.35, 0.0123)."""
    if value == 0 or not math.isfinite(value):
        return _plain(value) if value == 0 else repr(value)
    digits = max(0, 2 - math.floor(math.log10(abs(value))))
    return _plain(round(value, digits))


def _usd(value: float) -> str:
    return f"${value:.{cost_decimals(value)}f}"


def reference_article(number_text: str) -> str:
    """'an' before numbers read with a vowel sound (8, 11, 18, 80, 800, 11000), else 'a'."""
    digits = number_text.split(".")[0].lstrip("-")
    if number_text.startswith("8"):
        return "an"
    lead = digits[: len(digits) % 3 or 3]
    return "an" if lead in ("11", "18") else "a"


def _type_name(value: Any) -> str:
    return type(value).__name__
