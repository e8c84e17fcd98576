"""The cases an uplift experiment learns from and judges on, and its seeded random choices.

Every choice is drawn from ``random.Random`` seeded with a string naming what it is for (the split, a
seed's round's minibatch, its derangement), so it is the same in every arm, in every run of the same
config, and on every machine (string seeds do not depend on ``PYTHONHASHSEED``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ...cases import Case
from ...i18n import _, ngettext
from ..gepa_adapter import engine_examples

Example = dict[str, Any]
"""One case as the engines read it: ``{"id": str, "input": dict, "expected": dict | None}``."""


@dataclass(frozen=True)
class Split:
    """The training cases (minibatches come from them) and the validation cases (the score that is reported).

    ``from_dataset`` is True when the dataset's own ``train`` and ``val`` splits were used, False for a
    seeded half-and-half split (validation gets the smaller half). No case is in both; the order is the
    dataset's (or, for half-and-half, the seeded shuffle's).
    """

    train: tuple[Example, ...]
    val: tuple[Example, ...]
    from_dataset: bool


def split_cases(cases: Sequence[Case], seed: int = 0) -> Split:
    """Train on the dataset's ``train`` split and validate on its ``val`` split when it has both; otherwise
    split every case (one per id) half and half, seeded. Outputs in the data are not used: the task makes them."""
    examples = engine_examples(cases)
    split_of = {case.id: case.split for case in cases}
    train = tuple(example for example in examples if split_of[example["id"]] == "train")
    val = tuple(example for example in examples if split_of[example["id"]] == "val")
    if train and val:
        return Split(train, val, True)
    shuffled = list(examples)
    draw("split", seed).shuffle(shuffled)
    half = len(shuffled) // 2
    return Split(tuple(shuffled[half:]), tuple(shuffled[:half]), False)


def check_split(split: Split, minibatch: int) -> None:
    """Raise ``ValueError`` (for people) when the split cannot hold the experiment."""
    if len(split.train) < minibatch:
        raise ValueError(
            ngettext(
                "There is {count} training case, fewer than the minibatch of {size}: add cases or lower the minibatch.",
                "There are {count} training cases, fewer than the minibatch of {size}: add cases or lower the "
                "minibatch.",
                len(split.train),
            ).format(count=len(split.train), size=minibatch)
        )
    if not split.val:
        raise ValueError(_("There are no validation cases to measure the instructions on: add cases."))


def draw(*what: object) -> random.Random:
    """The random source for one named choice, e.g. ``draw("minibatch", config.seed, seed, round_)``."""
    return random.Random("uplift/" + "/".join(str(part) for part in what))


def minibatch(rng: random.Random, size: int, population: int) -> tuple[int, ...]:
    """``size`` distinct indices of ``range(population)``, in the order drawn."""
    return tuple(rng.sample(range(population), size))


def derangement(rng: random.Random, size: int) -> tuple[int, ...]:
    """A permutation of ``range(size)`` that moves every position (``size >= 2``): position ``i`` takes what
    position ``result[i]`` had. Uniform over derangements (rejection sampling, about e tries)."""
    if size < 2:
        raise ValueError(f"a derangement needs at least 2 positions, not {size}")
    order = list(range(size))
    while True:
        rng.shuffle(order)
        if all(index != value for index, value in enumerate(order)):
            return tuple(order)


def expected_text(example: Example) -> str:
    """What an answer to ``example`` looks like: its expected value as text (the task's output is text), ``""``
    without one."""
    expected = example.get("expected")
    if not expected:
        return ""
    values = list(expected.values())
    return str(values[0]) if len(values) == 1 else json.dumps(expected, ensure_ascii=False, default=str)
