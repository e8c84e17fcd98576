"""The cases the live check runs: the pinned ones first, then a sample, and which is which."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..cases import Case
from ..i18n import N_
from .contract import SAMPLE_SIZE

SETTING_CHECK_PINS = "check.pins"
"""Store key: {dataset source: [case id, ...]}, the cases pinned for the live check, per dataset."""


MAX_PINS = 20


SAMPLED = N_("sampled")
PINNED = N_("pinned")


@dataclass(frozen=True)
class CheckCases:
    """The cases the live check runs, and why: ``pinned`` (the user's pins, in pin order) or the
    planner's deterministic sample. ``dropped`` are pinned ids the current cases no longer have."""

    cases: list[Case]
    pinned: bool
    dropped: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        """``"pinned"`` or ``"sampled"`` (untranslated; ``_()`` it where shown)."""
        return PINNED if self.pinned else SAMPLED

    @property
    def ids(self) -> list[str]:
        return [case.id for case in self.cases]


def check_cases(
    cases: Sequence[Case], pins: Iterable[str], sample: Callable[[], list[Case]] | None = None
) -> CheckCases:
    """The cases the live check uses: the pinned ones that the current ``cases`` still hold (in pin
    order), else the planner's sample (contract Part B rule 7; ``sample`` gives it when the caller keeps
    it, e.g. :meth:`DatasetInUse.check_sample`). Pins whose ids vanished are listed in ``dropped``; when
    every pin vanished, the sample is used again."""
    from ..datasets import sample_for_check

    wanted = list(dict.fromkeys(pins))
    if wanted:
        wanted_ids = set(wanted)
        by_id = {case.id: case for case in cases if case.id in wanted_ids}  # one pass, no index of every case
    else:
        by_id = {}
    kept = [by_id[case_id] for case_id in wanted if case_id in by_id]
    dropped = [case_id for case_id in wanted if case_id not in by_id]
    if kept:
        return CheckCases(kept, True, dropped)
    return CheckCases(sample() if sample else sample_for_check(cases, SAMPLE_SIZE), False, dropped)


def pins_for(stored: Any, dataset: str) -> list[str]:
    """The pinned ids of ``dataset`` from the stored setting (anything malformed reads as no pins)."""
    if not isinstance(stored, Mapping):
        return []
    ids = stored.get(dataset)
    return [str(item) for item in ids if isinstance(item, str | int)] if isinstance(ids, list) else []


def with_pins(stored: Any, dataset: str, ids: Iterable[str]) -> dict[str, list[str]]:
    """The stored setting with ``dataset``'s pins replaced by ``ids`` (at most :data:`MAX_PINS`, no repeats)."""
    value = {str(key): list(items) for key, items in stored.items()} if isinstance(stored, Mapping) else {}
    chosen = list(dict.fromkeys(str(item) for item in ids))[:MAX_PINS]
    if chosen:
        value[dataset] = chosen
    else:
        value.pop(dataset, None)
    return value
