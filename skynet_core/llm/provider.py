"""One call to a model through litellm (imported lazily, with its offline cost map), its cost, retries, the
keys it may use, and what a failure says.
"""

from __future__ import annotations

import os
import random
import re
import socket
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ..heap import built_frozen
from ..i18n import N_, _
from ..redact import redact
from .settings import NO_MODEL_MESSAGE, ROLES, LlmError, ModelConfig, ModelSettings, mask

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
PING_INSTRUCTIONS = "This is a connection test. Reply with the single word OK."
NO_KEY = "no-key-needed"  # the OpenAI client insists on a key; servers that check none ignore it
CONNECTION_REFUSED, HOST_NOT_FOUND, CONNECTION_FAILED = "ConnectionRefused", "HostNotFound", "ConnectionFailed"
KIND_WORDS = {
    CONNECTION_REFUSED: N_("connection refused"),
    HOST_NOT_FOUND: N_("host not found"),
    CONNECTION_FAILED: N_("connection failed"),
}
"""The kinds of a failed call that are not a provider's error class, in words for people (marked for translation)."""


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
            with built_frozen():
                import litellm

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
    max_tokens: int | None = None,
) -> LlmReply:
    """One chat completion: ``instructions`` as the system message, ``input`` as the user message (see :func:`chat`)."""
    messages = [{"role": "system", "content": instructions}]
    if input is not None:
        messages.append({"role": "user", "content": input})
    return chat(settings, messages, config=config, mock_response=mock_response, max_tokens=max_tokens)


def chat(
    settings: ModelSettings,
    messages: list[dict[str, str]],
    *,
    config: ModelConfig | None = None,
    mock_response: str | None = None,
    max_tokens: int | None = None,
) -> LlmReply:
    """One chat completion of ``messages``: every model call of the studio goes through here.

    Uses ``config``, else the model in effect (:meth:`ModelSettings.effective`); ``max_tokens`` bounds the
    answer (not sent when None). Retries rate limits, timeouts, lost connections and server errors
    ``max_retries`` times with backoff, then raises LlmError with the provider's message; other failures
    (bad key, unknown model) raise at once. ``latency_ms`` is the last attempt's; the waits between attempts
    are not in it.

    This is the one place a reply's text is taken, and it is redacted here (:func:`~skynet_core.redact.redact`:
    the keys of this process's environment, those typed in for the settings' models, and any key-shaped text):
    a provider that echoes the request's ``Authorization`` header or system message hands no key to anything
    that stores, shows or sends an answer on (the metric, a task's output, a proposed instruction).
    """
    chosen = config or (settings.effective() or (None, ""))[0]
    if chosen is None:
        raise LlmError(_(NO_MODEL_MESSAGE), kind="NoModel")
    litellm = _litellm()
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
    if max_tokens is not None:
        kwargs["max_tokens"] = max_tokens
    kwargs.update(_credentials(litellm, chosen))
    if mock_response is not None:
        kwargs["mock_response"] = mock_response
    typed = [chosen.api_key, *(model.api_key for role in ROLES if (model := settings.config(role)) is not None)]
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
                redact(message, typed),
                kind=error_kind(exc),
                retries=attempt,
                latency_ms=(ended - started) * 1000.0,
                elapsed_ms=(ended - began) * 1000.0,
            ) from None
    ended = time.perf_counter()
    latency_ms = (ended - started) * 1000.0
    usage = getattr(response, "usage", None)
    prompt_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
    completion_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
    text = redact(response.choices[0].message.content or "", typed)
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


def error_kind(exc: BaseException) -> str:
    """The kind of a failed call (an ``LlmError``'s ``kind``): a connection that could not be made by what it is
    (:data:`CONNECTION_REFUSED`, :data:`HOST_NOT_FOUND`, :data:`CONNECTION_FAILED`; litellm reports a refused
    connection as an ``InternalServerError``), else the class name of litellm's error (``RateLimitError``, …)."""
    if "Timeout" in {kind.__name__ for kind in type(exc).__mro__}:
        return type(exc).__name__
    chain: list[BaseException] = []
    link: BaseException | None = exc
    while link is not None and link not in chain:
        chain.append(link)
        link = link.__cause__ or link.__context__
    if any(isinstance(link, ConnectionRefusedError) for link in chain):
        return CONNECTION_REFUSED
    if any(isinstance(link, socket.gaierror) for link in chain):
        return HOST_NOT_FOUND
    names = {kind.__name__ for link in chain for kind in type(link).__mro__}
    if names & {"APIConnectionError", "ConnectError"}:
        return CONNECTION_FAILED
    return type(exc).__name__


def kind_label(kind: str) -> str:
    """A failed call's kind for people: a connection failure in words (in the current language), a provider's
    error class as it is."""
    words = KIND_WORDS.get(kind)
    return _(words) if words is not None else kind


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


def known_max_output(config: ModelConfig) -> int | None:
    """The most tokens ``config``'s model may answer with, from litellm's offline cost map, or None when it lacks
    the model (a ``max_tokens`` above it is refused by some providers)."""
    try:
        info = _litellm().get_model_info(config.model)
    except Exception:  # noqa: BLE001  (litellm raises for names it does not map)
        return None
    found = info.get("max_output_tokens") or info.get("max_tokens")
    return int(found) if isinstance(found, int | float) and found > 0 else None


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
