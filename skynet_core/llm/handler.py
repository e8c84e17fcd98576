"""The runner's LlmHandler: answers a run's `llm()` requests within its limits, through the answer cache."""

from __future__ import annotations

import hashlib
import threading
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any, NamedTuple

import orjson

from ..i18n import _
from ..metric.source import MetricSource
from ..redact import NO_ENV, known_secrets, redact
from ..results.trace import LIMIT_REACHED, LlmCall
from ..scoring.runner.values import LlmRequest
from ..scoring.sandbox.sealed import request_bytes
from . import provider
from .ahead import AheadBatch, recorded_call
from .budget import Budget
from .cache import AnswerRequest, CachedAnswer, LlmCache, Repeats, Source
from .provider import LlmReply, warm_up
from .settings import ROLES, LlmError, ModelSettings


class MetricLlm:
    """The runner's LlmHandler for one run: answers the metric's `llm()` requests with these settings.

    Never raises: any failure becomes ``{"error": …}``, which the metric's ``llm()``
    raises as ``LlmError`` (so the case fails with that message). Over a limit
    (calls per case, the run's budget) the reply also carries ``"end_case"``: the
    runner then fails the case with that error whatever the metric returns.
    ``spent_usd`` is what this run's calls have cost so far and ``unpriced_calls``
    how many had no known price (thread-safe). The budget is ``settings.max_cost_usd``,
    or a :class:`~skynet_core.llm.budget.Budget` shared with other calls (:meth:`with_budget`).

    With a ``cache`` (and ``settings.cache`` on), an answer the cache holds, or
    that an identical call in flight is getting, costs no call: its trace is
    marked ``cached``, with cost 0 and the lookup's latency, and it adds nothing
    to ``spent_usd``. Answers are redacted before they are stored. The runner
    also sends a case's cached answers ahead with it (:meth:`ahead`), so that
    the calls the case made last time are answered in the sandbox; a reply to a
    call that got an answer then carries ``recorded``, what the case's record
    keeps of it (the runner takes it out before the reply goes on).
    """

    def __init__(
        self,
        settings: ModelSettings,
        mock_response: str | None = None,
        cache: LlmCache | None = None,
        budget: Budget | None = None,
        warm: bool = True,
    ) -> None:
        self.settings = settings
        self.mock_response = mock_response
        self.cache = cache if settings.cache else None
        self.budget = budget if budget is not None else Budget(settings.max_cost_usd)
        self._repeats = Repeats()
        self.spent_usd = 0.0
        self.unpriced_calls = 0
        self._lock = threading.Lock()
        # The keys to hide, read from the environment once for the run rather than at each call (reading
        # os.environ item by item took most of a cached answer's time).
        self._keys = known_secrets(
            None, [config.api_key for role in ROLES if (config := settings.config(role)) is not None]
        )
        self._scope: str | None = None
        if warm:
            self.warm_up()

    def warm_up(self) -> None:
        """Start importing litellm in the background when a call to the model may come (at creation unless
        ``warm=False``, e.g. until the metric is known to name ``llm``: :meth:`MetricSource.names_llm`)."""
        if self.settings.effective() is not None and (self.cache is None or not self.cache.on_disk()):
            # A model is configured: a metric may call it soon, so litellm (seconds to import) loads meanwhile.
            # Not when a cache with answers in it may answer the run: litellm is then imported at the first answer
            # it does not hold (provider.complete), and a re-score answered wholly from it never imports it
            # (importing it beside such a run took seconds of the CPU the run needed).
            warm_up()

    def __call__(self, request: LlmRequest) -> dict[str, Any]:
        """The reply for the metric (``text`` or ``error``), with ``call``: the call's :class:`LlmCall` trace."""
        refused = self._over_limit(request)
        if refused:
            return {"error": refused, "end_case": True, "call": self._trace(request, error=refused, kind=LIMIT_REACHED)}
        model = self._model()
        started = time.perf_counter()
        try:
            reply, source, keyed = self._answer(request)
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
            return self._answered(request, _looked_up(reply, started), keyed, cached=True)
        with self._lock:
            self.spent_usd += reply.cost_usd or 0.0
            self.unpriced_calls += reply.cost_usd is None
        return self._answered(request, reply, keyed)

    def _answered(
        self, request: LlmRequest, reply: LlmReply, keyed: _Keyed | None, cached: bool = False
    ) -> dict[str, Any]:
        """The metric's reply (``text``, ``usage``), the call's trace (``call``) and, for a call the cache keys,
        what the case's record keeps of it (``recorded``)."""
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
        # The answer crosses to the metric, and from it to feedback, --out and the database: it was redacted where
        # it was taken (provider.chat), before the cache kept it, so an endpoint that echoes the request's
        # Authorization header (or any key) hands no key to metric code.
        answered = {"text": reply.text, "usage": reply.usage(), "call": call}
        if keyed is not None:
            sent = request_bytes(request.instructions, request.input, keyed.repeat)
            answered["recorded"] = recorded_call(call, keyed.answer, sent, keyed.key, keyed.first, request.instructions)
        return answered

    def ahead(self, payloads: Sequence[bytes | memoryview], metric: MetricSource) -> AheadBatch | None:
        """For a request of cases (``payloads``: each case's JSON as sent) to ``metric``: the cached answers of
        the calls each made last time for this metric, to send ahead with them, and the record of the calls they
        make now (None without a cache or a model)."""
        if self.cache is None or self.settings.effective() is None:
            return None
        return AheadBatch(self, self.cache.case_calls, self._scope_key(), payloads, metric)

    def count_repeat(self, case: int, first_key: str) -> None:
        """Count a call the sandbox answered ahead among the case ``case``'s identical calls (``first_key``: its
        request's key with repeat 0), as if it had been asked here."""
        self._repeats.take(case, first_key)

    def _scope_key(self) -> str:
        """What makes the same calls get the same answers in this run: the model, its server, the temperature,
        a mock answer and the keys (a trace's texts are redacted with them). A digest; no key is kept."""
        if self._scope is None:
            chosen = self.settings.effective()
            config = chosen[0] if chosen is not None else None
            fields = [
                config.model if config else None,
                config.api_base.rstrip("/") if config and config.api_base else None,
                float(self.settings.temperature),
                self.mock_response,
                list(self._keys),
            ]
            self._scope = hashlib.sha256(orjson.dumps(fields)).hexdigest()
        return self._scope

    def without_cache(self) -> MetricLlm:
        """A handler with these settings that asks the model every time (measurements of variance): this one
        when it has no cache, so that what it spends is counted where its caller looks."""
        return self if self.cache is None else MetricLlm(self.settings, self.mock_response)

    def with_budget(self, budget: Budget) -> MetricLlm:
        """A handler with these settings and cache whose calls are bounded by, and charged to, ``budget`` (a run
        that spends on other calls too: the uplift experiment)."""
        return MetricLlm(self.settings, self.mock_response, self.cache, budget)

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
        key = replace(asked, repeat=repeat).key() if repeat else digest
        found = self.cache.remembered(key)
        if found is None:
            return None
        self._repeats.take(request.case, digest)
        reply = _looked_up(LlmReply(found.text, 0.0, 0, 0, 0.0, model=found.model), started)
        return self._answered(request, reply, _Keyed(key, digest, repeat, found), True)

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

    def _answer(self, request: LlmRequest) -> tuple[LlmReply, Source, _Keyed | None]:
        """The reply to ``request``: from the cache, or shared with an identical call in flight, or asked; and
        its keys in the cache, when the cache is used."""
        asked = self._request(request) if self.cache is not None else None
        if self.cache is None or asked is None:
            return self._ask(request), Source.PROVIDER, None
        first = asked.key()
        repeat = self._repeats.take(request.case, first)
        key = replace(asked, repeat=repeat).key() if repeat else first
        made: list[LlmReply] = []

        def ask() -> CachedAnswer:
            made.append(reply := self._ask(request))
            return CachedAnswer(
                reply.text, reply.model, reply.prompt_tokens, reply.completion_tokens, reply.cost_usd, reply.latency_ms
            )

        answer, source = self.cache.answer(key, ask)
        keyed = _Keyed(key, first, repeat, answer)
        if made:
            return made[0], source, keyed
        return LlmReply(answer.text, 0.0, 0, 0, 0.0, model=answer.model), source, keyed

    def _ask(self, request: LlmRequest) -> LlmReply:
        """The model's reply, its text redacted where it is taken (so that no key is stored in the cache or
        reaches the metric), charged to the budget."""
        if not self.budget.admit():
            raise LlmError(self._budget_spent(), kind=LIMIT_REACHED)
        cost = None
        try:
            reply = provider.complete(
                self.settings, request.instructions, request.input, mock_response=self.mock_response
            )
            cost = reply.cost_usd
            return reply
        finally:
            self.budget.settle(None, cost)

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
        if self.budget.exhausted():
            return self._budget_spent()
        return None

    def _budget_spent(self) -> str:
        return _(
            "this run's llm() budget of ${budget:,.2f} is spent (${spent:,.4f} so far), so this case was "
            "stopped; raise the budget (Settings: “budget per run”, or the CLI's --max-cost) or score fewer "
            "cases"
        ).format(budget=self.budget.limit_usd or 0.0, spent=self.budget.spent_usd)


class _Keyed(NamedTuple):
    """A call's place in the answer cache: its answer's ``key``, the ``first`` identical call's (repeat 0), how
    many identical calls its case made before it (``repeat``), and the ``answer`` as the cache holds it."""

    key: str
    first: str
    repeat: int
    answer: CachedAnswer


def _looked_up(reply: LlmReply, started: float) -> LlmReply:
    """A cached answer's reply as its trace shows it: no tokens, cost 0, the lookup's latency (since ``started``)."""
    latency_ms = (time.perf_counter() - started) * 1000.0
    return replace(
        reply, prompt_tokens=0, completion_tokens=0, cost_usd=0.0, latency_ms=latency_ms, elapsed_ms=latency_ms
    )


def make_handler(
    settings: ModelSettings, mock_response: str | None = None, cache: LlmCache | None = None, *, warm: bool = True
) -> MetricLlm:
    """The LlmHandler for one run (see :class:`MetricLlm`; ``cache`` answers calls it has seen, while
    ``settings.cache`` is on); litellm starts importing now when a model is set, unless ``warm`` is false
    (then at :meth:`MetricLlm.warm_up`, or at the first call)."""
    return MetricLlm(settings, mock_response, cache, warm=warm)
