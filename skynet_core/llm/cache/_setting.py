"""The ``llm.cache`` setting: whether answers are cached, and the cache's bound."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ...store import Store

SETTING_KEY = "llm.cache"
"""The store key of :class:`CacheSetting` (``{"enabled": bool, "max_mb": float}``)."""
DEFAULT_MAX_MB = 100.0
MAX_MB_RANGE = (1.0, 100_000.0)


@dataclass(frozen=True)
class CacheSetting:
    """The ``llm.cache`` setting: whether answers are cached, and the cache's bound in megabytes."""

    enabled: bool = True
    max_mb: float = DEFAULT_MAX_MB

    @property
    def max_bytes(self) -> int:
        return int(self.max_mb * 1_000_000)

    def to_stored(self) -> dict[str, Any]:
        return {"enabled": self.enabled, "max_mb": self.max_mb}

    @classmethod
    def from_stored(cls, value: Any) -> CacheSetting:
        """The setting saved as :meth:`to_stored`; a missing or unusable value takes its default."""
        if not isinstance(value, Mapping):
            return cls()
        enabled = value.get("enabled")
        given = value.get("max_mb")
        size = float(given) if isinstance(given, int | float) and not isinstance(given, bool) else math.nan
        low, high = MAX_MB_RANGE
        return cls(enabled if isinstance(enabled, bool) else True, size if low <= size <= high else DEFAULT_MAX_MB)


def cache_setting(store: Store | None) -> CacheSetting:
    """The saved ``llm.cache`` setting (on, :data:`DEFAULT_MAX_MB`, when nothing was saved)."""
    return CacheSetting.from_stored(store.get(SETTING_KEY) if store is not None else None)


def save_cache_setting(store: Store, setting: CacheSetting) -> None:
    store.set(SETTING_KEY, setting.to_stored())
