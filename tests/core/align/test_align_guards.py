"""What a proposal must pass: no run of 8 words copied from a training case, the placeholders kept, a size cap
that names itself, and no key left in it."""

from __future__ import annotations

from skynet_core.align.guards import CopyIndex, cleaned, rejection, size_cap
from skynet_core.align.labelled import HumanCase
from skynet_core.cases import Case

START = "Grade the reply about {topic}. Answer PASS or FAIL.\n"
TRAIN = [
    HumanCase(Case(id="t7", input={"question": "Where is my parcel, it was due last Monday?"},
                   output="Your parcel left our warehouse on Friday and will arrive by Tuesday."), 0.0),
]  # fmt: skip
INDEX = CopyIndex.of(TRAIN)


def test_a_proposal_copying_eight_words_of_a_training_output_is_rejected_with_the_case() -> None:
    text = "Grade the reply about {topic}. FAIL: your parcel left our warehouse on Friday and will arrive."
    why = rejection("RUBRIC", text, START, INDEX, START)
    assert why is not None and "copies 10 consecutive words of training case t7's output" in why
    assert "“your parcel left our warehouse on friday and will arrive”" in why


def test_seven_words_or_words_the_starting_prompt_had_are_allowed() -> None:
    assert rejection("RUBRIC", "Grade the reply about {topic}: our warehouse on Friday and will x.", START, INDEX,
                     START) is None  # fmt: skip
    start = "Grade {topic}. Your parcel left our warehouse on Friday and will arrive."
    assert rejection("RUBRIC", start + " Be strict.", start, INDEX, start) is None


def test_a_dropped_or_added_placeholder_is_rejected_by_name() -> None:
    dropped = rejection("RUBRIC", "Grade the reply. Answer PASS or FAIL.", START, INDEX, START)
    assert dropped is not None and "drops {topic}" in dropped
    added = rejection("RUBRIC", "Grade {topic} for {customer}.", START, INDEX, START)
    assert added is not None and "adds {customer}" in added and "must stay as they are" in added


def test_a_proposal_over_the_cap_says_which_cap() -> None:
    assert size_cap("x" * 100) == 4_000 and size_cap("x" * 2_000) == 6_000
    why = rejection("RUBRIC", START + "y" * 5_000, START, INDEX, START)
    assert why is not None and "over the cap of 4,000 (the larger of 4,000 and 3 times the starting text)" in why


def test_a_cleaned_proposal_is_redacted_and_keeps_the_starting_whitespace() -> None:
    text = cleaned("  New rubric, key sk-abcdefghijklmnop1234 and secret-value-123.  ", START, ["secret-value-123"])
    assert text == "New rubric, key [redacted] and [redacted].\n"
    assert cleaned("   ", START) == "" and rejection("RUBRIC", "", START, INDEX, START) is not None
