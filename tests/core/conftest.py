"""Fixtures of the core tests: a scripted model server on 127.0.0.1, a plain workspace (``ws``), and no provider
key or model from the environment the tests run in (a module that needs another server defines its own
``server``; one that needs the server's own key asks for ``env_key``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from skynet_core.scoring.runner import WorkerPool
from skynet_core.workspace import Workspace
from skynet_core.workspace.jobs import JobBoard
from tests.fake_openai import FakeOpenAI
from tests.provider_keys import ENV_KEY

PROVIDER_VARIABLES = (
    "OPENAI_API_KEY",
    "ANTHROPIC_API_KEY",
    "SKYNET_METRIC_MODEL",
    "SKYNET_REFLECTION_MODEL",
    "SKYNET_METRIC_API_BASE",
    "SKYNET_REFLECTION_API_BASE",
)


@pytest.fixture
def server() -> Iterator[FakeOpenAI]:
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture(autouse=True)
def no_provider_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """No test may find a real key, model or API base in the environment it runs in."""
    for name in PROVIDER_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def env_key(monkeypatch: pytest.MonkeyPatch) -> str:
    """The server's environment holds a provider key (``ENV_KEY``), as a deployed studio's would, and names no
    model or API base."""
    monkeypatch.setenv("OPENAI_API_KEY", ENV_KEY)
    return ENV_KEY


@pytest.fixture
def ws(tmp_path: Path, pool: WorkerPool) -> Workspace:
    """A workspace on the test's data directory: the session's warm sandboxes, no model from the environment, and
    jobs kept on its board for a minute after they end (a module whose tests need more defines its own, named for
    what it adds)."""
    return Workspace(tmp_path, pool=pool, jobs=JobBoard(grace_s=60), env={})
