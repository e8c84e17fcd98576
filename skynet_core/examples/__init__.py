"""The bundled example: a support-ticket dataset and four metrics written for it.

``EXAMPLE_METRICS`` maps the title a page shows to the metric file. Each metric
follows one example of the contract's Part A, adapted to the tickets (the output
is the JSON *text* a model returned), and handles ``expected is None``. The judge
and reward metrics import ``skynet``, so they run only where the project provides
that module (the isolated runner), not by a plain import.

Each example reads some input and expected fields (the judge ``input['subject']``,
``input['message']`` and ``expected['label']``); :func:`example_fields` says which, read from
its code, and :func:`fit_fields` checks them against the data in use and proposes a mapping
to the data's own fields, which :func:`apply_field_mapping` writes into the example's keys.
"""

from __future__ import annotations

from pathlib import Path

from skynet_core.i18n import N_

from .fields import FieldFit, FieldNeeds, apply_field_mapping, fields_read, file_fields, fit_fields

__all__ = [
    "EXAMPLE_METRICS",
    "METRICS_DIR",
    "FieldFit",
    "FieldNeeds",
    "apply_field_mapping",
    "example_fields",
    "fields_read",
    "fit_fields",
]

METRICS_DIR = Path(__file__).parent / "metrics"

# The titles are keys (saved with the settings): marked for translation, shown as ``_(title)``.
EXAMPLE_METRICS: dict[str, Path] = {
    N_("Exact match"): METRICS_DIR / "exact_match.py",
    N_("Several checks (JSON)"): METRICS_DIR / "json_checks.py",
    N_("Model as judge"): METRICS_DIR / "judge.py",
    N_("Accuracy, speed and cost"): METRICS_DIR / "reward.py",
}


def example_fields(title: str) -> FieldNeeds:
    """The fields a bundled example reads (``EXAMPLE_METRICS[title]``), read from its code once."""
    return file_fields(str(EXAMPLE_METRICS[title]))
