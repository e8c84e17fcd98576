"""What one server shares and bounds across every session: the answer cache of the metric's ``llm()`` calls
(on or off, its bound, how full it is, emptying it) and the cap on sandboxes alive at once (its queue).

Both are settings of the data directory, read by every session: the cache's is ``llm.cache``
(:mod:`skynet_core.llm.cache`), the cap's ``runner.max_sandboxes`` (:mod:`skynet_core.scoring.runner.limit`; the
cap itself is process-wide, set from the setting when the workspace opens and whenever it is saved).
"""

from __future__ import annotations

from ..llm.cache import CacheSetting, CacheUsage, LlmCache, cache_setting, save_cache_setting, studio_cache
from ..scoring.runner.limit import MAX_CAPACITY, QueueView, capacity_from_setting, default_capacity, sandbox_limit
from ..scoring.runner.limit import SETTING_KEY as SETTING_MAX_SANDBOXES
from ..store import Store


class Bounds:
    """The answer cache and the sandbox cap of ``store``'s data directory (settings every session shares)."""

    def __init__(self, store: Store) -> None:
        self.store = store

    def answer_cache(self) -> LlmCache:
        """The answer cache of this data directory, bounded by the saved setting (used while it is on)."""
        return studio_cache(self.store)

    def cache_setting(self) -> CacheSetting:
        """Whether answers are cached and the cache's bound (on, 100 MB, unless saved otherwise)."""
        return cache_setting(self.store)

    def save_cache_setting(self, setting: CacheSetting) -> None:
        """Save the cache's setting: the next run uses it (a smaller bound evicts at the next answer stored)."""
        save_cache_setting(self.store, setting)
        self.answer_cache()

    def cache_usage(self) -> CacheUsage:
        """How many answers the cache holds, and their size against its bound."""
        return self.answer_cache().usage()

    def clear_cache(self) -> None:
        """Forget every cached answer: the next run asks the model for every call."""
        self.answer_cache().clear()

    def sandbox_cap(self) -> int:
        """At most this many sandboxes run at once across every session and job (the saved setting, else
        twice the cores and at least 8)."""
        return capacity_from_setting(self.store.get(SETTING_MAX_SANDBOXES))

    def default_sandbox_cap(self) -> int:
        """The cap when none is saved (from the core count, or ``SKYNET_MAX_SANDBOXES``)."""
        return default_capacity()

    def set_sandbox_cap(self, cap: int | None) -> None:
        """Save the cap (1 to 256; ``None``: back to the default) and apply it now, to every session's jobs."""
        if cap is not None and not 1 <= cap <= MAX_CAPACITY:
            raise ValueError(f"the sandbox cap must be from 1 to {MAX_CAPACITY}, not {cap}")
        if cap is None:
            self.store.delete(SETTING_MAX_SANDBOXES)
        else:
            self.store.set(SETTING_MAX_SANDBOXES, cap)
        sandbox_limit().set_capacity(self.sandbox_cap())

    def apply_sandbox_cap(self) -> None:
        """Make the saved cap the process's (done when the workspace opens)."""
        sandbox_limit().set_capacity(self.sandbox_cap())

    def sandbox_queue(self) -> QueueView:
        """Who holds sandboxes now and which jobs wait for one, in the order they will be served."""
        return sandbox_limit().view()
