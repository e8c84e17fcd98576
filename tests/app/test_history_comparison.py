"""History's comparison of two versions through AppTest: whether the scores shown are still about the versions
chosen (a comparison of two saved versions is about them, not about the draft), and which saved experiment gives
each version's feedback value (the most complete one; a partial one said to be partial)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.datasets import load_example
from skynet_core.engines.uplift import Outcome, UpliftResult
from skynet_core.metric.source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.store import Store
from skynet_core.store.uplift import UpliftStore
from skynet_core.workspace import Workspace
from tests.app.harness import button, open_app, run_until
from tests.case_factory import WRONG_METRIC
from tests.uplift_saved import HELPS, saved_result

WEAK = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'Wrong.'}\n"
STRONG = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Right, and here is why.'}\n"
DRAFT = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'Half right.'}\n"


def banner(at: AppTest) -> str:
    """What the page says about whether the comparison's scores are current."""
    said = [item.value for item in (*at.main.warning, *at.main.caption) if "These scores" in item.value]
    assert len(said) == 1, said
    return said[0].removeprefix(":green[:material/check_circle:] ")


def compared(at: AppTest) -> AppTest:
    button(at, "Compare scores").click().run()
    return run_until(at, lambda at: bool(at.dataframe), what="the comparison's table")


def pick(at: AppTest, key: str, number: int) -> AppTest:
    label = next(option for option in at.selectbox(key=key).options if option.startswith(f"#{number} "))
    return at.selectbox(key=key).select(label).run()


@pytest.fixture
def two_saved(data_dir) -> AppTest:
    """Versions #1 (weak) and #2 (strong) saved, and a draft that is neither."""
    store = Store(data_dir)
    store.save_version("weak feedback", WEAK)
    store.save_version("strong feedback", STRONG)
    store.save_draft(DRAFT)
    return open_app("history")


def test_a_comparison_of_two_saved_versions_is_current_whatever_the_draft(two_saved: AppTest) -> None:
    at = pick(pick(two_saved, "history.a", 1), "history.b", 2)
    compared(at)
    assert [metric.value for metric in at.metric][:2] == ["0.000", "1.000"]
    assert banner(at) == "These scores are of versions A and B, on the current dataset, candidate, split and model."


def test_choosing_another_version_says_the_scores_shown_are_of_the_versions_compared_before(two_saved) -> None:
    at = compared(pick(pick(two_saved, "history.a", 1), "history.b", 2))
    pick(at, "history.b", 1)
    pick(at, "history.a", 2)
    assert (
        banner(at)
        == "These scores are out of date: version A is not the one compared; version B is not the one compared."
    )


def test_a_comparison_with_the_draft_is_out_of_date_once_the_draft_changes(two_saved: AppTest, data_dir) -> None:
    at = compared(pick(two_saved, "history.a", 1))  # B: the current draft
    assert banner(at).startswith("These scores are of versions A and B")
    Store(data_dir).save_draft(DRAFT + "# edited\n")
    at.run()
    assert "version B is not the one compared" in banner(at)


def cancelled_after_one_seed(complete: UpliftResult) -> UpliftResult:
    """``complete`` as if cancelled an hour later, after its first seed (a value of its own: +0.350 here)."""
    return replace(
        complete,
        runs=tuple(run for run in complete.runs if run.seed == 0),
        outcome=Outcome.CANCELLED,
        created_at=complete.created_at + 3600,
    )


def save(data_dir: Path, result: UpliftResult) -> None:
    data = load_example()
    metric = MetricSource.of(WRONG_METRIC)
    UpliftStore(data_dir).save(
        result, metric, Provenance(metric.digest, data.source, data.name, data.candidates[0], None)
    )


def feedback_values(data_dir: Path) -> str:
    """The History page's feedback values of version A (the metric of the saved experiments) and B (the draft)."""
    store = Store(data_dir)
    store.save_version("weak", WRONG_METRIC)
    store.save_draft(STRONG)
    at = open_app("history")
    return "\n".join(item.value for item in at.main.markdown)


def test_a_versions_feedback_value_is_its_most_complete_experiment(data_dir: Path) -> None:
    complete = saved_result(Workspace(data_dir), HELPS)
    cancelled = cancelled_after_one_seed(complete)
    save(data_dir, cancelled)  # newer, but one seed of three
    assert cancelled.feedback_value.describe() != complete.feedback_value.describe()
    shown = feedback_values(data_dir)
    assert f"A: {complete.feedback_value.describe()} · 3 seeds · measured" in shown
    assert cancelled.feedback_value.describe() not in shown


def test_a_partial_experiment_is_said_to_be_partial(data_dir: Path, tmp_path: Path) -> None:
    cancelled = cancelled_after_one_seed(saved_result(Workspace(tmp_path), HELPS))
    save(data_dir, cancelled)
    shown = feedback_values(data_dir)
    assert f"A: {cancelled.feedback_value.describe()} · 1 seed · partial: cancelled · measured" in shown
