"""The uplift experiment as a workspace job: the draft metric on the cases in use, the task and reflection models of
the settings, listed under Running jobs, cancellable, with progress, its result saved with the metric version.

Scripted task and reflection models on 127.0.0.1 (uplift_world.py): a world where the metric's feedback helps.
"""

from __future__ import annotations

import threading
import time

import pytest

from skynet_core.engines.uplift import Arm, Outcome, UpliftConfig
from skynet_core.engines.uplift.config import DEFAULT_ROUNDS
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.paths import DATA_ROOTS_ENV
from skynet_core.results import JobKind
from skynet_core.workspace import UpliftForm, Workspace
from skynet_core.workspace.jobs import JobBoard, JobSlot
from tests import uplift_world as world
from tests.fake_openai import FakeOpenAI

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")

SMALL = UpliftConfig(world.START, rounds=2, seeds=2, minibatch=3)


@pytest.fixture
def ws_with_tickets(tmp_path, pool, monkeypatch) -> Workspace:
    """A workspace whose draft is the world's metric and whose dataset in use is the world's tickets."""
    monkeypatch.setenv(DATA_ROOTS_ENV, str(tmp_path))
    workspace = Workspace(tmp_path / "data", pool=pool, jobs=JobBoard(grace_s=60), env={})
    workspace.data.save_choice(str(world.write_cases(tmp_path / "tickets.jsonl")))
    workspace.drafts.replace(world.METRIC, "test")
    return workspace


def use_models(ws_with_tickets: Workspace, url: str, *, task: bool = True, reflection: bool = True) -> None:
    chosen = world.models(url)
    ws_with_tickets.settings.save_models(
        ModelSettings(
            task=chosen.task if task else None,
            reflection=chosen.reflection if reflection else None,
            max_retries=0,
        )
    )


def test_the_job_runs_the_draft_on_the_cases_in_use_and_saves_the_result_with_the_metric_version(
    ws_with_tickets,
) -> None:
    with world.server() as server:
        use_models(ws_with_tickets, server.url)
        job = ws_with_tickets.uplift.start(JobSlot(), SMALL, keys={}, watcher="tab-1")
        assert job.kind is JobKind.UPLIFT and job.total == 1 + 2 * (2 + 1)
        assert job.wait(120)
    result = job.result
    assert result is not None and result.complete
    assert job.done == job.total and ws_with_tickets.uplift.progress(job).done == job.total
    assert result.arms[Arm.FEEDBACK].gain.value > 0 and result.arms[Arm.SCORE_ONLY].gain.value == 0
    assert result.calls.task + result.calls.reflection == len(server.requests)

    draft = ws_with_tickets.drafts.current().metric
    (summary,) = ws_with_tickets.uplift.results(metric=draft.digest)
    assert summary.provenance.dataset == ws_with_tickets.data.in_use().data.source
    assert summary.feedback_value == result.feedback_value
    assert ws_with_tickets.uplift.feedback_value_of(draft.digest, ws_with_tickets.data.in_use().data.source) == summary
    saved = ws_with_tickets.uplift.latest()
    assert saved is not None and saved.metric == draft and saved.result.feedback_value == result.feedback_value


def test_the_job_is_listed_under_running_jobs_and_its_cancel_keeps_the_finished_seeds(ws_with_tickets) -> None:
    second_seed = threading.Event()
    release = threading.Event()

    def reply(received):
        # Hold every call once the first seed is done, until the test has seen the job and cancelled it.
        if second_seed.is_set():
            release.wait(30)
        return world.reply(received)

    with FakeOpenAI(reply=reply, usage=(100, 20)) as server:
        use_models(ws_with_tickets, server.url)
        slot = JobSlot()
        job = ws_with_tickets.uplift.start(
            slot, UpliftConfig(world.START, rounds=1, seeds=3, minibatch=3), watcher="tab-1"
        )
        while (
            not (ws_with_tickets.uplift.progress(job) and ws_with_tickets.uplift.progress(job).seed == 1)
            and not job.finished
        ):
            time.sleep(0.02)
        second_seed.set()
        assert job in ws_with_tickets.jobs.running("tab-2")  # every session lists it, and may cancel it
        ws_with_tickets.jobs.cancel(job.id)
        release.set()
        assert job.wait(60)
    assert job.cancelled and job.result is None
    saved = ws_with_tickets.uplift.latest()
    assert saved is not None and saved.result.outcome is Outcome.CANCELLED
    assert saved.result.seeds_finished == 1
    assert "cancelled" in saved.result.message()


def test_without_a_task_model_nothing_starts_and_the_message_says_what_to_set(ws_with_tickets) -> None:
    use_models(ws_with_tickets, "http://127.0.0.1:9", task=False)
    slot = JobSlot()
    with pytest.raises(ValueError, match="needs a task model"):
        ws_with_tickets.uplift.start(slot, SMALL)
    assert slot.job is None and ws_with_tickets.jobs.running() == []
    use_models(ws_with_tickets, "http://127.0.0.1:9", task=False, reflection=False)
    with pytest.raises(ValueError, match="task model .* and a reflection model"):
        ws_with_tickets.uplift.plan(SMALL)


def test_the_plan_counts_the_calls_of_the_cases_in_use(ws_with_tickets) -> None:
    use_models(ws_with_tickets, "http://127.0.0.1:9")
    setup = ws_with_tickets.uplift.plan(SMALL)
    plan, val = setup.plan, len([case for case in world.cases() if case.split == "val"])
    assert plan.validation_cases == setup.val == val and setup.train == len(world.cases()) - val
    assert setup.from_dataset and f"the {val} cases of the val split" in setup.describe_cases()
    assert plan.reflection.calls == 2 * 3 * 2
    assert plan.cost_usd is None  # the scripted models have no price
    assert any("no known price" in line for line in plan.describe())


def test_too_few_cases_for_the_minibatch_is_said_before_anything_starts(ws_with_tickets) -> None:
    use_models(ws_with_tickets, "http://127.0.0.1:9")
    with pytest.raises(ValueError, match="fewer than the minibatch of 64"):
        ws_with_tickets.uplift.start(JobSlot(), UpliftConfig(world.START, minibatch=64))


def test_the_instruction_starts_from_the_datasets_own_and_is_kept_per_dataset(tmp_path, pool) -> None:
    workspace = Workspace(tmp_path, pool=pool, env={})
    example = workspace.data.in_use()
    assert workspace.uplift.instruction().startswith("You triage customer support tickets")
    workspace.drafts.set_instruction(example.data.source, "Label the ticket.")
    assert Workspace(tmp_path, env={}).uplift.instruction() == "Label the ticket."


def test_the_experiments_size_is_kept_and_a_broken_stored_value_takes_the_default(tmp_path) -> None:
    workspace = Workspace(tmp_path, env={})
    assert workspace.uplift.form() == UpliftForm()
    workspace.uplift.set_form(UpliftForm(rounds=5, seeds=4, minibatch=2, max_cost_usd=0.5))
    assert Workspace(tmp_path, env={}).uplift.form() == UpliftForm(5, 4, 2, 0.5)
    workspace.store.set("uplift.form", {"rounds": "many", "seeds": True, "max_cost_usd": float("nan")})
    assert workspace.uplift.form() == UpliftForm(rounds=DEFAULT_ROUNDS)
    with pytest.raises(ValueError, match="rounds must be a whole number"):
        UpliftForm(rounds=0).config(world.START)


def test_clearing_the_workspace_forgets_the_saved_experiments(ws_with_tickets) -> None:
    with world.server() as server:
        use_models(ws_with_tickets, server.url)
        job = ws_with_tickets.uplift.start(JobSlot(), UpliftConfig(world.START, rounds=1, seeds=1, minibatch=2))
        assert job.wait(120)
    assert ws_with_tickets.uplift.results()
    ws_with_tickets.clear()
    assert ws_with_tickets.uplift.results() == [] and ws_with_tickets.uplift.latest() is None


def test_the_session_keys_of_the_task_and_reflection_models_reach_their_calls(ws_with_tickets) -> None:
    keys = {"task": "sk-task-session-0000", "reflection": "sk-reflect-session-0000"}
    with FakeOpenAI(reply=world.reply, usage=(100, 20)) as server:
        ws_with_tickets.settings.save_models(
            ModelSettings(
                task=ModelConfig("openai/task", server.url),
                reflection=ModelConfig("openai/reflect", server.url),
                max_retries=0,
            )
        )
        job = ws_with_tickets.uplift.start(
            JobSlot(), UpliftConfig(world.START, rounds=1, seeds=1, minibatch=2), keys=keys
        )
        assert job.wait(120)
    assert job.result is not None and job.result.complete, job.result and job.result.error
    sent = {(request.model, request.authorization) for request in server.requests}
    assert sent == {("task", "Bearer sk-task-session-0000"), ("reflect", "Bearer sk-reflect-session-0000")}
