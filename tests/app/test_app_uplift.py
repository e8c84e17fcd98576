"""Feedback review's "Does this feedback help?" in AppTest: missing models, the plan before a run, the form kept in the
workspace, and a saved experiment drawn (verdict, feedback value, charts, final instructions), in English and Chinese.
The run itself (the job, its progress and Cancel) is tests/core/test_uplift_workspace.py's and the browser test's."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.datasets import load_example
from skynet_core.engines.uplift import ALL_ARMS, Arm, Calls, Outcome, SeedRun, UpliftConfig, UpliftResult
from skynet_core.engines.uplift.store import UpliftStore
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.metric_source import MetricSource
from skynet_core.provenance import Provenance
from skynet_core.runs import RunKey, RunStore
from skynet_core.workspace import Workspace
from tests.app.harness import go_to, open_app
from tests.case_factory import WRONG_METRIC, weak_every_third
from tests.i18n_scan import english
from tests.i18n_scan import texts as drawn

START = "You triage customer support tickets."
LEARNED = "Refunds are billing."
EXAMPLE_WORDS = {"tickets", "example", "support", "fast", "small", "triage", "customer", "you", "refunds", "are"}
EXAMPLE_WORDS |= {"billing", "task", "reflect", "openai"}


@pytest.fixture(autouse=True)
def scored(data_dir: Path) -> Workspace:
    """The weak metric as the draft, with a scored run of it: the page's review (and the panel) shows."""
    workspace = Workspace(data_dir)
    workspace.replace_draft(WRONG_METRIC, "test")
    data = load_example()
    RunStore(data_dir).save(
        RunKey.of(data, data.candidates[0], None, WRONG_METRIC), weak_every_third(), metric_source=WRONG_METRIC
    )
    return workspace


def with_models(workspace: Workspace, *, task: bool = True, reflection: bool = True) -> None:
    workspace.save_model_settings(
        ModelSettings(
            task=ModelConfig("openai/task", "http://127.0.0.1:9/v1") if task else None,
            reflection=ModelConfig("openai/reflect", "http://127.0.0.1:9/v1", price_per_million=(1.0, 2.0))
            if reflection
            else None,
        )
    )


def saved_result(workspace: Workspace, ends: dict[Arm, list[float]]) -> UpliftResult:
    """A finished experiment of the draft on the example, saved as the job saves one."""
    runs = tuple(
        SeedRun(arm, seed, (), START + (f"\n{LEARNED}" if arm is Arm.FEEDBACK else ""), end)
        for arm in ALL_ARMS
        for seed, end in enumerate(ends[arm])
    )
    result = UpliftResult(
        UpliftConfig(START, rounds=2, seeds=3, minibatch=3),
        0.25,
        runs,
        Calls(120, 18),
        0.0123,
        Outcome.COMPLETE,
        models=("openai/task", "openai/reflect"),
        val_ids=tuple(f"v{index}" for index in range(14)),
        split_from_dataset=True,
        created_at=1_700_000_000.0,
    )
    data = load_example()
    metric = MetricSource.of(WRONG_METRIC)
    made_by = Provenance(metric.digest, data.source, data.name, data.candidates[0], None)
    UpliftStore(workspace.directory).save(result, metric, made_by)
    return result


class Scope:
    """One element of a run, where ``tests.i18n_scan.texts`` looks for a whole run's tree."""

    def __init__(self, node: object) -> None:
        self._tree = self.main = self.sidebar = node


HELPS = {Arm.FEEDBACK: [0.6, 0.65, 0.7], Arm.SCORE_ONLY: [0.25, 0.3, 0.25], Arm.SHUFFLED: [0.4, 0.3, 0.35]}


def texts(at: AppTest) -> str:
    """Every text the page shows, markdown escapes taken out."""
    parts = [*at.markdown, *at.caption, *at.warning, *at.success, *at.info, *at.error, *at.code]
    return "\n".join(str(item.value) for item in parts).replace("\\", "")


def test_without_models_the_panel_names_both_and_links_to_settings() -> None:
    at = open_app("feedback")
    found = texts(at)
    assert "needs a task model (runs the instruction on each case) and a reflection model" in found
    assert any("settings" in str(link.proto.page) for link in at.get("page_link"))
    assert at.button(key="feedback.uplift.run").disabled
    assert "Planned:" not in found


def test_a_missing_task_model_alone_is_named(scored: Workspace) -> None:
    with_models(scored, task=False)
    at = open_app("feedback")
    assert "needs a task model, which runs the instruction on each case: set one on Settings" in texts(at)


def test_before_a_run_the_plan_gives_the_calls_and_says_which_price_is_unknown(scored: Workspace) -> None:
    with_models(scored)
    at = open_app("feedback")
    assert at.text_area(key="feedback.uplift.instruction").value.startswith("You triage customer support tickets")
    found = texts(at)
    assert "Planned: at most 284 task calls and 27 reflection calls" in found  # the README's worked example
    assert "the 58 cases of the train split and measures on the 14 cases of the val split" in found
    assert "Task model openai/task: no known price" in found
    assert "Reflection model openai/reflect: about" in found and "Estimated cost" not in found
    assert not at.button(key="feedback.uplift.run").disabled
    assert "No experiment has run on this dataset yet." in found


def test_the_form_is_kept_in_the_workspace_across_pages(scored: Workspace) -> None:
    with_models(scored)
    at = open_app("feedback")
    at.number_input(key="feedback.uplift.rounds").set_value(5).run()
    at.text_area(key="feedback.uplift.instruction").set_value("Label the ticket.").run()
    assert "Planned: at most 14 + " not in texts(at)
    go_to(at, "data")
    go_to(at, "feedback")
    assert at.number_input(key="feedback.uplift.rounds").value == 5
    assert at.text_area(key="feedback.uplift.instruction").value == "Label the ticket."
    assert scored.uplift_form().rounds == 5
    assert "rounds 5" in texts(at)


def test_an_impossible_size_is_said_before_a_run(scored: Workspace) -> None:
    with_models(scored)
    at = open_app("feedback")
    at.number_input(key="feedback.uplift.minibatch").set_value(64).run()
    assert "There are 58 training cases, fewer than the minibatch of 64" in texts(at)
    assert at.button(key="feedback.uplift.run").disabled


def test_a_saved_experiment_shows_the_value_the_verdict_the_charts_and_the_final_instructions(
    scored: Workspace,
) -> None:
    result = saved_result(scored, HELPS)
    at = open_app("feedback")
    found = texts(at)
    assert f"Feedback value: {result.feedback_value.describe()}" in found
    assert "The feedback helps" in found
    assert "The experiment finished: 3 seeds in every arm." in found
    assert "Calls: 120 task, 18 reflection" in found
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    assert "Validation score of each arm" in charts[0].proto.spec and "feedback value" in charts[1].proto.spec
    assert any(f"+{LEARNED}" in block.value for block in at.code)  # the feedback arm's diff from the start
    at.selectbox(key="feedback.uplift.arm").set_value(Arm.SCORE_ONLY.value).run()
    assert "No proposal was kept: this arm ended where it started." in texts(at)


def test_no_clear_effect_is_said_as_such(scored: Workspace) -> None:
    unclear = {Arm.FEEDBACK: [0.2, 0.5, 0.3], Arm.SCORE_ONLY: [0.3, 0.3, 0.3], Arm.SHUFFLED: [0.25, 0.25, 0.25]}
    result = saved_result(scored, unclear)
    assert not result.feedback_value.excludes_zero
    found = texts(open_app("feedback"))
    assert "No clear effect: the 95% interval includes 0." in found and "The feedback helps" not in found


def test_a_saved_experiment_in_chinese_has_no_english(scored: Workspace) -> None:
    with_models(scored)
    saved_result(scored, HELPS)
    at = open_app("feedback", language="zh_CN")
    panel = next(item for item in at.expander if "反馈" in item.label and "优化" in item.label)
    found = [(word, text[:160]) for text in drawn(Scope(panel)) for word in english(text, EXAMPLE_WORDS)]
    assert not found, found
    assert "反馈价值" in texts(at)
