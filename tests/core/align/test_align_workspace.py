"""Align the judge as a workspace job: the plan before it starts (or why it cannot), the raters' ceiling, the run on
the job board with its progress, the result kept for the page, and "Save as a version" that leaves the draft alone."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from skynet_core.align import Outcome
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.paths import DATA_ROOTS_ENV
from skynet_core.results import JobKind
from skynet_core.workspace import AlignForm, Workspace
from skynet_core.workspace.jobs import JobBoard, JobSlot
from tests import align_world as world
from tests.fake_openai import FakeOpenAI, Received

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")
pytestmark = pytest.mark.timeout(600)


@pytest.fixture
def ws_aligning(tmp_path: Path, pool, monkeypatch: pytest.MonkeyPatch) -> Workspace:
    """The world's judge as the draft, its replies as the data in use and its labels kept, by rater ana."""
    monkeypatch.setenv(DATA_ROOTS_ENV, str(tmp_path))
    workspace = Workspace(tmp_path / "data", pool=pool, jobs=JobBoard(grace_s=60), env={})
    _metric, cases, labels = world.write(tmp_path)
    workspace.data.save_choice(str(cases))
    workspace.drafts.replace(world.METRIC, "test")
    workspace.human.import_scores("labels.jsonl", labels.read_bytes())
    return workspace


def use_models(ws_aligning: Workspace, url: str) -> None:
    ws_aligning.settings.save_models(
        ModelSettings(
            metric=ModelConfig("openai/judge", url), reflection=ModelConfig("openai/reflect", url), max_retries=0
        )
    )


def test_the_setup_plans_the_calls_before_anything_runs(ws_aligning: Workspace) -> None:
    with world.server() as server:
        use_models(ws_aligning, server.url)
        setup = ws_aligning.align.setup(AlignForm(rounds=3))
        assert server.requests == []
    assert setup.refusal is None and setup.plan is not None and setup.labelled == 48
    lines = setup.plan.describe()
    assert lines[0].startswith("Planned: at most") and "3 reflection calls" in lines[0]
    assert "Optimized: RUBRIC. 48 labelled cases (24 with a note), split 24 train, 12 dev, 12 test" in lines[1]
    assert setup.ceiling == ()  # one rater: no ceiling to show


def test_the_job_aligns_the_draft_keeps_its_result_and_saving_leaves_the_draft_alone(ws_aligning: Workspace) -> None:
    with world.server() as server:
        use_models(ws_aligning, server.url)
        job = ws_aligning.align.start(JobSlot(), AlignForm(rounds=2), keys={}, watcher="tab-1")
        assert job.kind is JobKind.ALIGN and job.total == 5
        assert job.wait(300)
    result = job.result
    assert result is not None and result.outcome is Outcome.COMPLETE
    assert result.gain is not None and result.gain.low is not None and result.gain.low > 0
    assert job.done == job.total and (progress := ws_aligning.align.progress(job)) is not None and progress.done == 5
    assert ws_aligning.align.latest() is result
    draft = ws_aligning.drafts.current()
    saved = ws_aligning.align.save_version(result, "aligned")
    assert saved.created and ws_aligning.drafts.current() == draft  # the draft is never replaced unasked
    text = saved.version.folder.files["metric.py"]
    assert text.replace(result.final["RUBRIC"], world.RUBRIC) == world.METRIC and world.POLICY in text
    ws_aligning.align.open(saved.version)
    assert ws_aligning.drafts.current().metric == result.aligned


def test_too_few_labels_are_refused_before_any_call(tmp_path: Path, pool, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(DATA_ROOTS_ENV, str(tmp_path))
    _metric, cases, _labels = world.write(tmp_path)
    few = Workspace(tmp_path / "data", pool=pool, jobs=JobBoard(grace_s=60), env={})
    few.data.save_choice(str(cases))
    few.drafts.replace(world.METRIC, "test")
    rows = [json.dumps({"id": f"t{i:02d}", "human": "fail" if i % 2 else "pass"}) for i in range(10)]
    few.human.import_scores("few.jsonl", ("\n".join(rows) + "\n").encode())
    with world.server() as server:
        use_models(few, server.url)
        setup = few.align.setup(AlignForm())
        with pytest.raises(ValueError, match="at least 20 labelled cases"):
            few.align.start(JobSlot(), AlignForm())
        assert server.requests == []
    assert setup.plan is None and setup.refusal is not None and "label 10 more" in setup.refusal


def test_without_a_reflection_model_it_says_what_to_set(ws_aligning: Workspace) -> None:
    setup = ws_aligning.align.setup(AlignForm())
    assert setup.refusal is not None and '"Reflection model" on Settings' in setup.refusal


def test_two_raters_show_their_agreement_first(ws_aligning: Workspace) -> None:
    rows = [json.dumps({"id": f"t{i:02d}", "human": 1.0 if i % 2 == 0 or i % 7 == 0 else 0.0}) for i in range(30)]
    ws_aligning.human.import_scores("bo.jsonl", ("\n".join(rows) + "\n").encode(), rater="bo")
    (pair, found), = ws_aligning.align.setup(AlignForm()).ceiling  # fmt: skip
    assert {pair.first, pair.second} == {"ana", "bo"} and found.n == 30
    assert found.kappa.value is not None and 0 < found.kappa.value < 1


def test_the_form_is_kept_and_a_bad_stored_value_takes_the_default(ws_aligning: Workspace) -> None:
    ws_aligning.align.set_form(AlignForm(rounds=5, max_cost_usd=0.25, seed=3, rater="ana"))
    assert ws_aligning.align.form() == AlignForm(5, 0.25, 3, "ana")
    assert AlignForm.from_json({"rounds": "x", "max_cost_usd": float("nan"), "rater": 3}) == AlignForm()


def test_cancel_stops_the_job_before_its_next_call_and_claims_nothing(ws_aligning: Workspace) -> None:
    reflecting, release = threading.Event(), threading.Event()

    def reply(received: Received) -> str:
        if received.model == "reflect":
            reflecting.set()
            release.wait(30)
        return world.reply(received)

    with FakeOpenAI(reply=reply) as server:
        use_models(ws_aligning, server.url)
        job = ws_aligning.align.start(JobSlot(), AlignForm(rounds=3), keys={}, watcher="tab-1")
        assert reflecting.wait(120)
        assert job in ws_aligning.jobs.running("tab-1")
        job.cancel.set()
        release.set()
        assert job.wait(120)
        made = len(server.requests)
    assert job.result is None and job.outcome().status.value == "cancelled"  # the job board's way
    result = ws_aligning.align.latest()  # what the run measured before the Cancel, kept for the page
    assert result is not None and result.outcome is Outcome.CANCELLED
    assert result.after is None and result.gain is None and "cancelled" in result.message()
    assert made == result.calls.judge + result.calls.reflection  # nothing was asked after the Cancel
