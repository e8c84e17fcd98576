"""The labelled cases split into train, dev and test before any model is asked, stratified by the human score.

GEPA proposes on train minibatches and keeps the proposals that do best on dev; test is scored once with the
starting prompts and once with the final ones. So the gain reported is measured on cases the optimizer never
saw and never chose by.

Stratified: the cases are grouped by the human score (pass and fail, or the quartiles of a numeric scale), each
group shuffled with the seed, and the groups dealt one after another into the parts in the repeating order
train, dev, train, test: every part gets about its share (50 / 25 / 25 %) of every group.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass

from .labelled import HumanCase, Labelled

PATTERN = ("train", "dev", "train", "test")
QUANTILES = 4


@dataclass(frozen=True)
class AlignSplit:
    """Case ids in three parts.

    Invariants: the parts are disjoint, none is empty, and together they hold every labelled case; each part keeps
    the data's order; the same labels and ``seed`` give the same split (whatever the judge does: no score is read).
    """

    train: tuple[str, ...]
    dev: tuple[str, ...]
    test: tuple[str, ...]
    seed: int

    def __post_init__(self) -> None:
        parts = (self.train, self.dev, self.test)
        if not all(parts):
            raise ValueError("every part of an alignment split holds at least one case")
        if len(set(self.train) | set(self.dev) | set(self.test)) != sum(map(len, parts)):
            raise ValueError("the parts of an alignment split do not share a case")

    @property
    def ids(self) -> tuple[str, ...]:
        return (*self.train, *self.dev, *self.test)

    def to_json(self) -> dict[str, list[str]]:
        return {"train": list(self.train), "dev": list(self.dev), "test": list(self.test)}


def split_labelled(labelled: Labelled, seed: int = 0) -> AlignSplit:
    """The seeded, stratified split of ``labelled`` (at least 4 cases: one for dev, one for test, two for train)."""
    if len(labelled) < len(PATTERN):
        raise ValueError(f"an alignment split needs at least {len(PATTERN)} labelled cases, not {len(labelled)}")
    rng = random.Random(seed)
    part_of: dict[str, str] = {}
    position = 0
    for group in _strata(labelled):
        ids = [item.id for item in group]
        rng.shuffle(ids)
        for case_id in ids:
            part_of[case_id] = PATTERN[position % len(PATTERN)]
            position += 1
    order = [item.id for item in labelled.cases]
    train, dev, test = (tuple(i for i in order if part_of[i] == part) for part in ("train", "dev", "test"))
    return AlignSplit(train, dev, test, seed)


def _strata(labelled: Labelled) -> list[list[HumanCase]]:
    """The cases grouped by their human score: fails then passes, or the numeric scale's quartiles, low first."""
    cases = list(labelled.cases)
    scale = labelled.scale
    if scale.pass_fail:
        return _nonempty(
            [item for item in cases if not scale.passes(item.human)],
            [item for item in cases if scale.passes(item.human)],
        )
    ranked = sorted(cases, key=lambda item: item.human)
    size = len(ranked) / QUANTILES
    groups: list[list[HumanCase]] = [[] for _ in range(QUANTILES)]
    for index, item in enumerate(ranked):
        groups[min(QUANTILES - 1, int(index / size))].append(item)
    # Equal scores stay in one group (the quartile of their first), so a group is a range of scores.
    merged: list[list[HumanCase]] = []
    for group in groups:
        if merged and group and merged[-1] and merged[-1][-1].human == group[0].human:
            tied = [item for item in group if item.human == group[0].human]
            merged[-1].extend(tied)
            group = group[len(tied) :]
        merged.append(group)
    return _nonempty(*merged)


def _nonempty(*groups: Iterable[HumanCase]) -> list[list[HumanCase]]:
    return [list(group) for group in groups if list(group)]
