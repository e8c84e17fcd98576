"""A cache of the metric's ``llm()`` answers, so that scoring again after an edit that left the calls alone
costs no model call.

What is keyed (:class:`AnswerRequest`): everything :func:`skynet_core.llm.complete` sends that can change
the answer, and nothing else: the model, the API base, the instructions, the input, the temperature, a
mock response, and ``repeat``, the number of identical calls the same case made before this one (a metric
that asks the same question five times to take a vote gets five answers, each cached). Never the key:
a request's credentials, timeout and retries change how it is made, not what comes back
(:data:`NEUTRAL_PARAMETERS`; a test pins that every parameter ``complete`` sends is one or the other).

Where it lives: its own SQLite file in the data directory (:data:`CACHE_DB_NAME`), shared by the app and
the command line, bounded to ``max_mb`` (least recently used out, :data:`DEFAULT_MAX_MB` unless the
``llm.cache`` setting says otherwise). Answers are stored redacted (as the metric receives them), with the
tokens and cost of the call that made them; a cached answer costs nothing, and its trace says so.

Identical calls in flight at the same moment are made once (:meth:`LlmCache.answer`): the others wait for
the first one's answer (or its error).

Who bypasses it: the command line's ``--no-cache``, the ``llm.cache`` setting turned off, and every
measurement of variance (judge consistency asks the model afresh for each run, and says so). Errors are
never cached.

A case scored again gets the answers of the calls it made last time sent ahead with it, sealed by their
requests, so that those calls are answered in the sandbox without a round trip (``skynet_core.llm.ahead``).

Behind this face: ``_key`` (what makes two calls the same call), ``_answer`` (an answer as kept, where it
came from), ``_file`` (the SQLite file, the answers held in memory, identical calls made once),
``_calls`` (which calls each case made last time) and ``_setting`` (the ``llm.cache`` setting).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, cast

from ...i18n import N_
from ...store import data_dir
from ._answer import CachedAnswer, Source
from ._calls import CaseCalls, RecordedCall
from ._file import CACHE_DB_NAME, CacheUsage, LlmCache
from ._key import KEYED_PARAMETERS, NEUTRAL_PARAMETERS, AnswerRequest, Repeats
from ._setting import MAX_MB_RANGE, SETTING_KEY, CacheSetting, cache_setting, save_cache_setting

if TYPE_CHECKING:
    from ...scoring.runner.values import LlmHandler
    from ...store import Store

FRESH_ANSWERS = N_("Every run asks the model afresh: the answer cache is not used, so the spread is the model's own.")
"""What a measurement of variance says about the cache (judge consistency). Marked for translation."""


def without_cache(handler: LlmHandler | None) -> LlmHandler | None:
    """``handler`` asking the model every time (its ``without_cache()``), for measurements of variance;
    a handler that has no cache (or None) as it is."""
    fresh = getattr(handler, "without_cache", None)
    return cast("LlmHandler", fresh()) if callable(fresh) else handler


_caches: dict[Path, LlmCache] = {}
_caches_lock = threading.Lock()


def answer_cache(directory: str | Path | None = None, max_bytes: int | None = None) -> LlmCache:
    """The process's cache of the data directory ``directory`` (the data directory when None): one per
    directory, so that identical calls of every run in the process are made once. ``max_bytes`` sets its
    bound when given."""
    folder = Path(directory) if directory is not None else data_dir()
    with _caches_lock:
        cache = _caches.get(folder)
        if cache is None:
            cache = _caches[folder] = LlmCache(folder)
    if max_bytes is not None:
        cache.max_bytes = max_bytes
    return cache


def studio_cache(store: Store | None) -> LlmCache:
    """The cache of ``store``'s data directory (the data directory when None), bounded by its ``llm.cache``
    setting. Whether a run uses it is :attr:`skynet_core.llm.ModelSettings.cache`'s to say."""
    return answer_cache(store.directory if store is not None else None, cache_setting(store).max_bytes)


__all__ = [
    "CACHE_DB_NAME",
    "FRESH_ANSWERS",
    "KEYED_PARAMETERS",
    "MAX_MB_RANGE",
    "NEUTRAL_PARAMETERS",
    "SETTING_KEY",
    "AnswerRequest",
    "CacheSetting",
    "CacheUsage",
    "CachedAnswer",
    "CaseCalls",
    "LlmCache",
    "RecordedCall",
    "Repeats",
    "Source",
    "answer_cache",
    "cache_setting",
    "save_cache_setting",
    "studio_cache",
    "without_cache",
]
