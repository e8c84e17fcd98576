"""The experiment's model calls: each one counted, priced and checked against the budget and Cancel.

Before every call the :class:`Meter` checks the Cancel event and the budget, and unwinds the run
(:class:`Stopped`) when either says stop; after it, the call is counted and its tokens priced. The
budget is "reached" once what was spent (the task, the reflection and the metric's own ``llm()``
calls) is at least ``max_cost_usd``: calls already in flight finish, so a run may end a minibatch's
worth of task calls past it.

At temperature 0 an identical request gets the same answer, so it is made once per run and its answer
reused (:class:`Evaluator`: an instruction on a case; :class:`Reflector`: a reflection prompt). At any
other temperature every request is a fresh call. Nothing here relies on any other cache.
"""

from __future__ import annotations

import contextvars
import threading
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Any, TypeVar

from ...llm import LlmError, MetricLlm, ModelConfig, known_price
from ..reflection import Reflection, reflect
from ..sandboxed import SandboxedMetric, Verdict
from ..task import ChatTask
from .cases import Example
from .config import Models
from .result import Calls, Outcome

MAX_THREADS = 8  # model calls in flight at once
NOT_SENT = frozenset({"NoModel", "NoKey"})  # LlmError kinds raised before any request was sent


class Stopped(Exception):
    """Raised inside a run to stop it: ``outcome`` says why (budget, cancelled, failed), ``detail`` the failure."""

    def __init__(self, outcome: Outcome, detail: str = "") -> None:
        super().__init__(detail or outcome.value)
        self.outcome, self.detail = outcome, detail


def price(config: ModelConfig) -> tuple[float, float] | None:
    """(input, output) US dollars per million tokens: the price typed for the model, else litellm's cost map's,
    else ``None``."""
    return config.price_per_million or known_price(config)


class Meter:
    """Counts calls by role, prices their tokens, and stops the run at the budget or on Cancel (thread-safe).

    ``judge`` is the metric's ``llm()`` handler, whose spending counts toward the cost and the budget.
    """

    def __init__(
        self,
        models: Models,
        max_cost_usd: float | None,
        cancel: threading.Event | None = None,
        judge: MetricLlm | None = None,
    ) -> None:
        self.max_cost_usd = max_cost_usd
        self.cancel = cancel or threading.Event()
        self.judge = judge
        self._judge_before = judge.spent_usd if judge is not None else 0.0
        self._prices = {"task": price(models.task), "reflection": price(models.reflection)}
        self._names = {"task": models.task.model, "reflection": models.reflection.model}
        self._calls = {"task": 0, "reflection": 0}
        self._spent = 0.0
        self._lock = threading.Lock()

    @property
    def calls(self) -> Calls:
        with self._lock:
            return Calls(self._calls["task"], self._calls["reflection"])

    @property
    def cost_usd(self) -> float:
        judge = self.judge.spent_usd - self._judge_before if self.judge is not None else 0.0
        with self._lock:
            return self._spent + judge

    @property
    def unpriced(self) -> tuple[str, ...]:
        """The models whose calls were made without a known price (they count as free)."""
        with self._lock:
            return tuple(
                dict.fromkeys(
                    self._names[role] for role, cost in self._prices.items() if cost is None and self._calls[role]
                )
            )

    def before_call(self) -> None:
        """Raise :class:`Stopped` when the run was cancelled or has spent its budget."""
        if self.cancel.is_set():
            raise Stopped(Outcome.CANCELLED)
        if self.max_cost_usd is not None and self.cost_usd >= self.max_cost_usd:
            raise Stopped(Outcome.BUDGET)

    def count(self, role: str, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one call of ``role`` (``task`` or ``reflection``) and add what its tokens cost."""
        cost = self._prices[role]
        with self._lock:
            self._calls[role] += 1
            if cost is not None:
                self._spent += (prompt_tokens * cost[0] + completion_tokens * cost[1]) / 1e6

    def failed(self, role: str, error: LlmError) -> None:
        """Count a call that failed, unless it was refused before any request left (no model, no key)."""
        if error.kind not in NOT_SENT:
            self.count(role, 0, 0)


@dataclass(frozen=True)
class Evaluation:
    """An instruction's outputs on some cases and the metric's verdicts on them, in the cases' order."""

    outputs: tuple[Any, ...]
    verdicts: tuple[Verdict, ...]

    @property
    def total(self) -> float:
        """The sum of the scores: what GEPA compares on a minibatch."""
        return sum(verdict.score for verdict in self.verdicts)

    @property
    def mean(self) -> float:
        return self.total / len(self.verdicts) if self.verdicts else 0.0


class Evaluator:
    """Runs instructions on cases with the task model and scores the outputs with the sandboxed metric.

    :meth:`many` evaluates several (instruction, cases) jobs at once: their task calls run together and the
    metric scores all their outputs in one sandboxed run. A failed task call stops the run (:class:`Stopped`,
    ``failed``): scoring it 0 would charge the arm that happened to meet it with the provider's trouble. A case
    the metric fails on scores 0 with a feedback that says why, as in GEPA.
    """

    def __init__(self, metric: SandboxedMetric, models: Models, meter: Meter) -> None:
        self.metric, self.meter = metric, meter
        self.task = ChatTask(models.task, models.settings)
        self.reuse = models.deterministic
        self._known: dict[tuple[str, str], tuple[Any, Verdict]] = {}

    def __call__(self, instruction: str, examples: Sequence[Example]) -> Evaluation:
        return self.many([(instruction, examples)])[0]

    def many(self, jobs: Sequence[tuple[str, Sequence[Example]]]) -> list[Evaluation]:
        """One evaluation per ``(instruction, cases)`` job, in order."""
        fresh: list[tuple[str, Example]] = []
        rows: list[list[int]] = []  # per job and case: its index in ``fresh``, or -1 for an answer known already
        seen: dict[tuple[str, str], int] = {}
        for instruction, examples in jobs:
            row = []
            for example in examples:
                key = (instruction, example["id"])
                if self.reuse and key in self._known:
                    row.append(-1)
                elif self.reuse and key in seen:
                    row.append(seen[key])
                else:
                    seen[key] = len(fresh)
                    row.append(len(fresh))
                    fresh.append((instruction, example))
            rows.append(row)
        outputs = parallel(self._answer, fresh)
        verdicts = self.metric.score_many(
            [
                (example["input"], output, example.get("expected"))
                for (_, example), output in zip(fresh, outputs, strict=True)
            ]
        )
        made = list(zip(outputs, verdicts, strict=True))
        if self.reuse:
            self._known.update(
                {(instruction, example["id"]): pair for (instruction, example), pair in zip(fresh, made, strict=True)}
            )
        found = []
        for (instruction, examples), row in zip(jobs, rows, strict=True):
            pairs = [
                made[index] if index >= 0 else self._known[(instruction, example["id"])]
                for example, index in zip(examples, row, strict=True)
            ]
            found.append(Evaluation(tuple(output for output, _ in pairs), tuple(verdict for _, verdict in pairs)))
        return found

    def _answer(self, job: tuple[str, Example]) -> str:
        instruction, example = job
        self.meter.before_call()
        try:
            reply = self.task.reply(instruction, example["input"])
        except LlmError as exc:
            self.meter.failed("task", exc)
            raise Stopped(Outcome.FAILED, str(exc)) from None
        self.meter.count("task", reply.prompt_tokens, reply.completion_tokens)
        return reply.text


class Reflector:
    """Asks the reflection model with GEPA's prompt and extracts the proposal with GEPA's extractor."""

    def __init__(self, models: Models, meter: Meter) -> None:
        self.models, self.meter = models, meter
        self._known: dict[str, Reflection] = {}

    def many(self, prompts: Sequence[str]) -> list[Reflection]:
        """One reflection per prompt, in order; the calls run together."""
        if not self.models.deterministic:
            return parallel(self._ask, prompts)
        fresh = [prompt for prompt in dict.fromkeys(prompts) if prompt not in self._known]
        self._known.update(zip(fresh, parallel(self._ask, fresh), strict=True))
        return [self._known[prompt] for prompt in prompts]

    def _ask(self, prompt: str) -> Reflection:
        self.meter.before_call()
        try:
            answer = reflect(prompt, self.models.reflection, self.models.settings)
        except LlmError as exc:
            self.meter.failed("reflection", exc)
            raise Stopped(Outcome.FAILED, str(exc)) from None
        self.meter.count("reflection", answer.prompt_tokens, answer.completion_tokens)
        return answer


T = TypeVar("T")
R = TypeVar("R")


def parallel(call: Callable[[T], R], items: Sequence[T]) -> list[R]:
    """``call`` on every item, a few at once, in this context's language; the results in order. The first
    exception is raised once the calls already started have finished; the others are never started."""
    if len(items) <= 1:
        return [call(item) for item in items]
    pool = ThreadPoolExecutor(max_workers=min(MAX_THREADS, len(items)))
    try:
        futures = [pool.submit(contextvars.copy_context().run, call, item) for item in items]
        return [future.result() for future in futures]
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
