"""The task model in the settings: the model that runs an instruction on a case for "Does this feedback help?".

Saved like the other models (never its key), read from SKYNET_TASK_MODEL / SKYNET_TASK_API_BASE, its key kept to
the session, drawn by the Settings form, and never the model that answers metric code's llm().
"""

from __future__ import annotations

from skynet_core.llm import ROLES, ModelConfig, ModelSettings, env_api_bases, env_keys_allowed, make_handler
from skynet_core.scoring.runner.values import LlmRequest
from skynet_core.store import Store
from skynet_core.views.settings import form_values, not_set_note, settings_from_form, typed_keys
from skynet_core.workspace import Workspace
from skynet_core.workspace.uplift import missing_models
from tests.fake_openai import FakeOpenAI

TASK_ENV = {"SKYNET_TASK_MODEL": "openai/env-task", "SKYNET_TASK_API_BASE": "http://127.0.0.1:9/v1"}


def test_the_task_model_comes_from_its_environment_variables() -> None:
    assert "task" in ROLES
    settings = ModelSettings.from_env(TASK_ENV)
    assert settings.task == ModelConfig("openai/env-task", "http://127.0.0.1:9/v1")
    assert settings.metric is None and settings.reflection is None
    assert ModelSettings.from_env({"SKYNET_TASK_API_BASE": "http://127.0.0.1:9/v1"}).task.model == "openai/default"


def test_an_api_base_of_the_task_model_set_in_the_environment_may_carry_the_servers_keys() -> None:
    assert "http://127.0.0.1:9/v1" in env_api_bases(TASK_ENV)
    assert env_keys_allowed(ModelConfig("openai/x", "http://127.0.0.1:9/v1/"), TASK_ENV)
    assert not env_keys_allowed(ModelConfig("openai/x", "http://127.0.0.1:10/v1"), TASK_ENV)


def test_the_saved_task_model_is_kept_without_its_key_and_wins_over_the_environment(tmp_path) -> None:
    workspace = Workspace(tmp_path, env=TASK_ENV)
    assert workspace.settings.models().task.model == "openai/env-task"
    typed = ModelConfig(
        "openai/saved-task", "http://127.0.0.1:8/v1", api_key="sk-task-secret-1234", price_per_million=(1, 2)
    )
    workspace.settings.save_models(ModelSettings(task=typed))
    assert "sk-task-secret" not in (tmp_path / "studio.sqlite3").read_bytes().decode("utf-8", "replace")
    again = Workspace(tmp_path, env=TASK_ENV).settings.models()
    assert again.task == ModelConfig("openai/saved-task", "http://127.0.0.1:8/v1", price_per_million=(1.0, 2.0))
    assert again.task.api_key is None
    assert workspace.settings.models({"task": "sk-session"}).task.api_key == "sk-session"
    assert ("SKYNET_TASK_MODEL", "openai/env-task") in workspace.settings.environment_defaults()


def test_settings_saved_before_the_task_model_existed_take_it_from_the_environment(tmp_path) -> None:
    store = Store(tmp_path)
    store.set("llm.settings", {"metric": {"model": "openai/judge"}, "reflection": None, "temperature": 0.0})
    settings = Workspace(tmp_path, env=TASK_ENV).settings.models()
    assert settings.metric.model == "openai/judge" and settings.task.model == "openai/env-task"


def test_the_form_draws_the_task_model_and_reads_it_back() -> None:
    settings = ModelSettings(task=ModelConfig("openai/task", "http://127.0.0.1:8/v1", price_per_million=(0.5, 1.5)))
    values = form_values(settings, "")
    assert values["settings.task.model"] == "openai/task" and values["settings.task.key"] == ""
    assert settings_from_form(values, {}).to_stored() == settings.to_stored()
    values["settings.task.key"] = "sk-typed-task"
    assert typed_keys(values) == {"task": "sk-typed-task"}
    assert settings_from_form(values, {}).task.api_key == "sk-typed-task"
    values["settings.task.model"] = ""
    assert settings_from_form(values, {}).task is None
    assert "Does this feedback help?" in (not_set_note("task", ModelSettings()) or "")
    assert not_set_note("task", settings) is None


def test_the_task_model_never_answers_metric_codes_llm_calls() -> None:
    only_task = ModelSettings(task=ModelConfig("openai/task", "http://127.0.0.1:9/v1"))
    assert only_task.effective() is None
    assert missing_models(only_task) == ("reflection",)
    assert missing_models(ModelSettings()) == ("task", "reflection")
    with FakeOpenAI(reply=lambda received: received.user or "") as server:
        settings = ModelSettings(
            metric=ModelConfig("openai/judge", server.url),
            task=ModelConfig("openai/task", server.url, api_key="zebra-task-credential-9876"),
            max_retries=0,
        )
        reply = make_handler(settings)(LlmRequest("Judge.", "echo zebra-task-credential-9876", 1))
    assert [request.model for request in server.requests] == ["judge"]
    assert "zebra-task-credential-9876" not in str(reply.get("text"))  # a task key echoed back is redacted too
