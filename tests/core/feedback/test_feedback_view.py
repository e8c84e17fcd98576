"""What the Feedback review page shows (skynet_core.views.feedback), the rubric fix in health, the export."""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from skynet_core.cases import Case
from skynet_core.feedback import Grade, Mark, MarkValue, Thresholds, export_rows, health, review, rows_csv, rows_jsonl
from skynet_core.i18n import use_language
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.views import feedback as fv

CHARGE = {"message": "I see a charge I don't recognise on my card"}
RUBRIC = {"label": "billing", "fields": ["order number", "refund amount", "apology"]}


def pair(case_id: str, score: float | None, feedback: str, output: Any = "other", expected: Any = None, **kw: Any):
    status = kw.pop("status", CaseStatus.OK)
    case = Case(
        id=case_id, input=CHARGE, output=output, expected=expected if expected is not None else {"label": "billing"}
    )
    result = CaseResult(id=case_id, status=status, score=score, feedback=feedback, error=kw.pop("error", ""), **kw)
    return case, result


def run() -> list:
    return [
        pair("w1", 0.0, "Wrong."),
        pair("g1", 1.0, "Correct: the label is billing.", output="billing"),
        pair("w2", 0.0, "Wrong."),
        pair("g2", 1.0, "Correct: billing, as expected.", output="billing"),
        pair("e", None, "", status=CaseStatus.ERROR, error="KeyError: 'label'"),
    ]


def mark(case_id: str, value: MarkValue) -> Mark:
    return Mark(case_id, value, "", "2026-01-01T00:00:00+00:00")


# --- issue 15: a rubric list in expected is not text the output must contain ------------------------


def test_a_rubric_list_in_expected_is_not_a_reward_hack() -> None:
    pairs = [
        pair("a", 1.0, "Correct label; names the order number and the refund.", output="billing", expected=RUBRIC),
        pair("b", 1.0, "Correct.", output=json.dumps({"label": "billing", "reply": "Sorry"}), expected=RUBRIC),
    ]
    assert [finding.name for finding in health(pairs) if finding.name == "reward_hack"] == []


def test_a_wrong_label_beside_a_rubric_is_still_a_reward_hack_naming_only_the_label() -> None:
    pairs = [pair("a", 1.0, "Looks fine.", output="other", expected=RUBRIC), pair("b", 1.0, "ok", output="billing")]
    (finding,) = [finding for finding in health(pairs) if finding.name == "reward_hack"]
    assert finding.case_ids == ("a",)
    assert "label differs" in finding.message and "fields" not in finding.message


def test_a_structured_expected_field_is_compared_with_the_output_field_of_that_name() -> None:
    output = json.dumps({"label": "billing", "fields": ["order number"]})
    pairs = [pair("a", 1.0, "Good.", output=output, expected=RUBRIC)]
    (finding,) = [finding for finding in health(pairs) if finding.name == "reward_hack"]
    assert "fields differs" in finding.message


def test_the_rules_advice_does_not_quote_a_rubric_as_the_expected_value() -> None:
    pairs = [pair("a", 0.0, "Wrong.", output="billing", expected=RUBRIC), pair("g", 1.0, "Fine.", output="billing")]
    flags = review(pairs).by_case["a"]
    assert flags and all("order number" not in flag.suggestion for flag in flags)
    assert any("expected label 'billing'" in flag.suggestion for flag in flags)


# --- the filters ---------------------------------------------------------------------------------


def test_show_labels_carry_the_counts_and_the_key_changes_with_them() -> None:
    first = review(run())
    labels = fv.show_labels(first)
    assert list(labels)[0] == fv.SHOW_FLAGGED and list(labels)[-1] == fv.SHOW_ALL
    assert labels[fv.SHOW_FLAGGED] == "Every flagged case (2)"
    assert labels["generic"] == "Generic phrase only (2)"
    assert labels[fv.SHOW_ALL] == "Every judged case, flagged or not (4)"
    rescored = review([pair("w1", 0.0, "Wrong."), *run()[1:]][:2])
    assert fv.show_key(rescored) != fv.show_key(first)
    assert fv.show_key(review(run())) == fv.show_key(first)


def test_filter_by_rule_mark_score_range_and_text() -> None:
    pairs, result = run(), review(run())
    marks = {"w1": mark("w1", MarkValue.WEAK), "g1": mark("g1", MarkValue.USEFUL)}
    assert fv.filter_ids(result, pairs, marks, fv.CaseFilter()) == ["w1", "w2"]
    assert fv.filter_ids(result, pairs, marks, fv.CaseFilter(show="generic")) == ["w1", "w2"]
    assert fv.filter_ids(result, pairs, marks, fv.CaseFilter(show="contradiction")) == []
    every = fv.CaseFilter(show=fv.SHOW_ALL)
    assert fv.filter_ids(result, pairs, marks, every) == ["w1", "g1", "w2", "g2"]
    assert fv.filter_ids(result, pairs, marks, fv.CaseFilter(show=fv.SHOW_ALL, mark="weak")) == ["w1"]
    assert fv.filter_ids(result, pairs, marks, fv.CaseFilter(show=fv.SHOW_ALL, mark=fv.MARK_NONE)) == ["w2", "g2"]
    high = fv.CaseFilter(show=fv.SHOW_ALL, score_range=(0.5, 1.0))
    assert fv.filter_ids(result, pairs, marks, high) == ["g1", "g2"]
    words = fv.CaseFilter(show=fv.SHOW_ALL, text="  BILLING  expected ")
    assert fv.filter_ids(result, pairs, marks, words) == ["g2"]
    assert fv.filter_ids(result, pairs, marks, fv.CaseFilter(show=fv.SHOW_ALL, text="w2")) == ["w2"]


def test_score_span_is_none_when_every_judged_score_is_equal() -> None:
    assert fv.score_span(review(run()), run()) == (0.0, 1.0)
    same = run()[:1]
    assert fv.score_span(review(same), same) is None


def test_table_rows_use_rule_titles_marks_and_grades() -> None:
    pairs, result = run(), review(run())
    marks = {"w1": mark("w1", MarkValue.WEAK)}
    rows = fv.table_rows(["w1"], pairs, result, marks, {})
    assert list(rows[0]) == ["id", "split", "score", "mark", "feedback", "rules broken"]
    assert rows == [
        {
            "id": "w1",
            "split": "train",
            "score": 0.0,
            "mark": "weak",
            "feedback": "Wrong.",
            "rules broken": "Empty or very short; Generic phrase only; Low score without specifics",
        }
    ]
    graded = fv.table_rows(["w1"], pairs, result, marks, {"w1": Grade("w1", 2, "vague")})
    assert graded[0]["model grade"] == "2/5"


def test_case_labels_suggestions_and_id_lists() -> None:
    assert fv.case_label("c1", 0.0, 2) == "c1 · score 0.0 · 2 rules broken"
    assert fv.case_label("c1", 1.0, 1) == "c1 · score 1.0 · 1 rule broken"
    assert fv.case_label("c1", None, 0) == "c1 · score – · no rule broken"
    flags = review(run()).by_case["w1"]
    said = fv.suggestions(flags)
    assert len(said) == len(set(said)) and not any(a != b and a in b for a in said for b in said)
    assert fv.case_ids_text([f"c{i}" for i in range(10)], 8) == "c0, c1, c2, c3, c4, c5, c6, c7 and 2 more"
    assert fv.case_ids_text(["a", "b"]) == "a, b"


def test_thresholds_from_fields_refuses_negative_and_out_of_range_values_by_their_label() -> None:
    defaults = fv.threshold_values(Thresholds())
    assert fv.thresholds_from(defaults) == (Thresholds(), "")
    chosen, problem = fv.thresholds_from({**defaults, "min_words": -5})
    assert chosen is None and "“Empty or very short: words (fewer is flagged)” cannot be negative" in problem
    chosen, problem = fv.thresholds_from({**defaults, "low_score": 1.5})
    assert chosen is None and "between 0 and 1" in problem
    assert [field.setting for field in fv.threshold_fields()] == list(defaults)
    assert {field.setting for field in fv.threshold_fields() if field.top == 1.0} == Thresholds.FRACTIONS


def test_to_grade_and_the_grade_summary() -> None:
    pairs, result = run(), review(run())
    chosen, more = fv.to_grade(result, pairs, limit=1)
    assert [case.id for case, _res in chosen] == ["w1"] and more
    said, problem = fv.grade_summary(
        {"w1": Grade("w1", 2, "x"), "w2": Grade("w2", 3, "y"), "g": Grade("g", None, error="bad")}
    )
    assert said.startswith("Graded 2 feedback texts: mean 2.5 of 5.")
    assert problem == "1 without a grade; the last said: bad"
    assert fv.grade_summary({}) == ("", "")


# --- the export (issue 15 item 4) --------------------------------------------------------------------


def test_export_has_input_output_expected_titles_and_stable_ids() -> None:
    pairs, result = run(), review(run())
    rows = export_rows(pairs, result, {"w1": mark("w1", MarkValue.WEAK)})
    first = rows[0]
    assert (first["input"], first["output"], first["expected"]) == (CHARGE, "other", {"label": "billing"})
    assert first["rules_broken"] == "Empty or very short; Generic phrase only; Low score without specifics"
    assert first["rule_ids"] == "short, generic, no_specifics"
    assert (first["mark"], first["score"], first["feedback"]) == ("weak", 0.0, "Wrong.")
    assert rows[-1]["error"] == "KeyError: 'label'" and rows[-1]["score"] is None
    read = list(csv.DictReader(io.StringIO(rows_csv(rows).decode("utf-8"))))
    assert json.loads(read[0]["input"]) == CHARGE and json.loads(read[0]["expected"]) == {"label": "billing"}
    assert read[0]["output"] == "other" and read[0]["rule_ids"] == "short, generic, no_specifics"
    assert [json.loads(line) for line in rows_jsonl(rows).decode("utf-8").splitlines()] == rows


def test_export_titles_follow_the_language_and_the_ids_do_not() -> None:
    pairs = run()
    with use_language("zh_CN"):
        rows = export_rows(pairs, review(pairs), {})
    assert rows[0]["rule_ids"] == "short, generic, no_specifics"
    assert "Generic phrase only" not in rows[0]["rules_broken"] and rows[0]["rules_broken"]


def test_export_csv_neutralises_formulas_in_outputs_and_feedback() -> None:
    pairs = [pair("f", 1.0, '=HYPERLINK("http://x")', output="+1+1", expected={"label": "@SUM(A1)"})]
    cells = [
        cell
        for row in csv.reader(io.StringIO(rows_csv(export_rows(pairs, review(pairs), {})).decode()))
        for cell in row
    ]
    assert "'+1+1" in cells and '\'=HYPERLINK("http://x")' in cells
    assert not any(cell.startswith(("=", "+", "@")) for cell in cells)
