"""The parent's side of the metric's `llm()`: model settings, the call through litellm, its cost.

Metric code never holds a key: its `llm()` request crosses the runner's
channel, and the call is made here, in the parent. litellm is imported only
when a call is made (it takes seconds), with its offline cost map so nothing
reaches for the internet.

Where a setting comes from, strongest first: what the Settings page saved (the
store's ``llm.settings``), then the environment (``SKYNET_<ROLE>_MODEL`` and
``SKYNET_<ROLE>_API_BASE`` for the roles ``METRIC``, ``REFLECTION`` and
``TASK``), then the defaults below. Keys are never
saved: they come from the provider's usual variable (``OPENAI_API_KEY``, …)
or are typed in for one browser session.

The package: :mod:`.settings` (which models, from where), :mod:`.provider` (one call through litellm, its cost
and its errors) and :mod:`.handler` (the runner's handler of a run's ``llm()`` requests).
"""

from __future__ import annotations

from .budget import Budget, worst_cost
from .handler import MetricLlm, make_handler
from .provider import (
    ConnectionCheck,
    KeyStatus,
    LlmReply,
    _credentials,
    _litellm,
    chat,
    check_connection,
    complete,
    env_api_bases,
    env_keys_allowed,
    explain_error,
    key_status,
    kind_label,
    known_max_output,
    known_price,
    litellm_ready,
    provider_message,
    warm_up,
)
from .settings import (
    API_BASE_KEY_RULE,
    BUDGET_RANGE_USD,
    CALLS_PER_CASE_RANGE,
    CONCURRENCY_RANGE,
    NO_MODEL_MESSAGE,
    RETRIES_RANGE,
    ROLES,
    STORE_KEY,
    TEMPERATURE_RANGE,
    TIMEOUT_RANGE_S,
    LlmError,
    ModelConfig,
    ModelSettings,
    forget_settings,
    load_settings,
    machine_settings,
    mask,
    save_settings,
)

__all__ = [
    "API_BASE_KEY_RULE",
    "BUDGET_RANGE_USD",
    "CALLS_PER_CASE_RANGE",
    "CONCURRENCY_RANGE",
    "NO_MODEL_MESSAGE",
    "RETRIES_RANGE",
    "ROLES",
    "Budget",
    "STORE_KEY",
    "TEMPERATURE_RANGE",
    "TIMEOUT_RANGE_S",
    "ConnectionCheck",
    "KeyStatus",
    "LlmError",
    "LlmReply",
    "MetricLlm",
    "ModelConfig",
    "ModelSettings",
    "_credentials",
    "_litellm",
    "chat",
    "check_connection",
    "complete",
    "env_api_bases",
    "env_keys_allowed",
    "explain_error",
    "forget_settings",
    "key_status",
    "kind_label",
    "known_max_output",
    "known_price",
    "litellm_ready",
    "load_settings",
    "machine_settings",
    "make_handler",
    "mask",
    "provider_message",
    "save_settings",
    "warm_up",
    "worst_cost",
]
