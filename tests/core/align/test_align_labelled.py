"""The people's side of an alignment: the labelled cases of the candidate in use, pass/fail or numeric, the mean of
the raters with their notes, one rater alone, the refusal below 20 labels, and the raters' pairs."""

from __future__ import annotations

from skynet_core.align.labelled import labelled_cases, rater_pairs, refusal
from skynet_core.cases import Case
from skynet_core.human import HumanScore


def cases(count: int, candidate: str = "") -> list[Case]:
    return [Case(id=f"c{i}", input={"q": i}, output=f"a{i}", candidate=candidate) for i in range(count)]


def score(case_id: str, value: float, rater: str = "ana", note: str = "", candidate: str = "") -> HumanScore:
    return HumanScore("data.jsonl", case_id, candidate, value, rater, note)


def test_pass_fail_labels_keep_the_data_order_and_their_notes() -> None:
    scores = [score("c3", 0.0, note="Too vague."), score("c1", 1.0), score("c9", 1.0)]
    found = labelled_cases(cases(5), scores, "")
    assert [item.id for item in found.cases] == ["c1", "c3"]  # c9 is not a case of the data
    assert found.scale.pass_fail and found.scale.span == 1.0
    assert found.by_id()["c3"].note == "Too vague." and found.with_notes == 1


def test_several_raters_give_the_mean_and_every_note_unless_one_rater_is_chosen() -> None:
    scores = [score("c0", 1.0, "ana", "fine"), score("c0", 0.0, "bo", "wrong tone"), score("c1", 0.5, "bo")]
    both = labelled_cases(cases(3), scores, "")
    assert both.humans() == {"c0": 0.5, "c1": 0.5} and not both.scale.pass_fail
    assert both.by_id()["c0"].note == "fine\nwrong tone" and both.raters == ("bo", "ana")
    ana = labelled_cases(cases(3), scores, "", rater="ana")
    assert ana.humans() == {"c0": 1.0} and ana.scale.pass_fail and ana.by_id()["c0"].note == "fine"


def test_a_candidates_own_label_wins_over_one_given_without_a_candidate() -> None:
    scores = [score("c0", 0.0), score("c0", 1.0, candidate="large")]
    assert labelled_cases(cases(2, "large"), scores, "large").humans() == {"c0": 1.0}


def test_a_numeric_scale_spans_the_human_scores() -> None:
    scores = [score(f"c{i}", value) for i, value in enumerate((1.0, 3.0, 5.0))]
    scale = labelled_cases(cases(3), scores, "", threshold=3.0).scale
    assert (scale.low, scale.high, scale.pass_fail) == (1.0, 5.0, False)
    assert scale.agreement(2.0, 4.0) == 0.5 and scale.bias(4.0, 2.0) == 2.0
    assert scale.disagrees(2.9, 3.0) and not scale.disagrees(3.5, 4.0) and scale.disagrees(3.0, 5.0)


def test_fewer_than_20_labels_are_refused_with_how_many_more_to_label() -> None:
    few = labelled_cases(cases(30), [score(f"c{i}", float(i % 2)) for i in range(12)], "")
    assert "at least 20 labelled cases" in (refusal(few) or "") and "label 8 more" in (refusal(few) or "")
    enough = labelled_cases(cases(30), [score(f"c{i}", float(i % 2)) for i in range(20)], "")
    assert refusal(enough) is None


def test_raters_are_paired_on_the_cases_both_scored() -> None:
    scores = [score(f"c{i}", 1.0, "ana") for i in range(4)] + [score(f"c{i}", float(i % 2), "bo") for i in range(2, 6)]
    (pair,) = rater_pairs(scores, "", [f"c{i}" for i in range(6)])
    assert (pair.first, pair.second) == ("ana", "bo") and pair.scores == {"c2": (1.0, 0.0), "c3": (1.0, 1.0)}
