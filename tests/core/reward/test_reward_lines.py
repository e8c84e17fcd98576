"""A feedback's reward lines read in the reader's language (skynet_core.reward.lines), whichever language scored."""

from __future__ import annotations

from skynet_core.i18n import use_language
from skynet_core.reward import reward_pair
from skynet_core.reward.lines import localized_feedback

SPEC = {
    "weights": {"accuracy": 0.7, "speed": 0.3, "cost": 0.0},
    "speed": {"reference": 800},
    "cost": {"reference": 0.01},
}


def feedback(language: str, latency_ms: float | None = 850.0, cost_usd: float | None = 0.002) -> str:
    with use_language(language):
        return reward_pair(SPEC, 1.0, "Correct: billing.", latency_ms, cost_usd)[1]["feedback"]


def test_lines_written_in_english_read_in_chinese_and_back() -> None:
    english, chinese = feedback("en"), feedback("zh_CN")
    assert english != chinese
    with use_language("zh_CN"):
        assert localized_feedback(english) == chinese
    assert localized_feedback(chinese) == english  # the article too: "an 800 ms reference"
    assert "against an 800 ms reference" in english


def test_unmeasured_parts_and_the_metrics_own_text_are_kept() -> None:
    english = feedback("en", latency_ms=None, cost_usd=None)
    with use_language("zh_CN"):
        shown = localized_feedback(english)
    assert shown == feedback("zh_CN", latency_ms=None, cost_usd=None)
    assert shown.startswith("Correct: billing.\n")


def test_only_the_trailing_lines_are_reward_lines() -> None:
    text = "Speed: 850 ms against an 800 ms reference, 0.48.\nThe metric's own last line."
    with use_language("zh_CN"):
        assert localized_feedback(text) == text
        assert localized_feedback("Plain feedback.") == "Plain feedback."
        assert localized_feedback("") == ""
