"""The optional model review of feedback (prompt, reply parsing, the grading loop) and the export formats."""

from __future__ import annotations

import csv
import io
import json
import threading

import pytest

from skynet_core.cases import Case
from skynet_core.feedback import (
    GRADE_INSTRUCTIONS,
    Grade,
    Mark,
    MarkValue,
    export_rows,
    grade_feedback,
    grade_prompt,
    parse_grade,
    review,
    rows_csv,
    rows_jsonl,
)
from skynet_core.llm import LlmError
from skynet_core.results import CaseResult, CaseStatus

CASE = Case(
    id="c1",
    input={"message": "I see a charge I don't recognise"},
    output='{"label": "other"}',
    expected={"label": "billing"},
)
RESULT = CaseResult(id="c1", score=0.0, scores={"label": 0.0}, feedback="Wrong.")


def test_grade_prompt_shows_the_case_the_score_and_the_feedback() -> None:
    instructions, text = grade_prompt(CASE, RESULT)
    assert instructions == GRADE_INSTRUCTIONS
    assert "1 to 5" in instructions and "one sentence" in instructions
    for part in (
        "I see a charge",
        '{"label": "other"}',
        '"billing"',
        "Score given by the metric",
        "0.0",
        "label: 0.0",
        "Feedback to grade:\nWrong.",
    ):
        assert part in text


def test_grade_prompt_says_when_there_is_no_expected_value_or_feedback() -> None:
    case = Case(id="c2", input={"q": "x"}, output="y")
    _, text = grade_prompt(case, CaseResult(id="c2", score=1.0, feedback="  "))
    assert "Expected:\nnone given" in text
    assert "Feedback to grade:\n(empty)" in text
    assert "Named scores" not in text


def test_grade_prompt_cuts_huge_parts() -> None:
    case = Case(id="c3", input={"q": "x"}, output="z" * 10_000)
    _, text = grade_prompt(case, CaseResult(id="c3", score=0.0, feedback="f" * 10_000))
    assert len(text) < 5_000
    assert "…" in text


@pytest.mark.parametrize(
    ("reply", "grade", "reason"),
    [
        ("4 - Names the label.", 4, "Names the label."),
        ("**Grade: 4/5** Names the label.", 4, "Names the label."),
        ("Score: 4. It names both labels.", 4, "It names both labels."),
        ("It is vague, so 3 out of 5.", 3, "It is vague"),
        ('{"grade": 2, "reason": "No expected value."}', 2, "No expected value."),
        ('Here it is:\n```json\n{"Rating": "5", "explanation": "Exact."}\n```', 5, "Exact."),
        ("**2** \u2014 Only a verdict.", 2, "Only a verdict."),
        ("Grade: 4\nReason: names the field.", 4, "names the field."),
        ("Actionability: 3/5 (vague)", 3, "vague"),
        ("1. Nothing to act on.", 1, "Nothing to act on."),
        ("I would rate this 2 because it names nothing.", 2, "I would rate this 2 because it names nothing."),
        ("Grade: 3.5 - vague", 4, "vague"),
        ("5", 5, ""),
    ],
)
def test_parse_grade_reads_the_usual_reply_shapes(reply: str, grade: int, reason: str) -> None:
    assert parse_grade(reply) == (grade, reason)


@pytest.mark.parametrize(
    ("reply", "message"),
    [
        ("The feedback is fine.", "no grade from 1 to 5"),
        ("Grade: 10", "outside 1 to 5"),
        ("grade: 0 - useless", "outside 1 to 5"),
        ('{"grade": "high"}', "not a number"),
        ("4/50", "no grade"),
        ("", "no grade"),
    ],
)
def test_parse_grade_refuses_replies_without_a_usable_grade(reply: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        parse_grade(reply)


def test_parse_grade_cuts_a_long_reason_to_one_short_line() -> None:
    grade, reason = parse_grade("3 - " + "vague " * 100)
    assert grade == 3 and len(reason) <= 200 and "\n" not in reason


def pairs(count: int) -> list[tuple[Case, CaseResult]]:
    return [
        (Case(id=f"c{i}", input={"q": str(i)}, output="x"), CaseResult(id=f"c{i}", score=0.0, feedback="Wrong."))
        for i in range(count)
    ]


def test_grade_feedback_grades_every_case_in_order_and_reports_each() -> None:
    seen: list[Grade] = []
    replies = iter(["2 - Only a verdict.", "nothing useful here", "5 - Exact."])
    grades = grade_feedback(pairs(3), lambda instructions, text: next(replies), on_grade=seen.append)
    assert grades == seen
    assert grades[0] == Grade("c0", 2, "Only a verdict.")
    assert grades[1].grade is None and "could not be read" in grades[1].error
    assert grades[2] == Grade("c2", 5, "Exact.")


def test_grade_feedback_stops_at_the_first_failed_call_and_keeps_its_message() -> None:
    calls: list[str] = []

    def ask(instructions: str, text: str) -> str:
        calls.append(text)
        raise LlmError("openai rejected the API key for openai/gpt-4o-mini")

    grades = grade_feedback(pairs(3), ask)
    assert len(calls) == 1
    assert grades == [Grade("c0", None, error="openai rejected the API key for openai/gpt-4o-mini")]


def test_grade_feedback_stops_when_cancelled() -> None:
    cancel = threading.Event()

    def ask(instructions: str, text: str) -> str:
        cancel.set()
        return "3 - vague"

    assert [grade.case_id for grade in grade_feedback(pairs(3), ask, cancel=cancel)] == ["c0"]


def run() -> list[tuple[Case, CaseResult]]:
    weak = (
        Case(id="w", input={"q": "a"}, output="other", expected={"label": "billing"}),
        CaseResult(id="w", score=0.0, feedback="Wrong."),
    )
    good = (
        Case(id="g", input={"q": "b"}, output="billing", expected={"label": "billing"}),
        CaseResult(id="g", score=1.0, feedback='Correct: the label is "billing",\nwith a comma and quotes.'),
    )
    failed = (
        Case(id="e", input={"q": "c"}, output="x", expected=None),
        CaseResult(id="e", status=CaseStatus.ERROR, error="boom"),
    )
    return [weak, good, failed]


def test_export_with_grades_adds_the_model_columns() -> None:
    rows = export_rows(
        run(),
        review(run()),
        {},
        {"w": Grade("w", 1, "Only a verdict."), "g": Grade("g", None, error="unreadable reply")},
    )
    assert [(row["model_grade"], row["model_reason"]) for row in rows] == [
        (1, "Only a verdict."),
        (None, "unreadable reply"),
        (None, ""),
    ]
    assert "model_grade" not in export_rows(run(), review(run()), {})[0]


def test_csv_and_jsonl_exports_round_trip_every_row() -> None:
    marks = {"w": Mark("w", MarkValue.WEAK, "says nothing", "2025-01-01T00:00:00+00:00")}
    rows = export_rows(run(), review(run()), marks)
    read = list(csv.DictReader(io.StringIO(rows_csv(rows).decode("utf-8"))))
    assert [row["id"] for row in read] == ["w", "g", "e"]
    assert read[0]["mark"] == "weak" and "generic" in read[0]["rule_ids"]
    assert read[1]["feedback"] == rows[1]["feedback"]
    assert read[2]["score"] == "" and read[2]["status"] == "error"
    lines = rows_jsonl(rows).decode("utf-8").splitlines()
    assert [json.loads(line) for line in lines] == rows


def test_exports_of_no_rows_are_empty() -> None:
    assert rows_csv([]) == b"" and rows_jsonl([]) == b""
