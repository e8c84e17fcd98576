"""Which models the studio calls, and how: the settings of the metric, reflection and task models, where
each comes from (Settings page, environment, defaults), and how they are kept (never a key).
"""

from __future__ import annotations

import math
import os
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from ..i18n import N_

if TYPE_CHECKING:
    from ..store import Store

NO_MODEL_MESSAGE = N_(
    "no model is configured for llm(): set SKYNET_METRIC_MODEL to a litellm model name (e.g. openai/gpt-4o-mini) "
    "and the provider's key variable (e.g. OPENAI_API_KEY), or point SKYNET_METRIC_API_BASE at an OpenAI-compatible "
    "server such as a local Ollama (http://127.0.0.1:11434/v1) or vLLM; the Settings page does the same"
)
"""Marked for translation: shown as ``_(NO_MODEL_MESSAGE)``."""
STORE_KEY = "llm.settings"
ROLES = ("metric", "reflection", "task")
"""The models the studio keeps: the metric model answers ``llm()``, the reflection model writes new versions,
the task model runs an instruction on a case (the feedback-uplift experiment). Only the first two answer ``llm()``."""
TEMPERATURE_RANGE = (0.0, 2.0)
TIMEOUT_RANGE_S = (1.0, 600.0)
CONCURRENCY_RANGE = (1, 64)
RETRIES_RANGE = (0, 10)
CALLS_PER_CASE_RANGE = (1, 10_000)
BUDGET_RANGE_USD = (0.0, 1_000_000.0)
API_BASE_KEY_RULE = N_(
    "The server's own keys (OPENAI_API_KEY, …) go only to the provider's endpoint or to an API base set in the "
    "server's environment (SKYNET_METRIC_API_BASE, SKYNET_REFLECTION_API_BASE, SKYNET_TASK_API_BASE). An API base "
    "typed here gets only "
    "a key typed here."
)


class LlmError(RuntimeError):
    """A model call failed; the message names the cause and the fix.

    ``kind`` is the class name of the provider's error (``RateLimitError``,
    ``AuthenticationError``…) or ``NoModel``/``NoKey`` when no call was made;
    ``retries``, ``latency_ms`` (the last attempt) and ``elapsed_ms`` (the whole
    call) say what the failed call took, for its trace.
    """

    def __init__(
        self,
        message: str,
        *,
        kind: str = "LlmError",
        retries: int = 0,
        latency_ms: float = 0.0,
        elapsed_ms: float = 0.0,
    ) -> None:
        super().__init__(message)
        self.kind, self.retries, self.latency_ms, self.elapsed_ms = kind, retries, latency_ms, elapsed_ms


@dataclass(frozen=True)
class ModelConfig:
    """One model: a litellm model name, an optional OpenAI-compatible API base, an optional key and price.

    The key is for this server process only: never written to disk, never shown
    in full, never sent into the metric's process (``repr`` hides it).
    ``price_per_million`` is (input, output) US dollars per million tokens; when
    set it is used instead of litellm's cost map (for models the map lacks).
    """

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)
    price_per_million: tuple[float, float] | None = None

    @property
    def masked_key(self) -> str:
        return mask(self.api_key)

    @property
    def provider(self) -> str:
        """The provider prefix of the litellm name (``openai`` in ``openai/gpt-4o-mini``), or ``""``."""
        return self.model.split("/", 1)[0] if "/" in self.model else ""

    def to_stored(self) -> dict[str, Any]:
        """What may be written to disk: everything but the key."""
        return {
            "model": self.model,
            "api_base": self.api_base,
            "price_per_million": list(self.price_per_million) if self.price_per_million else None,
        }


def mask(secret: str | None) -> str:
    """A key as people may see it again: its last four characters only."""
    if not secret:
        return ""
    return f"…{secret[-4:]}" if len(secret) > 8 else "…"


@dataclass(frozen=True)
class ModelSettings:
    """The metric model, the reflection model, the task model, and how calls are made.

    Metric code's ``llm()`` calls use the metric model, else the reflection model (:meth:`effective`); the task
    model only runs an instruction on a case for the feedback-uplift experiment, and is never given to metric code.

    ``concurrency`` is the number of cases (hence judge calls) in flight when the
    app scores a dataset. A call that fails with a rate limit, a timeout, a lost
    connection or a 5xx is tried again up to ``max_retries`` times, waiting
    ``backoff_s``, then twice that, … (at most 8 s, with jitter) in between.

    Spending is bounded (contract Part B rule 16): a case may make at most
    ``max_calls_per_case`` ``llm()`` calls, and a run may spend at most
    ``max_cost_usd`` (None: no budget) on them; going over ends the case with an
    error naming the limit. Calls whose cost is unknown count as free.

    ``cache``: answers are taken from the answer cache when it has them
    (:mod:`skynet_core.llm.cache`; saved as the ``llm.cache`` setting, not with
    these, and turned off by the command line's ``--no-cache``).
    """

    metric: ModelConfig | None = None
    reflection: ModelConfig | None = None
    task: ModelConfig | None = None
    temperature: float = 0.0
    request_timeout_s: float = 30.0
    max_retries: int = 2
    concurrency: int = 8
    backoff_s: float = 0.5
    max_calls_per_case: int = 50
    max_cost_usd: float | None = None
    cache: bool = True

    def effective(self) -> tuple[ModelConfig, str] | None:
        """The model metric calls use: the metric model, else the reflection model (contract Part A)."""
        if self.metric is not None and self.metric.model:
            return self.metric, "metric model"
        if self.reflection is not None and self.reflection.model:
            return self.reflection, "reflection model (no metric model is set)"
        return None

    def config(self, role: str) -> ModelConfig | None:
        """The ``metric``, ``reflection`` or ``task`` model."""
        return {"metric": self.metric, "reflection": self.reflection, "task": self.task}[role]

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelSettings:
        """The defaults the server's environment gives (``SKYNET_*_MODEL``, ``SKYNET_*_API_BASE``)."""
        env = os.environ if env is None else env

        def config(prefix: str) -> ModelConfig | None:
            model = env.get(f"SKYNET_{prefix}_MODEL", "").strip()
            base = env.get(f"SKYNET_{prefix}_API_BASE", "").strip() or None
            if not model and base:
                model = "openai/default"  # a local server that serves one model ignores the name
            return ModelConfig(model, base) if model else None

        return cls(metric=config("METRIC"), reflection=config("REFLECTION"), task=config("TASK"))

    @classmethod
    def resolve(
        cls,
        stored: Mapping[str, Any] | None = None,
        env: Mapping[str, str] | None = None,
        keys: Mapping[str, str] | None = None,
    ) -> ModelSettings:
        """The settings in effect: ``stored`` values over the environment's, with the session's ``keys``.

        ``stored`` is what :meth:`to_stored` wrote; a value that is missing or
        out of range falls back to the environment or the default. A role
        stored as ``None`` means "no model" even when the environment names one.
        """
        settings = cls.from_env(env)
        stored = stored if isinstance(stored, Mapping) else {}
        changes: dict[str, Any] = {}
        for role in ROLES:
            if role in stored:
                changes[role] = _stored_config(stored[role])
        for name, kind, (low, high) in (
            ("temperature", float, TEMPERATURE_RANGE),
            ("request_timeout_s", float, TIMEOUT_RANGE_S),
            ("concurrency", int, CONCURRENCY_RANGE),
            ("max_retries", int, RETRIES_RANGE),
            ("max_calls_per_case", int, CALLS_PER_CASE_RANGE),
            ("max_cost_usd", float, BUDGET_RANGE_USD),
        ):
            value = _number(stored.get(name))
            if value is not None and low <= value <= high:
                changes[name] = kind(value)
        return settings.with_changes(**changes).with_keys(keys or {})

    def to_stored(self) -> dict[str, Any]:
        """The JSON the store keeps: every setting but the keys."""
        return {
            "metric": self.metric.to_stored() if self.metric else None,
            "reflection": self.reflection.to_stored() if self.reflection else None,
            "task": self.task.to_stored() if self.task else None,
            "temperature": self.temperature,
            "request_timeout_s": self.request_timeout_s,
            "concurrency": self.concurrency,
            "max_retries": self.max_retries,
            "max_calls_per_case": self.max_calls_per_case,
            "max_cost_usd": self.max_cost_usd,
        }

    def with_keys(self, keys: Mapping[str, str]) -> ModelSettings:
        """These settings with session keys by role (``{"metric": "sk-…"}``); empty keys are ignored."""
        changes = {
            role: replace(config, api_key=keys[role])
            for role in ROLES
            if keys.get(role) and (config := self.config(role)) is not None
        }
        return self.with_changes(**changes)

    def with_changes(self, **changes: Any) -> ModelSettings:
        return replace(self, **changes)


def _number(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    return float(value) if math.isfinite(value) else None


def _stored_config(data: Any) -> ModelConfig | None:
    if not isinstance(data, Mapping) or not str(data.get("model") or "").strip():
        return None
    base = str(data.get("api_base") or "").strip() or None
    price = data.get("price_per_million")
    prices = [_number(value) for value in price] if isinstance(price, list) and len(price) == 2 else []
    low, high = (prices[0], prices[1]) if len(prices) == 2 else (None, None)
    if low is not None and high is not None and min(low, high) >= 0:
        return ModelConfig(str(data["model"]).strip(), base, price_per_million=(low, high))
    return ModelConfig(str(data["model"]).strip(), base)


def load_settings(
    store: Store | None, keys: Mapping[str, str] | None = None, env: Mapping[str, str] | None = None
) -> ModelSettings:
    """The settings in effect: what the Settings page saved in ``store``, over the environment, with ``keys``."""
    settings = ModelSettings.resolve(store.get(STORE_KEY) if store is not None else None, env, keys)
    if store is not None:
        from .cache import cache_setting

        settings = settings.with_changes(cache=cache_setting(store).enabled)
    return settings


def machine_settings() -> ModelSettings:
    """For the command line: what the app saved in the data directory (when it ran here), over the environment."""
    from ..store import DB_NAME, Store, data_dir

    saved = data_dir() / DB_NAME
    return load_settings(Store(saved.parent) if saved.exists() else None)


def save_settings(store: Store, settings: ModelSettings) -> None:
    """Save every setting but the keys (they live in the session, never on disk)."""
    store.set(STORE_KEY, settings.to_stored())


def forget_settings(store: Store) -> None:
    """Drop the saved settings: the environment's defaults apply again."""
    store.delete(STORE_KEY)
