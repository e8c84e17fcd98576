"""The rules' thresholds as the page's fields: their labels and limits, and the values read back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any

from skynet_core.i18n import _

from ...feedback.rules import Thresholds, rules


@dataclass(frozen=True)
class ThresholdField:
    """One number field of the thresholds editor."""

    setting: str
    label: str
    help: str
    whole: bool
    top: float | None


def threshold_fields() -> list[ThresholdField]:
    """The thresholds editor's fields, in the rules' order, labelled in the current language."""
    defaults = Thresholds()
    return [
        ThresholdField(
            rule.setting,
            _("{rule}: {unit}").format(rule=rule.title, unit=rule.unit),
            rule.explanation,
            isinstance(getattr(defaults, rule.setting), int),
            1.0 if rule.setting in Thresholds.FRACTIONS else None,
        )
        for rule in rules(defaults)
    ]


def threshold_values(thresholds: Thresholds) -> dict[str, float]:
    """Every threshold by setting name (``Thresholds()`` gives the defaults a reset restores)."""
    return {item.name: getattr(thresholds, item.name) for item in fields(thresholds)}


def thresholds_from(values: Mapping[str, Any]) -> tuple[Thresholds | None, str]:
    """Thresholds from the fields' values, or ``None`` and why they are refused (in the current language)."""
    names = {field.setting: field.label for field in threshold_fields()}
    for setting, value in values.items():
        label = names.get(setting, setting)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            return None, _("“{field}” must be a number.").format(field=label)
        if value < 0:
            return None, _("“{field}” cannot be negative; {value} was given.").format(field=label, value=value)
        if setting in Thresholds.FRACTIONS and value > 1:
            return None, _("“{field}” is a fraction between 0 and 1; {value} is outside it.").format(
                field=label, value=value
            )
    try:
        return Thresholds(**values), ""
    except (TypeError, ValueError) as exc:
        return None, str(exc)
