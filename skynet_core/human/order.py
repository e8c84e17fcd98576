"""Which case to label next, and how far the labelling has come."""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np

from skynet_core.i18n import N_, _, ngettext

from .bootstrap import SEED
from .report import DEFAULT_THRESHOLD


class LabelOrder(StrEnum):
    """``listed``: the data's order; ``random``: shuffled with a seed (the same seed, the same order);
    ``least_sure``: the metric's score nearest the threshold first (cases it did not score last)."""

    LISTED = "listed"
    RANDOM = "random"
    LEAST_SURE = "least_sure"

    @property
    def label(self) -> str:
        return _(_ORDER_LABELS[self])


_ORDER_LABELS = {
    LabelOrder.LISTED: N_("as listed"),
    LabelOrder.RANDOM: N_("random"),
    LabelOrder.LEAST_SURE: N_("where the metric is least sure"),
}


def labelling_order(
    case_ids: Sequence[str],
    labelled: Collection[str],
    order: LabelOrder = LabelOrder.LISTED,
    *,
    seed: int = SEED,
    scores: Mapping[str, float] | None = None,
    threshold: float = DEFAULT_THRESHOLD,
) -> list[str]:
    """Every case id once: the unlabelled ones first, then the labelled ones, each group in ``order``.

    ``least_sure`` needs the metric's ``scores`` by case id: nearest ``threshold`` first, ties and the
    cases without a score in the data's order (the unscored after the scored). Repeated ids count once.
    """
    ids = list(dict.fromkeys(case_ids))
    if order is LabelOrder.RANDOM:
        ids = [ids[index] for index in np.random.default_rng(seed).permutation(len(ids))]
    elif order is LabelOrder.LEAST_SURE:
        known = scores or {}
        position = {case_id: index for index, case_id in enumerate(ids)}
        ids.sort(
            key=lambda case_id: (
                case_id not in known,
                abs(known[case_id] - threshold) if case_id in known else 0.0,
                position[case_id],
            )
        )
    done = set(labelled)
    return [case_id for case_id in ids if case_id not in done] + [case_id for case_id in ids if case_id in done]


def step(order: Sequence[str], current: str | None, delta: int) -> str | None:
    """The case ``delta`` places after ``current`` in ``order`` (before it when negative), kept within the list;
    the first case when ``current`` is not in it; ``None`` for an empty list."""
    if not order:
        return None
    ids = list(order)
    if current is None or current not in ids:
        return ids[0]
    return ids[max(0, min(len(ids) - 1, ids.index(current) + delta))]


def next_unlabelled(order: Sequence[str], labelled: Collection[str], current: str | None) -> str | None:
    """The first unlabelled case after ``current`` in ``order``, going round to the start; the first unlabelled
    one when ``current`` is not in the order; ``None`` when every case is labelled (``current`` itself counts
    only when it is the one left)."""
    ids = list(order)
    done = set(labelled)
    start = ids.index(current) + 1 if current in ids else 0
    return next((case_id for case_id in ids[start:] + ids[:start] if case_id not in done), None)


@dataclass(frozen=True)
class Progress:
    """How many of the cases have a human score: ``labelled`` of ``total`` (0 <= labelled <= total)."""

    labelled: int
    total: int

    @property
    def fraction(self) -> float:
        return self.labelled / self.total if self.total else 0.0

    @property
    def text(self) -> str:
        """ "34 of 72 labelled", in the current language."""
        return ngettext("{labelled} of {total} labelled", "{labelled} of {total} labelled", self.total).format(
            labelled=self.labelled, total=self.total
        )


def progress(case_ids: Sequence[str], labelled: Collection[str]) -> Progress:
    """The progress over ``case_ids`` (each counted once) given the ``labelled`` ids."""
    ids = set(case_ids)
    return Progress(len(ids & set(labelled)), len(ids))
