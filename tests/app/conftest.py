"""The page tests' own data directory: every AppTest starts on an empty studio, whatever the machine's environment;
and ``ws``, the example in use with a scored run to review and the rater "ana" (a module whose tests need another
workspace defines its own ``ws``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from skynet_core.paths import DATA_ROOTS_ENV
from skynet_core.store import DATA_DIR_ENV
from skynet_core.workspace import Workspace
from tests.case_factory import with_weak_run

# Model settings from the environment would change what the pages show; the tests set what they need.
MODEL_ENV = (
    "OPENAI_API_KEY",
    "SKYNET_METRIC_MODEL",
    "SKYNET_REFLECTION_MODEL",
    "SKYNET_METRIC_API_BASE",
    "SKYNET_REFLECTION_API_BASE",
    "SKYNET_TASK_MODEL",
    "SKYNET_TASK_API_BASE",
)


@pytest.fixture(autouse=True)
def data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The studio's data directory for this test (case files the test writes beside it may be opened)."""
    directory = tmp_path / "data"
    monkeypatch.setenv(DATA_DIR_ENV, str(directory))
    monkeypatch.setenv(DATA_ROOTS_ENV, str(tmp_path))
    for name in MODEL_ENV:
        monkeypatch.delenv(name, raising=False)
    return directory


@pytest.fixture
def ws(data_dir: Path) -> Workspace:
    """The example in use, with a run of the wrong metric (every third case scored 0, the others 1), and the rater
    "ana"."""
    workspace = Workspace(data_dir, env={})
    workspace.human.set_rater("ana")
    return with_weak_run(workspace)
