"""Feedback review: the rules, metric health, probes and the mark store."""

from __future__ import annotations

import json
import sqlite3
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest

from skynet_core.cases import Case
from skynet_core.feedback import (
    PROBE_KINDS,
    Flag,
    MarkValue,
    Severity,
    Thresholds,
    export_rows,
    health,
    judge_probes,
    parse_probe_id,
    probe_cases,
    review,
    rules,
)
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.store.marks import MarkStore

CHARGE = {"message": "I see a charge I don't recognise on my card"}
BILLING = {"label": "billing"}


def pair(
    case_id: str,
    score: float | None,
    feedback: str,
    *,
    output: Any = "other",
    expected: dict[str, Any] | None = BILLING,
    input: dict[str, Any] | None = None,
    scores: dict[str, float] | None = None,
    status: CaseStatus = CaseStatus.OK,
) -> tuple[Case, CaseResult]:
    case = Case(id=case_id, input=input if input is not None else CHARGE, output=output, expected=expected)
    result = CaseResult(
        id=case_id,
        status=status,
        score=score if status is CaseStatus.OK else None,
        scores=scores or {},
        feedback=feedback,
        error="" if status is CaseStatus.OK else "boom",
    )
    return case, result


def correct(case_id: str = "good") -> tuple[Case, CaseResult]:
    """A top-scored case with terse but fine feedback; anchors the run's score range."""
    return pair(case_id, 1.0, "Correct.", output="billing")


def broken(pairs: list[tuple[Case, CaseResult]], thresholds: Thresholds | None = None) -> dict[str, list[str]]:
    return review(pairs, thresholds).rules_broken


def flags_of(pairs: list[tuple[Case, CaseResult]], rule: str, thresholds: Thresholds | None = None) -> list[Flag]:
    return [flag for flag in review(pairs, thresholds).flags if flag.rule == rule]


# --- the contract's weak / useful table ----------------------------------------------------------


def test_contract_weak_feedback_is_flagged_as_generic() -> None:
    run = [
        pair("wrong", 0.0, "Wrong."),
        pair("format", 0.0, "Bad format.", output='{"label": "billing",}', scores={"format": 0.0}),
        correct(),
    ]
    found = broken(run)
    assert "generic" in found["wrong"]
    assert "generic" in found["format"]
    assert "no_specifics" in found["wrong"]


def test_contract_useful_feedback_breaks_no_rule_when_scored_low() -> None:
    run = [
        pair(
            "label",
            0.0,
            "Expected 'billing', got 'other'. The message mentions a charge.",
            scores={"accuracy": 0.0},
        ),
        pair(
            "json",
            0.0,
            "The output is not valid JSON. It has a trailing comma after the last field.",
            output='{"label": "billing",}',
            scores={"format": 0.0},
        ),
        correct(),
    ]
    assert broken(run) == {"label": [], "json": [], "good": []}


def test_suggestion_quotes_expected_and_output() -> None:
    (flag,) = flags_of([pair("wrong", 0.0, "Wrong."), correct()], "generic")
    assert "Expected 'billing', got 'other'." in flag.suggestion


def test_suggestion_for_broken_json_names_the_parse_error() -> None:
    (flag,) = flags_of([pair("fmt", 0.0, "Bad format.", output='{"label": "billing",}'), correct()], "generic")
    assert "not valid JSON" in flag.suggestion
    assert "column" in flag.suggestion


# --- short ---------------------------------------------------------------------------------------


def test_empty_feedback_is_flagged_even_on_a_top_score() -> None:
    found = broken([pair("empty", 1.0, "  ", output="billing"), pair("low", 0.0, "")])
    assert "short" in found["empty"]
    assert "short" in found["low"]


def test_empty_feedback_is_judged_only_by_the_short_rule() -> None:
    assert broken([pair("empty", 0.0, ""), correct()])["empty"] == ["short"]


def test_short_feedback_on_a_low_score_is_flagged() -> None:
    assert "short" in broken([pair("terse", 0.0, "Label off."), correct()])["terse"]


def test_short_acknowledgement_on_a_top_score_is_not_flagged() -> None:
    assert broken([correct()])["good"] == []


def test_raising_min_words_flags_longer_feedback() -> None:
    run = [pair("five", 0.2, "Expected billing, got other."), correct()]
    assert "short" not in broken(run)["five"]
    assert "short" in broken(run, Thresholds(min_words=5))["five"]


# --- generic -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text", ["WRONG!!", "incorrect", "Error", "Try again.", "The answer is wrong.", "Wrong. Try again"]
)
def test_generic_phrase_only_is_flagged_whatever_the_case_and_punctuation(text: str) -> None:
    assert "generic" in broken([pair("c", 0.0, text), correct()])["c"]


def test_generic_phrase_with_specifics_is_not_flagged() -> None:
    run = [pair("c", 0.0, "Wrong: expected 'billing', got 'other'."), correct()]
    assert "generic" not in broken(run)["c"]


def test_generic_extra_words_threshold_admits_a_few_more_words() -> None:
    run = [pair("c", 0.0, "Wrong, sorry."), correct()]
    assert "generic" not in broken(run)["c"]
    assert "generic" in broken(run, Thresholds(generic_extra_words=1))["c"]


# --- same text -----------------------------------------------------------------------------------


def test_same_feedback_on_different_scores_is_flagged_on_each_case() -> None:
    text = "The label does not match the message about a charge on the card."
    run = [pair("a", 0.0, text), pair("b", 0.5, text), correct()]
    found = broken(run)
    assert "same_text" in found["a"]
    assert "same_text" in found["b"]
    assert "same_text" not in found["good"]


def test_same_feedback_ignores_case_and_punctuation() -> None:
    run = [pair("a", 0.0, "Expected billing, got other!"), pair("b", 0.5, "expected billing got other")]
    assert "same_text" in broken(run)["a"]


def test_same_feedback_on_equal_scores_is_not_flagged() -> None:
    run = [pair(case_id, 1.0, "Correct.", output="billing") for case_id in ("a", "b", "c")]
    assert flags_of(run, "same_text") == []


def test_same_text_score_gap_tolerates_small_differences() -> None:
    text = "Expected billing, got other."
    run = [pair("a", 0.0, text), pair("b", 0.1, text), correct()]
    assert "same_text" in broken(run)["a"]
    assert "same_text" not in broken(run, Thresholds(same_text_score_gap=0.2))["a"]


# --- no specifics --------------------------------------------------------------------------------


def test_low_score_without_expected_or_output_words_is_flagged() -> None:
    run = [pair("vague", 0.0, "This is not what we wanted at all here."), correct()]
    assert "no_specifics" in broken(run)["vague"]


def test_low_score_naming_the_output_value_is_not_flagged() -> None:
    run = [pair("c", 0.0, "The output says other, which does not fit a card charge."), correct()]
    assert "no_specifics" not in broken(run)["c"]


def test_low_score_naming_the_expected_value_is_not_flagged() -> None:
    run = [pair("c", 0.0, "This should have been billing because of the charge."), correct()]
    assert "no_specifics" not in broken(run)["c"]


def test_json_string_output_is_parsed_for_its_values() -> None:
    run = [
        pair(
            "c",
            0.0,
            "The amount 12 should have been 15.",
            output=json.dumps({"amount": 12}),
            expected={"amount": 15},
        ),
        correct(),
    ]
    assert "no_specifics" not in broken(run)["c"]


def test_naming_what_is_wrong_with_the_outputs_form_is_specific() -> None:
    run = [
        pair("json", 0.0, "The output is not valid JSON at all.", output="{'label': 'billing'"),
        pair("empty", 0.0, "The output is empty; it should name a label.", output=""),
        correct(),
    ]
    found = broken(run)
    assert "no_specifics" not in found["json"]
    assert "no_specifics" not in found["empty"]


def test_mentioning_only_an_output_key_is_not_specific() -> None:
    run = [pair("c", 0.0, "Look at the label more carefully please.", output=json.dumps({"label": "other"})), correct()]
    assert "no_specifics" in broken(run)["c"]


def test_high_score_without_specifics_is_not_flagged() -> None:
    run = [pair("c", 0.9, "Nice work on this one overall.", output="billing")]
    assert "no_specifics" not in broken(run)["c"]


def test_low_score_threshold_decides_what_is_low() -> None:
    run = [pair("mid", 0.6, "Decent attempt, could use some polish."), correct()]
    assert "no_specifics" not in broken(run)["mid"]
    assert "no_specifics" in broken(run, Thresholds(low_score=0.7))["mid"]


# --- contradiction -------------------------------------------------------------------------------


def test_top_score_with_wrong_is_a_contradiction() -> None:
    run = [pair("c", 1.0, "Wrong label for a billing message.", output="billing"), pair("z", 0.0, "Expected billing.")]
    (flag,) = flags_of(run, "contradiction")
    assert flag.case_id == "c"
    assert "'wrong'" in flag.detail


def test_top_score_with_negated_fault_is_not_a_contradiction() -> None:
    run = [pair("c", 1.0, "Correct billing label, nothing missing.", output="billing")]
    assert flags_of(run, "contradiction") == []


def test_zero_score_with_perfect_is_a_contradiction() -> None:
    run = [pair("c", 0.0, "Perfect, exactly the label billing."), correct()]
    (flag,) = flags_of(run, "contradiction")
    assert flag.case_id == "c"
    assert "'perfect'" in flag.detail


def test_zero_score_naming_the_correct_answer_is_not_a_contradiction() -> None:
    run = [
        pair("c", 0.0, "Expected 'billing', got 'other'; the correct label is billing."),
        pair("d", 0.0, "Not correct: expected billing, got other."),
        correct(),
    ]
    assert flags_of(run, "contradiction") == []


def test_mixed_verdicts_are_not_a_contradiction() -> None:
    run = [pair("c", 1.0, "Correct label, but the date is missing.", output="billing")]
    assert flags_of(run, "contradiction") == []


def test_contradiction_margin_widens_top_and_lowest() -> None:
    run = [pair("c", 0.1, "Perfect answer, label billing."), correct()]
    assert flags_of(run, "contradiction") == []
    assert [flag.case_id for flag in flags_of(run, "contradiction", Thresholds(contradiction_margin=0.2))] == ["c"]


# --- named scores --------------------------------------------------------------------------------


def test_low_named_score_the_feedback_never_mentions_is_flagged() -> None:
    run = [pair("c", 0.5, "Expected 'billing', got 'other'.", scores={"format": 0.0, "accuracy": 0.0}), correct()]
    (flag,) = flags_of(run, "named_score")
    assert "'format' = 0.0 is low" in flag.detail
    assert "accuracy" not in flag.detail


def test_low_named_score_mentioned_by_a_synonym_is_not_flagged() -> None:
    run = [
        pair("c", 0.5, "The JSON has a trailing comma after the label.", output='{"label": 1,}', scores={"format": 0})
    ]
    assert flags_of(run, "named_score") == []


def test_named_score_mentioned_by_part_of_its_name_is_not_flagged() -> None:
    run = [pair("c", 0.5, "Two fields are absent: date and amount.", scores={"required_fields": 0.0})]
    assert flags_of(run, "named_score") == []


def test_high_named_score_needs_no_mention() -> None:
    run = [pair("c", 0.5, "Expected 'billing', got 'other'.", scores={"format": 1.0})]
    assert flags_of(run, "named_score") == []


def test_low_named_score_threshold_decides_what_is_low() -> None:
    run = [pair("c", 0.5, "Expected 'billing', got 'other'.", scores={"tone": 0.4})]
    assert len(flags_of(run, "named_score")) == 1
    assert flags_of(run, "named_score", Thresholds(low_named_score=0.3)) == []


# --- too long ------------------------------------------------------------------------------------


def test_feedback_over_the_character_limit_is_flagged() -> None:
    long_text = "Expected 'billing', got 'other'. " * 60
    run = [pair("long", 0.0, long_text), pair("fine", 0.0, "Expected 'billing', got 'other'.")]
    found = broken(run)
    assert "too_long" in found["long"]
    assert "too_long" not in found["fine"]


def test_max_chars_threshold_changes_what_is_too_long() -> None:
    run = [pair("c", 0.0, "Expected 'billing', got 'other'. The message mentions a charge.")]
    assert "too_long" not in broken(run)["c"]
    assert "too_long" in broken(run, Thresholds(max_chars=40))["c"]


# --- echoes input --------------------------------------------------------------------------------


def test_feedback_that_repeats_the_input_is_flagged() -> None:
    run = [pair("echo", 0.0, "I see a charge I don't recognise on my card."), correct()]
    assert "echoes_input" in broken(run)["echo"]


def test_feedback_that_quotes_input_and_names_the_output_is_not_flagged() -> None:
    run = [pair("c", 0.0, "The message mentions a charge on the card, so expect billing, not other."), correct()]
    assert "echoes_input" not in broken(run)["c"]


def test_input_overlap_threshold_decides_how_much_echo_is_too_much() -> None:
    run = [pair("c", 0.0, "Unrecognised charge on the card, hmm."), correct()]
    assert "echoes_input" not in broken(run)["c"]
    assert "echoes_input" in broken(run, Thresholds(input_overlap=0.5))["c"]


# --- the review as a whole -----------------------------------------------------------------------


def test_failed_cases_are_skipped_by_the_rules() -> None:
    run = [pair("err", None, "", status=CaseStatus.ERROR), pair("slow", None, "", status=CaseStatus.TIMEOUT), correct()]
    result = review(run)
    assert result.skipped == ("err", "slow")
    assert result.case_ids == ("good",)
    assert "err" not in result.rules_broken


def test_counts_list_every_rule_with_cases_flagged() -> None:
    result = review([pair("a", 0.0, "Wrong."), pair("b", 0.0, "Wrong!"), correct()])
    assert list(result.counts) == [rule.name for rule in rules()]
    assert result.counts["generic"] == 2
    assert result.counts["too_long"] == 0
    assert result.flagged_ids == ["a", "b"]
    assert [flag.rule for flag in result.by_case["a"]] == result.rules_broken["a"]


def test_flags_are_ordered_by_case_then_rule() -> None:
    result = review([pair("b", 0.0, "Wrong."), pair("a", 0.0, ""), correct()])
    order = [rule.name for rule in rules()]
    keys = [(flag.case_id, order.index(flag.rule)) for flag in result.flags]
    assert keys == sorted(keys, key=lambda key: (["b", "a"].index(key[0]), key[1]))


def test_a_repeated_case_id_is_refused() -> None:
    with pytest.raises(ValueError, match="one candidate"):
        review([correct("x"), correct("x")])


def test_rules_carry_their_thresholds() -> None:
    by_name = {rule.name: rule for rule in rules(Thresholds(min_words=7, max_chars=300))}
    assert by_name["short"].threshold == 7
    assert by_name["too_long"].threshold == 300
    assert by_name["too_long"].threshold_text.startswith("300 characters")
    assert all(rule.title and rule.explanation and "\n" not in rule.explanation for rule in by_name.values())


def test_a_rule_checks_a_run_on_its_own() -> None:
    (short,) = [rule for rule in rules() if rule.name == "short"]
    assert [flag.case_id for flag in short.check([pair("a", 0.0, "No."), correct()])] == ["a"]


@pytest.mark.parametrize("bad", [{"low_score": 1.5}, {"min_words": -1}, {"input_overlap": float("nan")}])
def test_thresholds_out_of_range_are_refused(bad: dict[str, float]) -> None:
    with pytest.raises(ValueError, match="Threshold"):
        Thresholds(**bad)


# --- health --------------------------------------------------------------------------------------


def names(findings: list) -> list[str]:
    return [finding.name for finding in findings]


def spread_run(n: int = 10) -> list[tuple[Case, CaseResult]]:
    """Cases with varied scores and outputs that match their expected values."""
    return [
        pair(f"c{i}", i / n, f"Case {i}: expected billing, got billing partly.", output="billing") for i in range(n)
    ]


def test_errors_and_timeouts_are_reported_with_their_rate() -> None:
    run = [*spread_run(8), pair("e", None, "", status=CaseStatus.ERROR), pair("t", None, "", status=CaseStatus.TIMEOUT)]
    (finding,) = [finding for finding in health(run) if finding.name == "errors"]
    assert finding.severity == Severity.WARNING
    assert "2 of 10 cases (20%)" in finding.message
    assert "1 error" in finding.message and "1 timeout" in finding.message
    assert finding.case_ids == ("e", "t")


def test_a_run_without_failures_has_no_error_finding() -> None:
    assert "errors" not in names(health(spread_run()))


def test_saturation_is_reported_when_nearly_all_cases_share_a_score() -> None:
    run = [pair(f"c{i}", 1.0, "Correct.", output="billing") for i in range(9)] + [pair("z", 0.0, "Expected billing.")]
    (finding,) = [finding for finding in health(run) if finding.name == "saturation"]
    assert "9 of 10" in finding.message and "1.0" in finding.message
    assert finding.severity == "warning"


def test_spread_scores_are_not_saturated() -> None:
    assert "saturation" not in names(health(spread_run()))


def test_too_few_distinct_scores_is_reported() -> None:
    run = [pair(f"c{i}", float(i % 2), "Expected billing.", output="billing") for i in range(12)]
    (finding,) = [finding for finding in health(run) if finding.name == "few_distinct_scores"]
    assert finding.severity == Severity.INFO
    assert "2 distinct scores" in finding.message and "12 cases" in finding.message


def test_binary_scores_on_few_cases_are_not_reported() -> None:
    run = [pair(f"c{i}", float(i % 2), "Expected billing.", output="billing") for i in range(6)]
    assert "few_distinct_scores" not in names(health(run))


def test_named_scores_that_move_together_are_reported() -> None:
    run = [
        pair(f"c{i}", 0.5, "Expected billing.", output="billing", scores={"format": i / 5, "fields": i / 5})
        for i in range(5)
    ]
    (finding,) = [finding for finding in health(run) if finding.name == "named_scores_together"]
    assert "'fields' and 'format'" in finding.message and "identical" in finding.message


def test_strongly_correlated_named_scores_are_reported_with_the_correlation() -> None:
    run = [
        pair(f"c{i}", 0.5, "Expected billing.", output="billing", scores={"a": i / 10, "b": i / 10 * 0.8 + 0.1})
        for i in range(6)
    ]
    (finding,) = [finding for finding in health(run) if finding.name == "named_scores_together"]
    assert "correlation 1.00" in finding.message


def test_independent_or_constant_named_scores_are_not_reported() -> None:
    values = [(0.0, 1.0), (1.0, 1.0), (0.0, 0.0), (1.0, 0.0), (0.5, 0.5)]
    run = [
        pair(f"c{i}", 0.5, "Expected billing.", output="billing", scores={"a": a, "b": b, "c": 1.0, "d": 1.0})
        for i, (a, b) in enumerate(values)
    ]
    assert "named_scores_together" not in names(health(run))


def test_top_score_on_a_wrong_output_is_a_possible_reward_hack() -> None:
    run = [pair("hack", 1.0, "Looks fine.", output="other"), pair("ok", 1.0, "Correct.", output="billing")]
    (finding,) = [finding for finding in health(run) if finding.name == "reward_hack"]
    assert finding.case_ids == ("hack",)
    assert "label differs in 1 case (e.g. hack: expected 'billing', the output has 'other')" in finding.message


def test_top_score_on_a_json_output_with_the_expected_field_is_not_a_hack() -> None:
    run = [
        pair("json", 1.0, "Correct.", output=json.dumps({"label": "Billing", "why": "a charge"})),
        pair("prose", 1.0, "Correct.", output="This is about billing."),
        pair("low", 0.0, "Expected billing, got other.", output="other"),
    ]
    assert "reward_hack" not in names(health(run))


def test_json_output_with_the_wrong_field_value_is_a_hack() -> None:
    run = [pair("json", 1.0, "Correct.", output=json.dumps({"label": "other", "note": "billing"}))]
    assert names(health(run)) == ["reward_hack"]


# --- probes --------------------------------------------------------------------------------------


def dataset(n: int) -> list[Case]:
    return [
        Case(
            id=f"c{i}",
            input={"message": f"Message number {i}", "channel": "email"},
            output="other",
            expected=BILLING if i % 3 else None,
            split="train",
        )
        for i in range(n)
    ]


def test_probes_are_deterministic_and_independent_of_dataset_order() -> None:
    cases = dataset(30)
    first = probe_cases(cases, max_cases=5)
    assert first == probe_cases(cases, max_cases=5)
    assert {case.id for case in first} == {case.id for case in probe_cases(list(reversed(cases)), max_cases=5)}


def test_probes_replace_the_output_with_trivial_ones() -> None:
    (case,) = dataset(2)[1:]
    probes = {probe.id: probe for probe in probe_cases([case])}
    assert list(probes) == [f"probe:{kind}:c1" for kind in PROBE_KINDS]
    assert probes["probe:empty:c1"].output == ""
    assert json.loads(probes["probe:echo_json:c1"].output) == case.input
    assert probes["probe:echo_text:c1"].output == "Message number 1"
    assert probes["probe:dont_know:c1"].output == "I don't know"
    assert all(probe.input == case.input and probe.expected == case.expected for probe in probes.values())


def test_probes_take_at_most_max_cases_and_prefer_cases_with_expected() -> None:
    probes = probe_cases(dataset(30), max_cases=4)
    sources = {parse_probe_id(probe.id)[1] for probe in probes}  # type: ignore[index]
    assert len(sources) == 4
    assert all(probe.expected is not None for probe in probes)


def test_probes_fill_each_field_of_a_dict_output() -> None:
    case = Case(id="d", input={"n": 1}, output={"label": "x", "why": "y"}, expected=BILLING)
    probes = {probe.id: probe for probe in probe_cases([case])}
    assert "probe:echo_text:d" not in probes
    assert probes["probe:dont_know:d"].output == {"label": "I don't know", "why": "I don't know"}


def test_parse_probe_id_keeps_colons_in_the_case_id() -> None:
    assert parse_probe_id("probe:empty:a:b") == ("empty", "a:b")
    assert parse_probe_id("a:b") is None


def probe_result(kind: str, source: str, score: float | None, status: CaseStatus = CaseStatus.OK) -> CaseResult:
    return CaseResult(id=f"probe:{kind}:{source}", status=status, score=score if status is CaseStatus.OK else None)


def real(scores: list[float]) -> list[CaseResult]:
    return [CaseResult(id=f"c{i}", score=score) for i, score in enumerate(scores)]


def test_a_metric_that_rewards_empty_output_is_flagged() -> None:
    probes = [probe_result("empty", f"c{i}", 1.0) for i in range(3)]
    probes += [probe_result("dont_know", f"c{i}", 0.0) for i in range(3)]
    (finding,) = judge_probes(probes, real([0.9, 0.8, 1.0]))
    assert finding.name == "probe_rewarded" and finding.severity == Severity.WARNING
    assert finding.message.startswith("An empty output scored 1.0 on average over 3 cases, against 0.9")


def test_a_probe_scoring_as_well_as_real_outputs_is_flagged_even_below_half() -> None:
    probes = [probe_result("echo_json", f"c{i}", 0.3) for i in range(3)]
    assert names(judge_probes(probes, real([0.2, 0.3, 0.3]))) == ["probe_rewarded"]


def test_a_metric_that_scores_trivial_outputs_low_has_no_probe_findings() -> None:
    probes = [probe_result(kind, f"c{i}", 0.0) for kind in PROBE_KINDS for i in range(3)]
    assert judge_probes(probes, real([0.9, 0.7, 1.0])) == []


def test_probes_that_crash_the_metric_are_reported_as_info() -> None:
    probes = [probe_result("empty", "c0", None, CaseStatus.ERROR), probe_result("empty", "c1", 0.0)]
    (finding,) = judge_probes(probes, real([0.9, 0.9]))
    assert finding.name == "probe_errors" and finding.severity == Severity.INFO
    assert "1 of 2 probes" in finding.message


# --- marks ---------------------------------------------------------------------------------------


def test_marks_round_trip(tmp_path: Path) -> None:
    store = MarkStore(tmp_path / "marks.sqlite")
    store.set_mark("tickets", "abc", "c1", "useful", note="names both labels")
    store.set_mark("tickets", "abc", "c2", MarkValue.WEAK)
    marks = store.marks_for("tickets", "abc")
    assert marks["c1"].value is MarkValue.USEFUL and marks["c1"].note == "names both labels"
    assert marks["c2"].value is MarkValue.WEAK and marks["c2"].marked_at.endswith("+00:00")


def test_marking_again_replaces_the_mark(tmp_path: Path) -> None:
    store = MarkStore(tmp_path / "marks.sqlite")
    store.set_mark("tickets", "abc", "c1", "useful")
    store.set_mark("tickets", "abc", "c1", "weak", note="too vague")
    assert store.marks_for("tickets", "abc")["c1"].value is MarkValue.WEAK


def test_marks_persist_across_store_instances(tmp_path: Path) -> None:
    path = tmp_path / "nested" / "marks.sqlite"
    MarkStore(path).set_mark("tickets", "abc", "c1", "weak", note="generic")
    assert MarkStore(path).marks_for("tickets", "abc")["c1"].note == "generic"


def test_marks_are_kept_per_dataset_and_metric_version(tmp_path: Path) -> None:
    store = MarkStore(tmp_path / "marks.sqlite")
    store.set_mark("tickets", "v1", "c1", "weak")
    assert store.marks_for("tickets", "v2") == {}
    assert store.marks_for("other", "v1") == {}


def test_marks_from_concurrent_sessions_all_land(tmp_path: Path) -> None:
    path = tmp_path / "marks.sqlite"
    MarkStore(path)

    def mark(index: int) -> None:
        MarkStore(path).set_mark("tickets", "abc", f"c{index}", "useful" if index % 2 else "weak")

    with ThreadPoolExecutor(max_workers=8) as pool:
        list(pool.map(mark, range(40)))
    assert len(MarkStore(path).marks_for("tickets", "abc")) == 40


def test_clearing_a_mark_removes_it(tmp_path: Path) -> None:
    store = MarkStore(tmp_path / "marks.sqlite")
    store.set_mark("tickets", "abc", "c1", "weak")
    store.clear_mark("tickets", "abc", "c1")
    assert store.marks_for("tickets", "abc") == {}


def test_an_unknown_mark_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="'useful' or 'weak'"):
        MarkStore(tmp_path / "marks.sqlite").set_mark("tickets", "abc", "c1", "meh")


def test_mark_store_uses_wal_mode(tmp_path: Path) -> None:
    path = tmp_path / "marks.sqlite"
    MarkStore(path)
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_export_rows_join_results_rules_and_marks(tmp_path: Path) -> None:
    run = [pair("a", 0.0, "Wrong."), correct("b"), pair("e", None, "", status=CaseStatus.ERROR)]
    store = MarkStore(tmp_path / "marks.sqlite")
    store.set_mark("tickets", "abc", "a", "weak", note="says nothing")
    rows = export_rows(run, review(run), store.marks_for("tickets", "abc"))
    assert [row["id"] for row in rows] == ["a", "b", "e"]
    assert rows[0]["rule_ids"] == "short, generic, no_specifics"
    assert rows[0]["rules_broken"] == "Empty or very short; Generic phrase only; Low score without specifics"
    assert (rows[0]["mark"], rows[0]["mark_note"]) == ("weak", "says nothing")
    assert rows[1] == {
        "id": "b",
        "split": "train",
        "status": "ok",
        "input": CHARGE,
        "output": "billing",
        "expected": BILLING,
        "score": 1.0,
        "scores": {},
        "feedback": "Correct.",
        "error": "",
        "rules_broken": "",
        "rule_ids": "",
        "mark": "",
        "mark_note": "",
    }
    assert rows[2]["status"] == "error" and rows[2]["score"] is None
    json.dumps(rows)
