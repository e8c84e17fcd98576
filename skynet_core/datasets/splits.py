"""Splits (contract Part B rule 11) and the contract check's sample of cases (rule 7)."""

from __future__ import annotations

import hashlib
import heapq
from collections.abc import Sequence
from typing import TYPE_CHECKING

from skynet_core.cases import Case

if TYPE_CHECKING:
    pass


def split_plan(n: int) -> dict[str, int]:
    """How many of ``n`` cases go to each split (contract Part B rule 11).

    - fewer than 30: all train;
    - 30 to 79: val = round(n / 5) (20%), the rest train;
    - 80 to 299: val = test = round(n / 5), the rest train (60/20/20);
    - 300 or more: val = min(round(n / 5), 200), test = min(round(n / 5), 500), the rest train.

    ``n / 5`` is never exactly halfway between two integers, so the rounding has no ties.
    """
    if n < 0:
        raise ValueError(f"A dataset cannot have {n} cases.")
    fifth = round(n / 5)
    if n < 30:
        val, test = 0, 0
    elif n < 80:
        val, test = fifth, 0
    elif n < 300:
        val, test = fifth, fifth
    else:
        val, test = min(fifth, 200), min(fifth, 500)
    return {"train": n - val - test, "val": val, "test": test}


def _stable_key(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _stable_digest(text: str) -> bytes:
    """Orders as :func:`_stable_key` does (hex digits keep the bytes' order), at a lower cost."""
    return hashlib.sha256(text.encode("utf-8")).digest()


def assign_splits(ids: list[str]) -> dict[str, str]:
    """Map each distinct id to ``train``, ``val`` or ``test`` following :func:`split_plan`.

    The ids are ordered by the SHA-256 of their text (not by file order, not at
    random), then the first ``train`` of them go to train, the next ``val`` to val,
    the rest to test. So the same ids always get the same splits, whatever their
    order in the file; duplicates in ``ids`` count once.
    """
    splits = dict.fromkeys(ids, "train")
    plan = split_plan(len(splits))
    # Only the last val + test ids in that order leave train: at most 700 of them, however many ids there are.
    held = heapq.nlargest(plan["val"] + plan["test"], splits, key=lambda case_id: (_stable_digest(case_id), case_id))
    for position, case_id in enumerate(reversed(held)):
        splits[case_id] = "val" if position < plan["val"] else "test"
    return splits


def sample_for_check(cases: Sequence[Case], k: int = 3) -> list[Case]:
    """The cases the contract check runs on (contract Part B rule 7).

    Takes the ``k`` cases first in SHA-256 order of their ``id``: the same cases for the
    same dataset every time, all of them when there are fewer than ``k``. The order
    depends on the ids alone, never on the candidate's name, so every candidate of a
    dataset is checked on the same cases, and the app (which names a file's candidate)
    and the command line (which may not) check the same ones. When the cases include
    both some with ``expected`` and some without, and ``k`` is at least 2, the sample
    has at least one of each: the last pick is swapped for the first case (in the same
    order) of the missing kind.
    """
    if k <= 0:
        return []
    # The k smallest keys, not a sort of every case: on 900,000 cases a sort took 4 s, this one pass 1 s.
    picked = heapq.nsmallest(k, cases, key=_sample_key)
    if len(picked) >= 2:
        for labelled in (True, False):
            if not any(_labelled(case) == labelled for case in picked):
                # The first case of the missing kind in the same order (a second pass only when one exists).
                missing = min((case for case in cases if _labelled(case) == labelled), key=_sample_key, default=None)
                if missing is not None:
                    picked[-1] = missing
    return picked


def _sample_key(case: Case) -> tuple[bytes, str, str]:
    return _stable_digest(case.id), case.id, case.candidate


def _labelled(case: Case) -> bool:
    return case.expected is not None
