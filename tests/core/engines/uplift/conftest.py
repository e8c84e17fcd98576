"""The command line's uplift tests: the world's metric folder and cases (``folder``), and its scripted models
(``served``)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests import uplift_world as world
from tests.fake_openai import FakeOpenAI


@pytest.fixture
def folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A metric folder and its cases, a data directory of its own, and no models in the environment."""
    world.write_folder(tmp_path)
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path / "data"))
    for name in world.MODEL_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    return tmp_path


@pytest.fixture
def served(folder: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeOpenAI]:
    """The world's scripted server, as the environment's task and reflection models."""
    with world.server() as server:
        world.use_server(monkeypatch, server.url)
        yield server
