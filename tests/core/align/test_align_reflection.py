"""What the reflection model reads about the judge: each disagreement's input, output, human score and note, the
judge's score and answer, and its direction, in GEPA's own reflection prompt; agreeing cases are left out."""

from __future__ import annotations

from skynet_core.align.judge import Verdict
from skynet_core.align.labelled import HumanCase, Scale
from skynet_core.align.reflection import disagreements, reflection_prompt, side_info
from skynet_core.cases import Case

SCALE = Scale(True, 0.5)
REFUND = HumanCase(
    Case(id="t1", input={"question": "Can I get my money back?"}, output="We will refund you right away."),
    0.0,
    "Promised a refund without asking for the order number.",
)
FINE = HumanCase(Case(id="t2", input={"question": "When does it ship?"}, output="On Monday."), 1.0)


def test_a_disagreement_carries_the_case_the_person_and_the_judge() -> None:
    info = side_info(REFUND, Verdict(1.0, "PASS. Polite and helpful."), SCALE)
    assert info == {
        "Input": {"question": "Can I get my money back?"},
        "Output": "We will refund you right away.",
        "Human score": "fail (0)",
        "Human note": "Promised a refund without asking for the order number.",
        "Judge score": "pass (1)",
        "Judge answer": "PASS. Polite and helpful.",
        "Direction": "too lenient",
    }
    strict = side_info(FINE, Verdict(0.0, "FAIL. Too short."), SCALE)
    assert strict["Direction"] == "too strict" and "Human note" not in strict


def test_the_prompt_shows_the_disagreements_only_with_the_current_text_and_the_rules() -> None:
    records = [side_info(REFUND, Verdict(1.0, "PASS."), SCALE), side_info(FINE, Verdict(1.0, "PASS."), SCALE)]
    kept = disagreements(records)
    assert len(kept) == 1
    prompt = reflection_prompt("RUBRIC", {"RUBRIC": "Grade {answer}.", "OTHER": "Be brief."}, kept, SCALE)
    assert "```\nGrade {answer}.\n```" in prompt
    for text in ("## Human note\nPromised a refund", "## Direction\ntoo lenient", "## Judge answer\nPASS."):
        assert text in prompt
    assert "When does it ship?" not in prompt
    assert "Keep every {placeholder} exactly as it is" in prompt and "OTHER (not changed now):\nBe brief." in prompt


def test_a_case_the_metric_failed_on_says_why_and_has_no_direction() -> None:
    info = side_info(REFUND, Verdict(None, "", "ValueError: no verdict"), SCALE)
    assert info["Judge score"] == "none: the metric failed (ValueError: no verdict)" and "Direction" not in info
