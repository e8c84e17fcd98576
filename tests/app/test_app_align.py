"""Human scores' "Align the judge" in AppTest: closed, it draws nothing; open, the plan before a run or why it cannot
start (no reflection model; too few labels, with what to do, and no model asked); a finished alignment drawn whole
(verdict, figures, diff, rounds chart, calls) in English, then in a new session in Chinese; "Save as a version" keeps
the draft. Scripted judge and reflection models on 127.0.0.1 (tests/align_world.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.workspace import Workspace, workspace_for
from tests import align_world as world
from tests.app.harness import button, open_app, run_until, speaking
from ui import keys as K

pytest.importorskip("gepa", reason="gepa==0.1.4 is a requirement")
pytestmark = pytest.mark.timeout(600)


def seeded(data_dir: Path, labels: int | None = None) -> Workspace:
    """The app's workspace with the world's judge as the draft, its replies in use and ana's labels (the first
    ``labels`` of them, or all) kept."""
    workspace = workspace_for(data_dir)
    _metric, cases, labels_file = world.write(data_dir.parent)
    workspace.data.save_choice(str(cases))
    workspace.drafts.replace(world.METRIC, "test")
    rows = labels_file.read_text().splitlines()[:labels]
    workspace.human.import_scores("labels.jsonl", ("\n".join(rows) + "\n").encode(), rater="ana")
    return workspace


@pytest.fixture
def ws(data_dir: Path) -> Workspace:
    return seeded(data_dir)


def with_models(ws: Workspace, url: str) -> None:
    ws.settings.save_models(
        ModelSettings(metric=ModelConfig("openai/judge", url), reflection=ModelConfig("openai/reflect", url))
    )


def panel(language: str | None = None) -> AppTest:
    return open_app("human", language=language, state={K.ALIGN_OPEN: True}, timeout=180)


def texts(at: AppTest) -> str:
    parts = [item.value for kind in ("markdown", "caption", "info", "warning", "success") for item in getattr(at, kind)]
    return "\n".join(str(part) for part in parts).replace("\\", "")  # markdown escapes aside


def test_closed_it_draws_nothing_and_asks_nothing(ws: Workspace) -> None:
    at = open_app("human")
    assert "Planned: at most" not in texts(at) and not any(item.label == "Align the judge" for item in at.button)


def test_without_a_reflection_model_it_says_what_to_set_and_cannot_start(ws: Workspace) -> None:
    at = panel()
    assert '"Reflection model" on Settings' in texts(at)
    assert button(at, "Align the judge").disabled


def test_the_plan_shows_before_anything_runs(ws: Workspace) -> None:
    with world.server() as server:
        # The models are set once the app is on Human scores: opening the app draws the Author page first, whose
        # contract check of the draft may call the judge (3 sampled cases); only the plan's requests count here.
        at = panel()
        with_models(ws, server.url)
        at.run()
        assert server.requests == []
    shown = texts(at)
    assert "Planned: at most" in shown and "8 reflection calls (8 rounds)" in shown
    assert "split 24 train, 12 dev, 12 test" in shown and not button(at, "Align the judge").disabled
    at.number_input(key=K.ALIGN_ROUNDS).set_value(2).run()
    assert "2 reflection calls (2 rounds)" in texts(at)


def test_too_few_labels_are_refused_with_what_to_do_and_no_model_is_asked(data_dir: Path) -> None:
    ws = seeded(data_dir, labels=12)
    with world.server() as server:
        with_models(ws, server.url)
        at = panel()
        assert server.requests == []
    refused = texts(at)
    assert "needs at least 20 labelled cases of the candidate in use, and 12 are labelled" in refused
    assert "label 8 more on the Human scores page" in refused
    assert button(at, "Align the judge").disabled


def test_an_alignment_started_from_the_panel_is_drawn_whole_in_both_languages_and_saving_keeps_the_draft(
    ws: Workspace,
) -> None:
    """Started and drawn in English; a new session in Chinese finds it kept in the workspace, draws it whole and saves
    it as a version (one alignment for both: each is seconds of CPU)."""
    with world.server() as server:
        with_models(ws, server.url)
        at = panel()
        at.number_input(key=K.ALIGN_ROUNDS).set_value(1).run()
        button(at, "Align the judge").click().run()
        verdict = "The aligned judge agrees better with people on the 12 test cases it never saw"
        run_until(at, lambda at: verdict in texts(at), timeout=300, what="the alignment's verdict")
        assert any(world.POLICY in item.value for item in at.code)
        charts = [chart.proto.spec for chart in at.get("plotly_chart")]
        assert len(charts) == 2 and "before and after" in charts[0] and "round by round" in charts[1]
        shown = texts(at)
        assert "**Gain in κ** (paired, on the same test cases): " in shown
        assert "Calls that reached a model: " in shown
        with speaking("zh_CN"):
            at = panel("zh_CN")
            assert "校准后的评审在它从未见过的 12 个测试用例上与人工更一致" in texts(at)
            assert any(world.POLICY in item.value for item in at.code)
            assert len(at.get("plotly_chart")) == 2
            draft = ws.drafts.current()
            button(at, "另存为版本").click().run()
    assert "已另存为版本" in texts(at)
    assert ws.drafts.current() == draft  # the draft is never replaced unasked
    saved = ws.drafts.versions()[0].folder.files["metric.py"]
    assert world.POLICY in saved and saved.replace(world.POLICY + "\n", "") == world.METRIC  # the policy added alone
