"""Comparing two metric versions: the diff and the per-case score changes."""

from __future__ import annotations

import pytest

from skynet_core.results import CaseResult, CaseStatus
from skynet_core.runs.history import compare_runs, unified_diff


def ok(case_id: str, score: float, feedback: str = "") -> CaseResult:
    return CaseResult(id=case_id, score=score, feedback=feedback)


def failed(case_id: str, error: str = "ZeroDivisionError: division by zero\ntraceback") -> CaseResult:
    return CaseResult(id=case_id, status=CaseStatus.ERROR, error=error)


def test_diff_shows_changed_lines_only_and_is_empty_for_equal_texts():
    old = "def score(i, o, e=None):\n    return 0.0, {'feedback': 'Wrong.'}\n"
    new = "def score(i, o, e=None):\n    return 0.0, {'feedback': 'Expected x.'}\n"
    diff = unified_diff(old, new)
    assert "-    return 0.0, {'feedback': 'Wrong.'}" in diff
    assert "+    return 0.0, {'feedback': 'Expected x.'}" in diff
    assert unified_diff(old, old) == ""


def test_compare_counts_improved_worsened_and_unchanged_cases():
    old = [ok("a", 0.0), ok("b", 1.0), ok("c", 0.5)]
    new = [ok("a", 1.0), ok("b", 0.5), ok("c", 0.5)]
    comparison = compare_runs(old, new)
    assert (comparison.improved, comparison.worsened, comparison.unchanged) == (1, 1, 1)
    assert comparison.old_mean == pytest.approx(0.5)
    assert comparison.new_mean == pytest.approx(2 / 3)
    assert list(comparison.table["id"])[:2] == ["a", "b"]  # largest change first


def test_a_status_change_is_reported_without_a_delta():
    comparison = compare_runs([ok("a", 1.0)], [failed("a")])
    row = comparison.table.iloc[0]
    assert comparison.status_changed == 1
    assert (row["old_status"], row["new_status"]) == ("ok", "error")
    assert row["delta"] != row["delta"]  # NaN: a failed case has no score
    assert row["new_feedback"] == "ZeroDivisionError: division by zero"


def test_cases_in_only_one_run_are_counted_not_compared():
    comparison = compare_runs([ok("a", 1.0), ok("gone", 1.0)], [ok("a", 1.0), ok("new", 0.0)])
    assert (comparison.only_old, comparison.only_new) == (1, 1)
    assert list(comparison.table["id"]) == ["a"]


def test_cases_pair_by_candidate_and_id():
    old = [CaseResult(id="1", candidate="fast", score=0.0), CaseResult(id="1", candidate="slow", score=1.0)]
    new = [CaseResult(id="1", candidate="fast", score=1.0), CaseResult(id="1", candidate="slow", score=1.0)]
    comparison = compare_runs(old, new)
    assert comparison.improved == 1 and comparison.unchanged == 1


def test_version_labels_are_short_and_say_the_time_once() -> None:
    from datetime import datetime

    from skynet_core.i18n import use_language
    from skynet_core.runs.history import LABEL_NAME_CHARS, version_label
    from skynet_core.store import Version, VersionKind

    at = datetime(2026, 11, 30, 19, 28, 49).timestamp()
    kept = Version(5, "default", "before Reward trade-offs wrote REWARD_SPEC (19:28:49)", "", at, VersionKind.KEPT)
    label = version_label(kept)
    assert label == "#5 before Reward trade-offs wrote REWARD_SPEC · 11/30/26, 7:28\u202fPM"
    long = Version(4, "default", "x" * 100, "", at)
    assert version_label(long).split(" · ")[0] == "#4 " + "x" * (LABEL_NAME_CHARS - 1) + "…"
    assert version_label(Version(6, "default", "autosave 19:28:49", "", at, VersionKind.AUTO)).startswith(
        "#6 autosave · "
    )
    other = Version(7, "default", "other tab's text, replaced at 19:28:49", "", at, VersionKind.KEPT)
    assert version_label(other).startswith("#7 other tab's text, replaced · ")
    assert version_label(Version(8, "default", "clearer feedback", "", at)).startswith("#8 clearer feedback · ")
    assert version_label(Version(9, "default", "12:30", "", at)).startswith("#9 12:30 · ")  # nothing but a time
    with use_language("zh_CN"):
        assert (
            version_label(Version(8, "default", "clearer feedback", "", at)) == "#8 clearer feedback · 2026/11/30 19:28"
        )
