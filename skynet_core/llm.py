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
"""

from __future__ import annotations

import gc
import math
import os
import random
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from .i18n import N_, _
from .llm_cache import AnswerRequest, CachedAnswer, LlmCache, Repeats, Source
from .redact import NO_ENV, known_secrets, redact
from .runner.worker import LlmRequest
from .trace import LIMIT_REACHED, LlmCall

if TYPE_CHECKING:
    from .store import Store

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
# Provider errors worth another try: litellm's classes (and their subclasses) for 429, timeouts, lost connections, 5xx.
RETRYABLE = (
    "RateLimitError",
    "Timeout",
    "APIConnectionError",
    "InternalServerError",
    "ServiceUnavailableError",
    "BadGatewayError",
)
MAX_BACKOFF_S = 8.0
TEMPERATURE_RANGE = (0.0, 2.0)
TIMEOUT_RANGE_S = (1.0, 600.0)
CONCURRENCY_RANGE = (1, 64)
RETRIES_RANGE = (0, 10)
CALLS_PER_CASE_RANGE = (1, 10_000)
BUDGET_RANGE_USD = (0.0, 1_000_000.0)
PING_INSTRUCTIONS = "This is a connection test. Reply with the single word OK."
NO_KEY = "no-key-needed"  # the OpenAI client insists on a key; servers that check none ignore it
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
    (:mod:`skynet_core.llm_cache`; saved as the ``llm.cache`` setting, not with
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
        from .llm_cache import cache_setting

        settings = settings.with_changes(cache=cache_setting(store).enabled)
    return settings


def machine_settings() -> ModelSettings:
    """For the command line: what the app saved in the data directory (when it ran here), over the environment."""
    from .store import DB_NAME, Store, data_dir

    saved = data_dir() / DB_NAME
    return load_settings(Store(saved.parent) if saved.exists() else None)


def save_settings(store: Store, settings: ModelSettings) -> None:
    """Save every setting but the keys (they live in the session, never on disk)."""
    store.set(STORE_KEY, settings.to_stored())


def forget_settings(store: Store) -> None:
    """Drop the saved settings: the environment's defaults apply again."""
    store.delete(STORE_KEY)


@dataclass(frozen=True)
class LlmReply:
    text: str
    latency_ms: float
    prompt_tokens: int
    completion_tokens: int
    cost_usd: float | None
    attempts: int = 1
    elapsed_ms: float = 0.0  # the whole call: earlier attempts and the waits between them too
    model: str = ""

    def usage(self) -> dict[str, Any]:
        return {
            "latency_ms": self.latency_ms,
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
        }


_import_lock = threading.Lock()
_loaded: Any = None
_warming: threading.Thread | None = None


def _litellm() -> Any:
    global _loaded
    if _loaded is not None:
        return _loaded
    with _import_lock:
        if _loaded is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_LOG", "ERROR")
            # Its import creates some 350,000 long-lived objects (and under 2,000 garbage ones): the collections
            # their allocation triggers, each scanning the growing heap again, are a quarter of the import's time
            # (2.7 s against 2.0 s here), so the collector is off meanwhile. Then they are moved out of its sight,
            # uncollected (a collection would hold the GIL for 0.2 s before the first call): every later full
            # collection would scan them again (Streamlit collects after each script run, many times a second
            # while a page polls a job).
            collecting = gc.isenabled()
            gc.disable()
            try:
                import litellm
            finally:
                gc.freeze()
                if collecting:
                    gc.enable()

            litellm.telemetry = False
            litellm.suppress_debug_info = True
            _loaded = litellm
        return _loaded


def litellm_ready() -> bool:
    """Whether litellm is imported already (its first import takes seconds, far more on a busy machine)."""
    return _loaded is not None


def warm_up(wait: bool = False) -> None:
    """Import litellm in a background thread, once, so the first model call does not wait for it.

    With ``wait``, return only once it is imported.
    """
    global _warming
    with _import_lock:
        if _loaded is None and _warming is None:
            _warming = threading.Thread(target=_litellm, daemon=True, name="skynet-litellm-import")
            _warming.start()
        thread = _warming
    if wait and thread is not None:
        thread.join()


def complete(
    settings: ModelSettings,
    instructions: str,
    input: str | None = None,
    *,
    config: ModelConfig | None = None,
    mock_response: str | None = None,
) -> LlmReply:
    """One chat completion: ``instructions`` as the system message, ``input`` as the user message.

    Uses ``config``, else the model in effect (:meth:`ModelSettings.effective`).
    Retries rate limits, timeouts, lost connections and server errors
    ``max_retries`` times with backoff, then raises LlmError with the
    provider's message; other failures (bad key, unknown model) raise at once.
    ``latency_ms`` is the last attempt's; the waits between attempts are not in it.
    """
    chosen = config or (settings.effective() or (None, ""))[0]
    if chosen is None:
        raise LlmError(_(NO_MODEL_MESSAGE), kind="NoModel")
    litellm = _litellm()
    messages = [{"role": "system", "content": instructions}]
    if input is not None:
        messages.append({"role": "user", "content": input})
    kwargs: dict[str, Any] = {
        "model": chosen.model,
        "messages": messages,
        "temperature": settings.temperature,
        "timeout": settings.request_timeout_s,
        "num_retries": 0,
        "drop_params": True,
    }
    if chosen.api_base:
        kwargs["api_base"] = chosen.api_base
    kwargs.update(_credentials(litellm, chosen))
    if mock_response is not None:
        kwargs["mock_response"] = mock_response
    attempt = 0
    began = time.perf_counter()
    while True:
        started = time.perf_counter()
        try:
            response = litellm.completion(**kwargs)
            break
        except Exception as exc:  # noqa: BLE001  (litellm maps provider errors to many classes)
            if _retryable(exc) and attempt < settings.max_retries:
                time.sleep(min(MAX_BACKOFF_S, settings.backoff_s * 2**attempt) * random.uniform(1.0, 1.25))
                attempt += 1
                continue
            ended = time.perf_counter()
            message = explain_error(exc, chosen, settings, attempts=attempt + 1)
            raise LlmError(
                redact(message, [chosen.api_key]),
                kind=type(exc).__name__,
                retries=attempt,
                latency_ms=(ended - started) * 1000.0,
                elapsed_ms=(ended - began) * 1000.0,
            ) from None
    ended = time.perf_counter()
    latency_ms = (ended - started) * 1000.0
    usage = getattr(response, "usage", None)
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    text = response.choices[0].message.content or ""
    return LlmReply(
        text,
        latency_ms,
        prompt_tokens,
        completion_tokens,
        _cost(litellm, response, chosen, prompt_tokens, completion_tokens),
        attempt + 1,
        (ended - began) * 1000.0,
        chosen.model,
    )


def env_api_bases(env: Mapping[str, str] | None = None) -> set[str]:
    """The API bases the server's environment names (``SKYNET_<ROLE>_API_BASE`` of every role in :data:`ROLES`)."""
    env = os.environ if env is None else env
    return {_normal_base(value) for role in ROLES if (value := env.get(f"SKYNET_{role.upper()}_API_BASE", "").strip())}


def _normal_base(url: str) -> str:
    return url.strip().rstrip("/").lower()


def env_keys_allowed(config: ModelConfig, env: Mapping[str, str] | None = None) -> bool:
    """Whether a call with ``config`` may carry the server environment's keys: the one rule for where keys go.

    Yes for the provider's own endpoint (no API base) and for an API base the server's
    environment sets itself; no for an API base typed in a browser (or saved from one),
    which gets only a key typed in for it. Otherwise anyone who can open the Settings page
    could have the server send its key to a URL of their choosing.
    """
    return config.api_base is None or _normal_base(config.api_base) in env_api_bases(env)


def _credentials(litellm: Any, config: ModelConfig) -> dict[str, str]:
    """The key to send: the session's, else litellm reads the provider's variable where :func:`env_keys_allowed`
    lets it; refuse early when a key is needed and none is set."""
    if config.api_key:
        return {"api_key": config.api_key}
    if not env_keys_allowed(config):
        return {"api_key": NO_KEY}
    missing = _missing_key_variables(litellm, config.model)
    if not missing:
        return {}
    if config.api_base:
        # Local OpenAI-compatible servers rarely check the key, but the client insists on one.
        return {"api_key": NO_KEY}
    raise LlmError(
        _(
            "no API key for {model}: set {variables} in the server's environment "
            "(then restart it) or type a key on the Settings page"
        ).format(model=config.model, variables=_(" or ").join(missing)),
        kind="NoKey",
    )


def _missing_key_variables(litellm: Any, model: str) -> list[str]:
    try:
        missing = litellm.validate_environment(model=model).get("missing_keys") or []
    except Exception:  # noqa: BLE001  (an unknown provider: the call itself will say so)
        return []
    return [name for name in missing if name.endswith(("_KEY", "_TOKEN"))]


def _retryable(exc: BaseException) -> bool:
    if "Missing credentials" in str(exc):  # litellm reports a missing key as a server error; no retry mends it
        return False
    return any(kind.__name__ in RETRYABLE for kind in type(exc).__mro__)


def _cost(litellm: Any, response: Any, config: ModelConfig, prompt_tokens: int, completion_tokens: int) -> float | None:
    if config.price_per_million is not None:
        price_in, price_out = config.price_per_million
        return (prompt_tokens * price_in + completion_tokens * price_out) / 1e6
    try:
        cost = litellm.completion_cost(completion_response=response)
    except Exception:  # noqa: BLE001  (a model the cost map lacks: the cost is simply not known)
        return None
    return float(cost) if cost is not None else None


def known_price(config: ModelConfig) -> tuple[float, float] | None:
    """(input, output) USD per million tokens from litellm's offline cost map, or None when it lacks the model."""
    litellm = _litellm()
    try:
        info = litellm.get_model_info(config.model)
    except Exception:  # noqa: BLE001  (litellm raises for names it does not map)
        return None
    price_in, price_out = info.get("input_cost_per_token"), info.get("output_cost_per_token")
    if price_in is None or price_out is None:
        return None
    return float(price_in) * 1e6, float(price_out) * 1e6


@dataclass(frozen=True)
class KeyStatus:
    """Where ``config``'s key comes from, for people (masked); ``ok`` is False when a call would lack one."""

    ok: bool
    text: str


def key_status(config: ModelConfig) -> KeyStatus:
    """Which key a call with ``config`` sends, shown masked: the session's, the server environment's, or none."""
    if config.api_key:
        return KeyStatus(True, _("typed in for this session ({masked})").format(masked=config.masked_key))
    if not env_keys_allowed(config):
        return KeyStatus(
            True,
            _(
                "none: the server's own keys do not go to an API base typed in the browser; type a "
                "key for it if it asks for one"
            ),
        )
    missing = _missing_key_variables(_litellm(), config.model)
    variables = _(" or ").join(missing)
    if missing and config.api_base:
        return KeyStatus(
            True,
            _("none ({variables} is not set; a local server rarely needs a key, type one if it asks)").format(
                variables=variables
            ),
        )
    if missing:
        return KeyStatus(
            False,
            _(
                "missing: set {variables} in the server's environment (then restart it) or type a key for this session"
            ).format(variables=variables),
        )
    variable = f"{(config.provider or 'openai').upper()}_API_KEY"
    if os.environ.get(variable):
        return KeyStatus(
            True,
            _("{variable} from the server's environment ({masked})").format(
                variable=variable, masked=mask(os.environ[variable])
            ),
        )
    return KeyStatus(True, _("none needed"))


@dataclass(frozen=True)
class ConnectionCheck:
    """The outcome of one tiny call: the reply, its latency and cost, or the error for people."""

    ok: bool
    model: str
    reply: str = ""
    latency_ms: float = 0.0
    cost_usd: float | None = None
    prompt_tokens: int = 0
    completion_tokens: int = 0
    error: str = ""


def check_connection(
    settings: ModelSettings, config: ModelConfig | None = None, mock_response: str | None = None
) -> ConnectionCheck:
    """One tiny call with ``config`` (default: the model in effect), without retries: a failure shows at once."""
    chosen = config or (settings.effective() or (None, ""))[0]
    if chosen is None:
        return ConnectionCheck(False, "", error=_(NO_MODEL_MESSAGE))
    try:
        reply = complete(
            settings.with_changes(max_retries=0),
            PING_INSTRUCTIONS,
            "Connection test.",
            config=chosen,
            mock_response=mock_response,
        )
    except LlmError as exc:
        return ConnectionCheck(False, chosen.model, error=str(exc))
    return ConnectionCheck(
        True, chosen.model, reply.text, reply.latency_ms, reply.cost_usd, reply.prompt_tokens, reply.completion_tokens
    )


_PREFIX = re.compile(r"^(?:litellm\.\w+:\s*)?(?:\w+Error:\s*)?(?:\w+Exception\s*-\s*)?")


def provider_message(exc: BaseException) -> str:
    """The provider's own words from a litellm exception, without litellm's class-name prefixes."""
    text = redact(str(exc)).strip()  # before it is cut: a key cut in two would escape the patterns
    first = text.splitlines()[0] if text else type(exc).__name__
    return _PREFIX.sub("", first).strip()[:300] or type(exc).__name__


def explain_error(exc: BaseException, config: ModelConfig, settings: ModelSettings, attempts: int = 1) -> str:
    """The provider's error in one sentence a user can act on, with the provider's message at the end."""
    names = {kind.__name__ for kind in type(exc).__mro__}
    text = str(exc)
    detail = provider_message(exc)
    where = config.api_base or (f"the {config.provider} API" if config.provider else "the provider")
    tries = f" (tried {attempts} times)" if attempts > 1 else ""
    if "LLM Provider NOT provided" in text:
        return (
            f"litellm does not know the model {config.model!r}: write it with its provider, e.g. "
            "openai/gpt-4o-mini, anthropic/claude-3-5-haiku-latest or ollama/llama3 (for an OpenAI-compatible "
            "server, openai/<the name it serves> and its API base)"
        )
    if "Missing credentials" in text:  # the key variable is set but empty
        return (
            f"no API key for {config.model}: set the provider's key variable (e.g. OPENAI_API_KEY) in the "
            "server's environment (then restart it) or type a key on the Settings page"
        )
    if "AuthenticationError" in names:
        return (
            f"{where} rejected the API key for {config.model}: set a valid key in the provider's variable "
            f"(e.g. OPENAI_API_KEY) or on the Settings page ({detail})"
        )
    if "NotFoundError" in names:
        return (
            f"{where} does not know the model {config.model!r}: check its name on the Settings page "
            f"(litellm names look like openai/gpt-4o-mini or ollama/llama3) ({detail})"
        )
    if "Timeout" in names:
        return (
            f"{config.model} did not answer within {settings.request_timeout_s:g} s{tries}: raise the request "
            "timeout on the Settings page or check the server"
        )
    if "APIConnectionError" in names or "Connection error" in text:
        return (
            f"could not reach {where} for {config.model}{tries}: is the server running and the API base "
            f"right? ({detail})"
        )
    if "RateLimitError" in names:
        return (
            f"{where} refused {config.model} with a rate limit{tries}: lower the calls in flight on the "
            f"Settings page or try later ({detail})"
        )
    if names & {"InternalServerError", "ServiceUnavailableError", "BadGatewayError"}:
        return f"{where} failed to answer for {config.model}{tries}: {detail}"
    return f"the call to {config.model} failed: {detail}"


class MetricLlm:
    """The runner's LlmHandler for one run: answers the metric's `llm()` requests with these settings.

    Never raises: any failure becomes ``{"error": …}``, which the metric's ``llm()``
    raises as ``LlmError`` (so the case fails with that message). Over a limit
    (calls per case, the run's budget) the reply also carries ``"end_case"``: the
    runner then fails the case with that error whatever the metric returns.
    ``spent_usd`` is what this run's calls have cost so far (thread-safe).

    With a ``cache`` (and ``settings.cache`` on), an answer the cache holds, or
    that an identical call in flight is getting, costs no call: its trace is
    marked ``cached``, with cost 0 and the lookup's latency, and it adds nothing
    to ``spent_usd``. Answers are redacted before they are stored.
    """

    def __init__(
        self, settings: ModelSettings, mock_response: str | None = None, cache: LlmCache | None = None
    ) -> None:
        self.settings = settings
        self.mock_response = mock_response
        self.cache = cache if settings.cache else None
        self._repeats = Repeats()
        self.spent_usd = 0.0
        self._lock = threading.Lock()
        # The keys to hide, read from the environment once for the run rather than at each call (reading
        # os.environ item by item took most of a cached answer's time).
        self._keys = known_secrets(
            None, [config.api_key for role in ROLES if (config := settings.config(role)) is not None]
        )
        if settings.effective() is not None:
            warm_up()  # a model is configured: a metric may call it soon

    def __call__(self, request: LlmRequest) -> dict[str, Any]:
        """The reply for the metric (``text`` or ``error``), with ``call``: the call's :class:`LlmCall` trace."""
        refused = self._over_limit(request)
        if refused:
            return {"error": refused, "end_case": True, "call": self._trace(request, error=refused, kind=LIMIT_REACHED)}
        model = self._model()
        started = time.perf_counter()
        try:
            reply, source = self._answer(request)
        except LlmError as exc:
            return {"error": str(exc), "call": self._trace(request, model, error=str(exc), kind=exc.kind, failure=exc)}
        except Exception as exc:  # noqa: BLE001  (a failure here must reach the metric as an error, not a hang)
            error = redact(f"the model call failed unexpectedly: {type(exc).__name__}: {exc}", self._keys, NO_ENV)
            elapsed = (time.perf_counter() - started) * 1000.0
            return {
                "error": error,
                "call": self._trace(request, model, error=error, kind=type(exc).__name__, elapsed_ms=elapsed),
            }
        if source.cached:
            return self._answered(request, _looked_up(reply, started), cached=True)
        with self._lock:
            self.spent_usd += reply.cost_usd or 0.0
        return self._answered(request, reply)

    def _answered(self, request: LlmRequest, reply: LlmReply, cached: bool = False) -> dict[str, Any]:
        """The metric's reply (``text``, ``usage``) and the call's trace (``call``)."""
        call = LlmCall.make(
            request.instructions,
            request.input,
            reply.text,
            secrets=self._keys,
            env=NO_ENV,
            model=reply.model,
            prompt_tokens=reply.prompt_tokens,
            completion_tokens=reply.completion_tokens,
            latency_ms=reply.latency_ms,
            elapsed_ms=reply.elapsed_ms or reply.latency_ms,
            cost_usd=reply.cost_usd,
            retries=reply.attempts - 1,
            cached=cached,
        )
        # The answer crosses to the metric, and from it to feedback, --out and the database: an endpoint that
        # echoes the request's Authorization header (or any key) must not hand the key to metric code.
        return {"text": redact(reply.text, self._keys, NO_ENV), "usage": reply.usage(), "call": call}

    def without_cache(self) -> MetricLlm:
        """A handler with these settings that asks the model every time (measurements of variance)."""
        return MetricLlm(self.settings, self.mock_response)

    def answer_at_once(self, request: LlmRequest) -> dict[str, Any] | None:
        """The reply when the cache holds the answer in memory: no model call, no wait, so the runner
        takes it without a thread of its own (see ``LlmHandler``); None otherwise."""
        if self.cache is None or self._over_limit(request):
            return None
        started = time.perf_counter()
        asked = self._request(request)
        if asked is None:
            return None
        digest = asked.key()
        repeat = self._repeats.peek(request.case, digest)
        found = self.cache.remembered(replace(asked, repeat=repeat).key() if repeat else digest)
        if found is None:
            return None
        self._repeats.take(request.case, digest)
        return self._answered(
            request, _looked_up(LlmReply(found.text, 0.0, 0, 0, 0.0, model=found.model), started), True
        )

    def _request(self, request: LlmRequest) -> AnswerRequest | None:
        """What makes ``request`` the same call as another (the cache's key), or None without a model."""
        chosen = self.settings.effective()
        if chosen is None:
            return None
        config = chosen[0]
        return AnswerRequest(
            config.model,
            config.api_base,
            request.instructions,
            request.input,
            self.settings.temperature,
            self.mock_response,
        )

    def _answer(self, request: LlmRequest) -> tuple[LlmReply, Source]:
        """The reply to ``request``: from the cache, or shared with an identical call in flight, or asked."""
        asked = self._request(request) if self.cache is not None else None
        if self.cache is None or asked is None:
            return self._ask(request), Source.PROVIDER
        repeat = self._repeats.take(request.case, asked.key())
        made: list[LlmReply] = []

        def ask() -> CachedAnswer:
            made.append(reply := self._ask(request))
            return CachedAnswer(
                reply.text, reply.model, reply.prompt_tokens, reply.completion_tokens, reply.cost_usd, reply.latency_ms
            )

        answer, source = self.cache.answer(replace(asked, repeat=repeat).key() if repeat else asked.key(), ask)
        if made:
            return made[0], source
        return LlmReply(answer.text, 0.0, 0, 0, 0.0, model=answer.model), source

    def _ask(self, request: LlmRequest) -> LlmReply:
        """The model's reply, its text redacted (so that no key is stored in the cache or reaches the metric)."""
        reply = complete(self.settings, request.instructions, request.input, mock_response=self.mock_response)
        return replace(reply, text=redact(reply.text, self._keys, NO_ENV))

    def _model(self) -> str:
        chosen = self.settings.effective()
        return chosen[0].model if chosen is not None else ""

    def _trace(
        self,
        request: LlmRequest,
        model: str = "",
        *,
        error: str,
        kind: str,
        failure: LlmError | None = None,
        elapsed_ms: float = 0.0,
    ) -> LlmCall:
        """The trace of a call that failed (or was refused): what was asked, the error, what it took."""
        return LlmCall.make(
            request.instructions,
            request.input,
            None,
            secrets=self._keys,
            env=NO_ENV,
            model=model,
            latency_ms=failure.latency_ms if failure is not None else 0.0,
            elapsed_ms=failure.elapsed_ms if failure is not None else elapsed_ms,
            retries=failure.retries if failure is not None else 0,
            error=error,
            error_kind=kind,
        )

    def _over_limit(self, request: LlmRequest) -> str | None:
        cap = self.settings.max_calls_per_case
        if request.call > cap:
            return _(
                "this case made more than {cap} llm() calls, the most one case may make, so it was stopped; "
                "make fewer calls per case or raise the cap (Settings: “llm() calls per case”, or the CLI's "
                "--max-calls)"
            ).format(cap=cap)
        budget = self.settings.max_cost_usd
        with self._lock:
            spent = self.spent_usd
        if budget is not None and spent >= budget:
            return _(
                "this run's llm() budget of ${budget:,.2f} is spent (${spent:,.4f} so far), so this case was "
                "stopped; raise the budget (Settings: “budget per run”, or the CLI's --max-cost) or score fewer "
                "cases"
            ).format(budget=budget, spent=spent)
        return None


def _looked_up(reply: LlmReply, started: float) -> LlmReply:
    """A cached answer's reply as its trace shows it: no tokens, cost 0, the lookup's latency (since ``started``)."""
    latency_ms = (time.perf_counter() - started) * 1000.0
    return replace(
        reply, prompt_tokens=0, completion_tokens=0, cost_usd=0.0, latency_ms=latency_ms, elapsed_ms=latency_ms
    )


def make_handler(settings: ModelSettings, mock_response: str | None = None, cache: LlmCache | None = None) -> MetricLlm:
    """The LlmHandler for one run (see :class:`MetricLlm`; ``cache`` answers calls it has seen, while
    ``settings.cache`` is on); litellm starts importing now when a model is set."""
    return MetricLlm(settings, mock_response, cache)
