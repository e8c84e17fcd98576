"""Issue 23's "Chinese left in English", core side: reward() lines of a run started from a button (a Streamlit
callback runs in a fresh thread, before the page sets its language), judge consistency's summary and headers.

Each assertion scans the text with ``tests/i18n_scan.english``, the scan the page tests use."""

from __future__ import annotations

import threading

from i18n_scan import english

from skynet_core.cases import Case, Observation
from skynet_core.i18n import language, use_language, with_language
from skynet_core.judge import CaseSpread, Consistency, column_labels
from skynet_core.metric.source import MetricSource
from skynet_core.results import CheckReport
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases
from skynet_core.workspace.jobs import Job, JobSlot

REWARD_METRIC = """from skynet import reward

REWARD_SPEC = {"weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1}, "speed": {"reference": 2000},
               "cost": {"reference": 0.01}}


def score(input, output, expected=None):
    return reward(REWARD_SPEC, 1.0, "好。")
"""
CASES = [Case("a", {"text": "x"}, "y", None, observation=Observation(None, 0.000045))]


def score_in_a_job(slot: JobSlot, pool) -> None:
    """What a "Score all" button's callback does: start a job (which runs in a copy of the caller's context)."""

    def target(job: Job[CheckReport]) -> list:
        return score_cases(MetricSource.of(REWARD_METRIC), CASES, RunOptions(pool=pool)).results

    slot.submit(Job(kind="score", total=1), target)


def run_as_a_callback(callback) -> None:
    """Run ``callback`` as Streamlit runs a button's: in a new thread, whose context has the default language."""
    thread = threading.Thread(target=callback)
    thread.start()
    thread.join()


def test_a_callbacks_thread_starts_in_english_so_its_job_would_too() -> None:
    seen: list[str] = []
    with use_language("zh_CN"):
        run_as_a_callback(lambda: seen.append(language()))
    assert seen == ["en"]  # why a job started from a button wrote reward()'s lines in English


def test_a_callback_made_in_chinese_scores_with_chinese_reward_lines(pool) -> None:
    slot = JobSlot()
    with use_language("zh_CN"):
        callback = with_language(score_in_a_job)  # made while the page draws its button, in its language
    run_as_a_callback(lambda: callback(slot, pool))
    assert slot.job is not None and slot.job.wait(60)
    feedback = slot.job.result[0].feedback
    assert "速度" in feedback and "成本" in feedback, feedback
    assert english(feedback) == [], feedback


def test_judge_consistency_speaks_chinese() -> None:
    result = Consistency(
        3,
        [
            CaseSpread("r01", (1.0, 0.0, 1.0), ("PASS", "FAIL", "PASS"), ()),
            CaseSpread("r02", (1.0, 1.0, 1.0), ("PASS",) * 3, ()),
        ],
    )
    with use_language("zh_CN"):
        summary = result.describe()
        labels = column_labels()
        nothing = Consistency(3, [CaseSpread("r03", (), (), ("KeyError: 'label'",) * 3)]).describe()
    assert english(summary) == [], summary
    assert english(nothing) == [], nothing
    assert set(labels) == set(result.rows()[0])
    assert english(" ".join(labels.values())) == [], labels
    with use_language("en"):
        assert result.describe().startswith("Judged 2 cases 3 times each: the verdict flipped on 1 of 2 cases")
        assert column_labels()["stdev"] == "stdev"
