"""Counts in the uplift report take the plural forms of the language ("over 1 seed", "1 reflection call"), and a
cost the studio cannot know is said to be unknown, never $0."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from skynet_core.engines.uplift import Arm, Calls
from skynet_core.workspace import Workspace
from tests.app.harness import open_app
from tests.case_factory import with_weak_run
from tests.uplift_saved import HELPS, save, saved_result
from ui import keys as K

ONE_SEED = {arm: ends[:1] for arm, ends in HELPS.items()}


@pytest.fixture
def scored(data_dir: Path) -> Workspace:
    return with_weak_run(Workspace(data_dir), "test")


def shown(language: str | None = None) -> str:
    at = open_app("feedback", language=language, state={K.UPLIFT_OPEN: True}, timeout=180)
    parts = [*at.markdown, *at.caption, *at.success, *at.warning, *at.info]
    return "\n".join(str(item.value) for item in parts).replace("\\", "")


def test_one_seed_and_one_call_are_said_in_the_singular(scored: Workspace) -> None:
    result = saved_result(scored, ONE_SEED)
    save(scored, replace(result, calls=Calls(1, 1), created_at=result.created_at + 1))
    found = shown()
    assert "gain with feedback − gain with the score only, over 1 seed" in found
    assert "over 1 seeds" not in found
    assert "Calls: 1 task call and 1 reflection call · cost $0.0123" in found
    assert "The experiment finished: 1 seed in every arm." in found
    assert "Start: the given instruction scores 0.250 on the 14 validation cases." in found


def test_an_unknown_cost_is_said_to_be_unknown(scored: Workspace) -> None:
    result = saved_result(scored, HELPS)
    save(scored, replace(result, unpriced=("openai/task",), created_at=result.created_at + 1))
    found = shown()
    assert "cost unknown · no price known for openai/task: enter one on the Settings page" in found
    assert "$0.0123" not in found
    assert result.arms[Arm.FEEDBACK].ends  # the report itself is drawn
