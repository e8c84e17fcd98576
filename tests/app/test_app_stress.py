"""The Stress test page in AppTest: the plan before a run, a run of the draft on the bundled example as a job (its
verdict leads the report, the worst example of each flag drawn side by side), a sound metric's report that says it
held, the form kept in the workspace, a search refused without models, the report in Chinese, and History and Runs
showing a version's stress verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from skynet_core.datasets import load_example
from skynet_core.runs import RunKey
from skynet_core.store.runs import RunStore
from skynet_core.stress import BY_ID, Flag
from skynet_core.workspace import StressForm, Workspace
from skynet_core.workspace.jobs import JobSlot
from tests import stress_world as world
from tests.app.harness import button, go_to, open_app, run_until
from tests.i18n_scan import english_words
from ui import keys as K

# The bundled example's words (user data) and the perturbations' names (an interface: options and JSON keep them).
ALLOWED = {"tickets", "example", "support", "fast", "small", *(name for item in BY_ID for name in item.split("_"))}


@pytest.fixture
def workspace(data_dir: Path) -> Workspace:
    """The keyword-contains metric as the draft: hackable on the example's labels."""
    found = Workspace(data_dir)
    found.drafts.replace(world.CONTAINS.replace('expected["label"]', '(expected or {}).get("label", "-")'), "test")
    return found


def shown(elements) -> list[str]:
    """The texts of ``elements`` as a person reads them (markdown's escapes removed)."""
    return [item.value.replace("\\", "") for item in elements]


def finished(at) -> bool:
    return any("An optimizer can game" in item.value for item in at.error) or any(
        "The metric held" in item.value for item in at.success
    )


def test_the_plan_shows_before_a_run_and_a_run_leads_with_the_verdict(workspace: Workspace) -> None:
    at = open_app("stress")
    assert any("Planned: 72 of 72 cases" in text for text in shown(at.markdown))
    assert [item.value for item in at.info] == ["No stress test has run on this dataset yet."]
    button(at, "Run the stress test").click().run()
    run_until(at, finished, timeout=180, what="the verdict")
    verdict = next(item.value for item in at.error)
    assert verdict.startswith("An optimizer can game this metric: it is ") and "hackable (smuggle_expected" in verdict
    titles = [item.value for item in at.markdown if item.value.startswith("**hackable**")]
    assert titles and "of its cases" in titles[0]  # the worst example of the flag, before and after side by side
    assert any(item.value.startswith("Before · score") for item in at.caption)
    assert any(item.value.startswith("After `smuggle_expected` · score") for item in at.caption)
    saved = workspace.stress.latest()
    assert saved is not None and saved.report.verdict.has(Flag.HACKABLE)
    assert len(at.dataframe[0].value) == 15


def test_a_sound_metrics_report_says_it_held_and_that_its_feedback_changes(
    workspace: Workspace, tmp_path: Path
) -> None:
    """A sound metric on ticket labels (a quarter of the answers wrong): the report says it held, in English and
    in Chinese, and counts no feedback that stays the same when the output gets worse."""
    workspace.data.save_choice(str(world.write_cases(tmp_path / "tickets.jsonl", count=20)))
    workspace.drafts.replace(world.SOUND, "test")
    job = workspace.stress.start(JobSlot(), StressForm(cases=20))
    assert job.wait(120) and job.result is not None
    at = open_app("stress")
    assert [item.value for item in at.error] == []
    assert any("The metric held" in item.value for item in at.success)
    static = "Feedback that does not change when the output gets worse: 0 of "
    assert any(static in text for text in shown(at.caption)), shown(at.caption)
    chinese = open_app("stress", language="zh_CN")
    assert any("指标经受住了考验" in item.value for item in chinese.success)


def test_the_form_is_kept_in_the_workspace(workspace: Workspace) -> None:
    workspace.stress.set_form(StressForm(cases=12, seed=4))
    at = open_app("stress")
    assert at.session_state[K.STRESS_CASES] == 12 and at.session_state[K.STRESS_SEED] == 4
    assert any("Planned: 12 of 72 cases" in text for text in shown(at.markdown))
    at.number_input(key=K.STRESS_CASES).set_value(20).run()
    assert workspace.stress.form().cases == 20


def test_a_search_without_models_says_what_to_set(workspace: Workspace) -> None:
    workspace.stress.set_form(StressForm(search=True))
    at = open_app("stress")
    assert any("task model" in item.value for item in at.warning)
    assert button(at, "Run the stress test").disabled


def test_the_report_in_chinese_has_no_english_left(workspace: Workspace) -> None:
    job = workspace.stress.start(JobSlot(), StressForm(cases=20))
    assert job.wait(120) and job.result is not None
    at = open_app("stress", language="zh_CN")
    assert any("优化器可以钻这个指标的空子" in item.value for item in at.error)
    found = english_words(at, allowed=ALLOWED)
    assert not found, found


def test_history_and_runs_show_the_versions_stress_verdict(workspace: Workspace, data_dir: Path) -> None:
    job = workspace.stress.start(JobSlot(), StressForm(cases=20))
    assert job.wait(120)
    metric = workspace.drafts.current().metric
    workspace.drafts.save_version("tested")
    data = load_example()
    RunStore(data_dir).save(
        RunKey.of(data, data.candidates[0], None, metric.files["metric.py"]),
        [],
        metric_source=metric.files["metric.py"],
    )
    at = open_app("history")
    assert any("B: stress: " in text and "hackable (smuggle_expected" in text for text in shown(at.caption))
    go_to(at, "runs")
    assert any(text.startswith("stress: ") and "hackable (smuggle_expected" in text for text in shown(at.caption))


def test_a_run_with_the_exploit_search_shows_the_rewrite_it_found(workspace: Workspace) -> None:
    from skynet_core.llm import ModelConfig, ModelSettings

    with world.server() as server:
        models = world.models(server.url)
        workspace.settings.save_models(
            ModelSettings(
                metric=ModelConfig("openai/judge", server.url), task=models.task, reflection=models.reflection
            )
        )
        workspace.drafts.replace(world.JUDGE.replace("expected['label']", "(expected or {}).get('label')"), "test")
        workspace.stress.set_form(StressForm(cases=6, search=True, rounds=1))
        at = open_app("stress", state={K.LLM_KEYS: {"metric": "sk-unused", "task": "sk-unused", "reflection": "x"}})
        assert any("task calls" in text for text in shown(at.caption))  # the plan counts the search's calls
        button(at, "Run the stress test").click().run()
        run_until(at, finished, timeout=240, what="the verdict")
    assert any(text == "**Exploit search**" for text in shown(at.markdown))
    assert any("The best rewrite took the mean score of" in text for text in shown(at.markdown))
    assert world.ATTACK in [item.value for item in at.text]  # the rewrite, shown literally
