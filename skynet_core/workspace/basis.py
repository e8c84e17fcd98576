"""What the experiment services (uplift, align, stress) run from: the draft, the data in use, the settings' scorer and
run options, the jobs that run them, and where each keeps its form (a setting of the workspace)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..store import DEFAULT_WORKSPACE, Store
from .data import Data
from .drafts import Drafts
from .settings import Settings
from .usecases import UseCases
from .values import scoped_key


@dataclass(frozen=True)
class Basis:
    """The services an experiment uses (``drafts``, ``data``, ``settings``, ``jobs``), and ``store``, where its form
    is kept under a key of workspace ``name``."""

    store: Store
    drafts: Drafts
    data: Data
    settings: Settings
    jobs: UseCases
    name: str = DEFAULT_WORKSPACE

    def form(self, key: str) -> Any:
        """The form kept under ``key`` (``None``: none was)."""
        return self.store.get(scoped_key(self.name, key))

    def keep_form(self, key: str, value: Any) -> None:
        """Keep a form's JSON ``value`` under ``key``: it survives a visit to another page and a reload."""
        self.store.set(scoped_key(self.name, key), value)
