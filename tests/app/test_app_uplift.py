"""Feedback review's "Does this feedback help?" in AppTest: missing models, the models and the plan before a run, the
form kept in the workspace, a saved experiment drawn (verdict, feedback value, charts, final instructions) in English
and Chinese, and runs against scripted task and reflection models on 127.0.0.1 (tests/uplift_world.py: a world where
the metric's feedback helps): a whole run shows the core's own figures, Cancel and the budget keep the finished seeds,
a failed call is said. History and Runs show a version's feedback value."""

from __future__ import annotations

import itertools
import threading
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.engines.uplift import (
    ALL_ARMS,
    Arm,
    Outcome,
    UpliftConfig,
    run_uplift,
)
from skynet_core.i18n import format_number
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.llm.cache import CacheSetting, save_cache_setting
from skynet_core.results import CaseResult, JobKind
from skynet_core.runs import RunKey
from skynet_core.store.runs import RunStore
from skynet_core.workspace import Workspace
from tests import uplift_world as world
from tests.app.harness import go_to, open_app, run_until
from tests.case_factory import WRONG_METRIC, with_weak_run
from tests.fake_openai import FakeOpenAI
from tests.i18n_scan import english
from tests.i18n_scan import texts as drawn
from tests.uplift_saved import HELPS, LEARNED, saved_result
from ui import keys as K

EXAMPLE_WORDS = {"tickets", "example", "support", "fast", "small", "triage", "customer", "you", "refunds", "are"}
EXAMPLE_WORDS |= {"billing", "task", "reflect", "openai"}


@pytest.fixture(autouse=True)
def scored(data_dir: Path) -> Workspace:
    """The weak metric as the draft, with a scored run of it: the page's review (and the panel) shows."""
    return with_weak_run(Workspace(data_dir), "test")


def with_models(workspace: Workspace, *, task: bool = True, reflection: bool = True) -> None:
    workspace.settings.save_models(
        ModelSettings(
            task=ModelConfig("openai/task", "http://127.0.0.1:9/v1") if task else None,
            reflection=ModelConfig("openai/reflect", "http://127.0.0.1:9/v1", price_per_million=(1.0, 2.0))
            if reflection
            else None,
        )
    )


def open_feedback(language: str | None = None) -> AppTest:
    """Feedback review with this panel opened, with time for a first plan on a busy machine (the panel loads
    litellm for the prices)."""
    return open_app("feedback", language=language, state={K.UPLIFT_OPEN: True}, timeout=180)


def opened(at: AppTest, is_open: bool = True) -> AppTest:
    """The page after a click on the panel's title: it draws its content only while open (ui.widgets.lazy)."""
    at.session_state[K.UPLIFT_OPEN] = is_open
    return at.run()


class Scope:
    """One element of a run, where ``tests.i18n_scan.texts`` looks for a whole run's tree."""

    def __init__(self, node: object) -> None:
        self._tree = self.main = self.sidebar = node


def texts(at: AppTest) -> str:
    """Every text the page shows, markdown escapes taken out."""
    parts = [*at.markdown, *at.caption, *at.warning, *at.success, *at.info, *at.error, *at.code, *at.text]
    return "\n".join(str(item.value) for item in parts).replace("\\", "")


def test_without_models_the_panel_names_both_and_links_to_settings() -> None:
    at = open_feedback()
    found = texts(at)
    assert "needs a task model (runs the instruction on each case) and a reflection model" in found
    assert any("settings" in str(link.proto.page) for link in at.get("page_link"))
    assert at.button(key="feedback.uplift.run").disabled
    assert "Planned:" not in found


def test_a_missing_task_model_alone_is_named(scored: Workspace) -> None:
    with_models(scored, task=False)
    at = open_feedback()
    found = texts(at)
    assert 'needs a task model, which runs the instruction on each case: set "Task model" on Settings' in found
    assert "(or SKYNET_TASK_MODEL in the server's environment)." in found and "SKYNET_REFLECTION_MODEL" not in found


def test_before_a_run_the_plan_gives_the_calls_and_says_which_price_is_unknown(scored: Workspace) -> None:
    with_models(scored)
    at = open_feedback()
    assert at.text_area(key="feedback.uplift.instruction").value.startswith("You triage customer support tickets")
    found = texts(at)
    assert "Task model: **openai/task** · reflection model: **openai/reflect**" in found
    assert "Planned: at most 284 task calls and 27 reflection calls" in found  # docs/uplift.md's worked example
    assert "the 58 cases of the train split and measures on the 14 cases of the val split" in found
    assert "Task model openai/task: no known price" in found
    assert "Reflection model openai/reflect: about" in found and "Estimated cost" not in found
    assert not at.button(key="feedback.uplift.run").disabled
    assert "No experiment has run on this dataset yet." in found


def test_the_form_is_kept_in_the_workspace_across_pages(scored: Workspace) -> None:
    with_models(scored)
    at = open_feedback()
    at.number_input(key="feedback.uplift.rounds").set_value(5).run()
    at.text_area(key="feedback.uplift.instruction").set_value("Label the ticket.").run()
    assert "Planned: at most 14 + " not in texts(at)
    go_to(at, "data")
    go_to(at, "feedback")
    opened(at)  # a page opened again starts with its panels closed
    assert at.number_input(key="feedback.uplift.rounds").value == 5
    assert at.text_area(key="feedback.uplift.instruction").value == "Label the ticket."
    assert scored.uplift.form().rounds == 5
    assert "rounds 5" in texts(at)


def test_the_panel_plans_and_draws_its_form_only_while_open(scored: Workspace) -> None:
    with_models(scored)
    at = open_app("feedback", timeout=180)
    assert "feedback.uplift.instruction" not in [area.key for area in at.text_area]
    assert "Planned:" not in texts(at)
    at.session_state[K.UPLIFT_OPEN] = True
    assert "Planned: at most 284 task calls" in texts(at.run())
    opened(at, False)  # closed again: the form is the workspace's, and comes back when it opens
    assert "feedback.uplift.rounds" not in [box.key for box in at.number_input]
    assert opened(at).number_input(key="feedback.uplift.rounds").value == scored.uplift.form().rounds


def test_an_impossible_size_is_said_before_a_run(scored: Workspace) -> None:
    with_models(scored)
    at = open_feedback()
    at.number_input(key="feedback.uplift.minibatch").set_value(64).run()
    assert "There are 58 training cases, fewer than the minibatch of 64" in texts(at)
    assert at.button(key="feedback.uplift.run").disabled


def test_a_saved_experiment_shows_the_value_the_verdict_the_charts_and_the_final_instructions(
    scored: Workspace,
) -> None:
    result = saved_result(scored, HELPS)
    at = open_feedback()
    found = texts(at)
    assert f"Feedback value: {result.feedback_value.describe()}" in found
    assert "The feedback helps" in found
    assert "The experiment finished: 3 seeds in every arm." in found
    assert "Calls: 120 task calls and 18 reflection calls" in found
    charts = at.get("plotly_chart")
    assert len(charts) == 2
    assert "Validation score of each arm" in charts[0].proto.spec and "feedback value" in charts[1].proto.spec
    assert "Gain over the start" in charts[1].proto.spec
    assert any(f"+{LEARNED}" in block.value for block in at.code)  # the feedback arm's diff from the start
    at.selectbox(key="feedback.uplift.arm").set_value(Arm.SCORE_ONLY.value).run()
    assert "No proposal was kept: this arm ended where it started." in texts(at)


def test_no_clear_effect_is_said_as_such(scored: Workspace) -> None:
    unclear = {Arm.FEEDBACK: [0.2, 0.5, 0.3], Arm.SCORE_ONLY: [0.3, 0.3, 0.3], Arm.SHUFFLED: [0.25, 0.25, 0.25]}
    result = saved_result(scored, unclear)
    assert not result.feedback_value.excludes_zero
    found = texts(open_feedback())
    assert "No clear effect: the 95% interval includes 0." in found and "The feedback helps" not in found


def test_a_saved_experiment_in_chinese_has_no_english(scored: Workspace) -> None:
    with_models(scored)
    saved_result(scored, HELPS)
    at = open_feedback(language="zh_CN")
    panel = next(item for item in at.expander if "反馈" in item.label and "优化" in item.label)
    found = [(word, text[:160]) for text in drawn(Scope(panel)) for word in english(text, EXAMPLE_WORDS)]
    assert not found, found
    assert "反馈价值" in texts(at)


# --- runs against the scripted models ---------------------------------------------------------------------------


@pytest.fixture
def world_ws(scored: Workspace, data_dir: Path) -> Workspace:
    """The world's metric as the draft and its tickets in use, with a scored run of them (the panel shows under the
    review)."""
    workspace = scored
    workspace.data.save_choice(str(world.write_cases(data_dir.parent / "tickets.jsonl")))
    workspace.drafts.replace(world.METRIC, "test")
    in_use = workspace.data.in_use()
    results = [
        CaseResult(id=case.id, split=case.split, score=0.0, feedback="Expected a label.", candidate=case.candidate)
        for case in in_use.cases
    ]
    RunStore(data_dir).save(
        RunKey.of(in_use.data, in_use.candidate, None, world.METRIC), results, metric_source=world.METRIC
    )
    return workspace


def world_models(workspace: Workspace, url: str, price: tuple[float, float] | None = None) -> None:
    chosen = world.models(url, price=price)
    workspace.settings.save_models(ModelSettings(task=chosen.task, reflection=chosen.reflection, max_retries=0))


def sized(at: AppTest, rounds: int, seeds: int, budget: float = 0.0) -> AppTest:
    """The form set to the world's instruction, ``rounds`` and ``seeds`` (minibatch 3) and ``budget`` dollars, as a
    person types them (the world's tickets bring no instruction)."""
    at.text_area(key="feedback.uplift.instruction").set_value(world.START).run()
    at.number_input(key="feedback.uplift.rounds").set_value(rounds).run()
    at.number_input(key="feedback.uplift.seeds").set_value(seeds).run()
    return at.number_input(key="feedback.uplift.budget").set_value(budget).run()


def start(at: AppTest) -> AppTest:
    at.button(key="feedback.uplift.run").click().run()
    assert not [item.value for item in at.warning if "needs" in str(item.value)]
    return at


def finished(text: str):
    return lambda at: text in texts(at)


def test_a_run_shows_the_figures_the_core_reports_for_the_same_seeds_and_counts_the_calls_the_server_saw(
    world_ws: Workspace,
) -> None:
    with world.server() as server:
        world_models(world_ws, server.url)
        at = start(sized(open_feedback(), rounds=1, seeds=2))
        run_until(at, finished("The experiment finished: 2 seeds in every arm."), 240, what="a finished experiment")
        seen = world.requests_by_model(server)
        config = UpliftConfig(world.START, rounds=1, seeds=2, minibatch=3)
        expected = run_uplift(world_ws.uplift.experiment(config, {}))
    found = texts(at)
    assert expected.complete and expected.feedback_value.value > 0
    assert f"Feedback value: {expected.feedback_value.describe()}" in found
    assert expected.verdict() in found
    assert f"Start: the given instruction scores {format_number(expected.start, 3)}" in found
    table = at.dataframe[-1].value
    for arm, row in zip(ALL_ARMS, table.itertuples(index=False), strict=True):
        assert row[0] == arm.label
        assert row[1] == " · ".join(format_number(end, 3) for end in expected.arms[arm].ends)
        assert row[3] == expected.arms[arm].gain.describe()
    assert f"Calls: {seen['task']} task calls and {seen['reflect']} reflection calls" in found
    assert (seen["task"], seen["reflect"]) == (expected.calls.task, expected.calls.reflection)
    assert len(at.get("plotly_chart")) == 2
    rules = [line for line in expected.arms[Arm.FEEDBACK].instructions[0].split(". ") if "mention" in line]
    assert rules and any(f"+{world.START}" in block.value and rules[0] in block.value for block in at.code)


def test_cancel_in_the_job_panel_keeps_the_finished_seeds(world_ws: Workspace) -> None:
    second_seed, release = threading.Event(), threading.Event()
    reflections = itertools.count(1)

    def reply(received):
        # Seed 1's first reflection (seed 0 made 3, one an arm) waits until the test has cancelled the run.
        if received.model == "reflect" and next(reflections) > 3:
            second_seed.set()
            release.wait(30)
        return world.reply(received)

    with FakeOpenAI(reply=reply, usage=(100, 20)) as server:
        world_models(world_ws, server.url)
        at = start(sized(open_feedback(), rounds=1, seeds=3))
        assert second_seed.wait(120), "the second seed never started"
        at.run()
        job = at.session_state[K.job_slot("feedback.uplift")].job
        assert job.kind is JobKind.UPLIFT and job.running
        assert any("feedback uplift · " in str(item.value) for item in at.sidebar.caption)  # under Running jobs
        at.button(key="feedback.uplift_job.cancel").click().run()
        release.set()
        run_until(at, finished("The run was cancelled; the 1 seed that finished is kept."), 120, what="the cancel")
    assert job.cancelled
    saved = world_ws.uplift.latest()
    assert saved is not None and saved.result.outcome is Outcome.CANCELLED and saved.result.seeds_finished == 1
    assert len(at.get("plotly_chart")) == 2  # the kept seed is drawn


def test_the_budget_stops_the_run_says_so_and_keeps_the_finished_seeds(world_ws: Workspace, data_dir: Path) -> None:
    # Only the metric's llm() calls have a price (a cent a call: 100 tokens in and 20 out): the budget is reached
    # through them, which start while anything is left.
    world_ws.drafts.replace(world.JUDGED_METRIC, "test")
    with world.server() as server:
        chosen = world.models(server.url)
        judge = world.judge_settings(server.url, (50.0, 250.0)).metric
        world_ws.settings.save_models(
            ModelSettings(task=chosen.task, reflection=chosen.reflection, metric=judge, max_retries=0)
        )
        save_cache_setting(world_ws.store, CacheSetting(enabled=False))  # every judge call is paid for
        one_seed = run_uplift(world_ws.uplift.experiment(UpliftConfig(world.START, rounds=1, seeds=1), {}))
        budget = round(one_seed.cost_usd + 0.005, 3)  # the first seed fits, the second cannot
        at = start(sized(open_feedback(), rounds=1, seeds=3, budget=budget))
        run_until(at, finished("The run stopped at its budget of"), 240, what="the budget's stop")
    saved = world_ws.uplift.latest()
    assert saved is not None and saved.result.outcome is Outcome.BUDGET and saved.result.seeds_finished == 1
    assert "the 1 seed that finished is kept" in texts(at)
    assert world_ws.uplift.form().max_cost_usd == budget


def test_a_failed_model_call_is_said_without_a_traceback(world_ws: Workspace) -> None:
    with FakeOpenAI(reply=world.reply, script=[500] * 50) as server:
        world_models(world_ws, server.url)
        at = start(sized(open_feedback(), rounds=1, seeds=1))
        run_until(at, finished("a model call failed"), 120, what="the failure")
    assert "The server had an error while processing your request" in texts(at)
    assert not at.exception


def test_history_and_runs_show_the_feedback_value_of_a_version(scored: Workspace) -> None:
    result = saved_result(scored, HELPS)
    scored.drafts.save_version("weak")
    scored.drafts.replace(WRONG_METRIC + "\n# edited\n", "test")
    at = open_app("history")
    shown = texts(at)
    assert f"A: {result.feedback_value.describe()} · 3 seeds" in shown
    assert 'B: none yet: run "Does this feedback help?" on Feedback review' in shown
    go_to(at, "runs")
    assert f"Feedback value of this metric version: {result.feedback_value.describe()}" in texts(at)
