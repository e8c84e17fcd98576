"""The alignment split: train, dev and test in 50 / 25 / 25, stratified by the human score, the same for the same
seed, fixed from the labels alone."""

from __future__ import annotations

import pytest

from skynet_core.align.labelled import labelled_cases
from skynet_core.align.split import AlignSplit, split_labelled
from skynet_core.cases import Case
from skynet_core.human import HumanScore


def labelled(values: list[float]):
    cases = [Case(id=f"c{i:02d}", input={}, output="") for i in range(len(values))]
    scores = [HumanScore("d", case.id, "", value, "ana") for case, value in zip(cases, values, strict=True)]
    return labelled_cases(cases, scores, "")


def test_the_parts_are_half_a_quarter_and_a_quarter_of_each_side_of_the_threshold() -> None:
    found = labelled([1.0] * 24 + [0.0] * 16)
    split = split_labelled(found, seed=3)
    assert (len(split.train), len(split.dev), len(split.test)) == (20, 10, 10)
    humans = found.humans()
    for part, share in ((split.train, 12), (split.dev, 6), (split.test, 6)):
        assert sum(humans[i] for i in part) == share  # the passes are shared out like the cases


def test_the_same_seed_gives_the_same_split_and_another_seed_another() -> None:
    found = labelled([float(i % 2) for i in range(40)])
    assert split_labelled(found, 7) == split_labelled(found, 7)
    assert split_labelled(found, 7).test != split_labelled(found, 8).test


def test_a_numeric_scale_is_stratified_by_its_quartiles() -> None:
    found = labelled([i / 39 for i in range(40)])
    split = split_labelled(found, 0)
    humans = found.humans()
    for quartile in range(4):
        in_test = [i for i in split.test if quartile / 4 <= humans[i] < (quartile + 1) / 4 + 1e-9]
        assert len(in_test) in (2, 3)


def test_every_case_is_in_one_part_and_each_part_keeps_the_data_order() -> None:
    split = split_labelled(labelled([float(i % 3 == 0) for i in range(21)]), 1)
    assert sorted(split.ids) == [f"c{i:02d}" for i in range(21)]
    assert all(list(part) == sorted(part) for part in (split.train, split.dev, split.test))


def test_a_split_refuses_an_empty_or_shared_part() -> None:
    with pytest.raises(ValueError):
        AlignSplit(("a",), (), ("b",), 0)
    with pytest.raises(ValueError):
        AlignSplit(("a",), ("a",), ("b",), 0)
