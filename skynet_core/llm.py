"""The parent's side of the metric's `llm()`: model settings, the call through litellm, its cost.

Metric code never holds a key: its `llm()` request crosses the runner's
channel, and the call is made here, in the parent. litellm is imported only
when a call is made (it takes seconds), with its offline cost map so nothing
reaches for the internet.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from .runner.worker import LlmRequest

NO_MODEL_MESSAGE = (
    "no model is configured for llm(): set SKYNET_METRIC_MODEL to a litellm model name (e.g. openai/gpt-4o-mini) "
    "and the provider's key variable (e.g. OPENAI_API_KEY), or point SKYNET_METRIC_API_BASE at an OpenAI-compatible "
    "server such as a local Ollama (http://127.0.0.1:11434/v1) or vLLM; the Settings page does the same"
)
RETRYABLE = ("RateLimitError", "Timeout", "APIConnectionError", "InternalServerError", "ServiceUnavailableError",
             "BadGatewayError")


class LlmError(RuntimeError):
    """A model call failed; the message names the cause and the fix."""


@dataclass(frozen=True)
class ModelConfig:
    """One model: a litellm model name, an optional OpenAI-compatible API base, an optional key.

    The key is for this server process only: never written to disk, never shown,
    never sent into the metric's process (``repr`` hides it).
    """

    model: str
    api_base: str | None = None
    api_key: str | None = field(default=None, repr=False)

    @property
    def masked_key(self) -> str:
        return "" if not self.api_key else f"…{self.api_key[-4:]}"


@dataclass(frozen=True)
class ModelSettings:
    """The metric model, the reflection model, and how calls are made."""

    metric: ModelConfig | None = None
    reflection: ModelConfig | None = None
    temperature: float = 0.0
    request_timeout_s: float = 30.0
    max_retries: int = 2
    concurrency: int = 8
    price_per_million: tuple[float, float] | None = None  # (input, output) USD, for models litellm does not price

    def effective(self) -> tuple[ModelConfig, str] | None:
        """The model metric calls use: the metric model, else the reflection model (contract Part A)."""
        if self.metric is not None and self.metric.model:
            return self.metric, "metric model"
        if self.reflection is not None and self.reflection.model:
            return self.reflection, "reflection model (no metric model is set)"
        return None

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> ModelSettings:
        env = os.environ if env is None else env

        def config(prefix: str) -> ModelConfig | None:
            model = env.get(f"SKYNET_{prefix}_MODEL", "").strip()
            base = env.get(f"SKYNET_{prefix}_API_BASE", "").strip() or None
            if not model and base:
                model = "openai/default"
            return ModelConfig(model, base) if model else None

        return cls(metric=config("METRIC"), reflection=config("REFLECTION"))

    def with_changes(self, **changes: Any) -> ModelSettings:
        return replace(self, **changes)


@dataclass(frozen=True)
class LlmReply:
    text: str
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None

    def usage(self) -> dict[str, Any]:
        return {"latency_ms": self.latency_ms, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens, "cost_usd": self.cost_usd}


_import_lock = threading.Lock()


def _litellm() -> Any:
    with _import_lock:
        os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
        os.environ.setdefault("LITELLM_LOG", "ERROR")
        import litellm

        litellm.telemetry = False
        litellm.suppress_debug_info = True
        return litellm


def complete(settings: ModelSettings, instructions: str, input: str | None = None, *,
             config: ModelConfig | None = None, mock_response: str | None = None) -> LlmReply:
    """One chat completion: ``instructions`` as the system message, ``input`` as the user message.

    Retries rate limits, timeouts and server errors ``max_retries`` times with
    backoff, then raises LlmError with the provider's message.
    """
    chosen = config or (settings.effective() or (None, ""))[0]
    if chosen is None:
        raise LlmError(NO_MODEL_MESSAGE)
    litellm = _litellm()
    messages = [{"role": "system", "content": instructions}]
    if input is not None:
        messages.append({"role": "user", "content": input})
    kwargs: dict[str, Any] = {"model": chosen.model, "messages": messages, "temperature": settings.temperature,
                              "timeout": settings.request_timeout_s, "num_retries": 0}
    if chosen.api_base:
        kwargs["api_base"] = chosen.api_base
        # OpenAI-compatible local servers rarely need a key, but the client insists on one.
        kwargs["api_key"] = chosen.api_key or "no-key-needed"
    elif chosen.api_key:
        kwargs["api_key"] = chosen.api_key
    if mock_response is not None:
        kwargs["mock_response"] = mock_response
    attempt = 0
    while True:
        started = time.perf_counter()
        try:
            response = litellm.completion(**kwargs)
            break
        except Exception as exc:  # noqa: BLE001  (litellm maps provider errors to many classes)
            name = type(exc).__name__
            if name in RETRYABLE and attempt < settings.max_retries:
                time.sleep(min(8.0, 0.5 * 2 ** attempt))
                attempt += 1
                continue
            raise LlmError(explain_error(exc, chosen, settings)) from None
    latency_ms = (time.perf_counter() - started) * 1000.0
    usage = getattr(response, "usage", None)
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    text = response.choices[0].message.content or ""
    return LlmReply(text, latency_ms, prompt_tokens, completion_tokens,
                    _cost(litellm, response, settings, prompt_tokens, completion_tokens))


def _cost(litellm: Any, response: Any, settings: ModelSettings, prompt_tokens: int,
          completion_tokens: int) -> float | None:
    if settings.price_per_million is not None:
        price_in, price_out = settings.price_per_million
        return (prompt_tokens * price_in + completion_tokens * price_out) / 1e6
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:  # noqa: BLE001  (unknown model: the cost is simply not known)
        return None
    return float(cost) if cost else None


def explain_error(exc: BaseException, config: ModelConfig, settings: ModelSettings) -> str:
    """The provider's error in one sentence a user can act on."""
    name = type(exc).__name__
    detail = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else name
    where = config.api_base or "the provider"
    if name == "AuthenticationError":
        return (f"{where} rejected the API key for {config.model}: set a valid key in the provider's variable "
                f"(e.g. OPENAI_API_KEY) or on the Settings page ({detail})")
    if name in ("NotFoundError",) or "LLM Provider NOT provided" in detail or "not found" in detail.lower():
        return (f"the model {config.model!r} is unknown to {where} or to litellm; check its name "
                f"(litellm names look like openai/gpt-4o-mini or ollama/llama3) ({detail})")
    if name == "Timeout":
        return f"{config.model} did not answer within {settings.request_timeout_s:g} s; raise the request timeout " \
               f"or check the server ({detail})"
    if name == "APIConnectionError":
        return f"could not reach {where} for {config.model}: is the server running and the API base right? ({detail})"
    if name == "RateLimitError":
        return f"{where} kept refusing with a rate limit after {settings.max_retries} retries ({detail})"
    return f"the call to {config.model} failed: {name}: {detail}"


def make_handler(settings: ModelSettings, mock_response: str | None = None) -> Any:
    """An LlmHandler for the runner: it answers the metric's `llm()` requests with this process's settings."""

    def handle(request: LlmRequest) -> dict[str, Any]:
        try:
            reply = complete(settings, request.instructions, request.input, mock_response=mock_response)
        except LlmError as exc:
            return {"error": str(exc)}
        return {"text": reply.text, "usage": reply.usage()}

    return handle
