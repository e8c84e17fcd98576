"""The experiment's model calls: each one counted, priced and kept within the budget, and Cancel.

Before every call the :class:`Meter` checks the Cancel event and the run's budget, and unwinds the run
(:class:`Stopped`) when either says stop; after it, the call is counted and its tokens charged. The budget is
the one a metric's ``llm()`` calls are charged to as well (:class:`~skynet_core.llm.budget.Budget`): a task or
reflection call starts only when the budget left covers its worst case (its prompt at one token a byte, and
its answer at the ``max_tokens`` it is sent with, at its model's price: :func:`task_max_tokens`,
:func:`reflection_max_tokens`), waiting while calls in flight hold the rest, so the run never spends past its
budget on them; a metric's ``llm()`` call starts while anything is left, and a scoring in which one was
refused stops the run. A model without a known price cannot be bounded: its calls count as free, and the
plan says so.

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
from typing import Any, Protocol, TypeVar

from ...llm import Budget, LlmError, MetricLlm, ModelConfig, known_max_output, known_price, worst_cost
from ..reflection import Reflection, proposal_limit, reflect
from ..sandboxed import SandboxedMetric, Verdict
from ..task import ChatTask, render_input
from .cases import Example, expected_text
from .config import Models
from .result import Calls, Outcome

MAX_THREADS = 8  # model calls in flight at once
NOT_SENT = frozenset({"NoModel", "NoKey"})  # LlmError kinds raised before any request was sent
TASK_TOKENS = (256, 4096)
"""The fewest and most tokens a task answer may take in a run with a budget (:func:`task_max_tokens`)."""
TASK_TOKENS_WITHOUT_EXPECTED = 1024
REFLECTION_SPARE_TOKENS = 1024
"""Tokens a reflection answer may take besides its proposal (the words around GEPA's fenced block)."""
CHARS_PER_TOKEN = 4  # a proposal's limit in characters, in tokens of English text


class Stopped(Exception):
    """Raised inside a run to stop it: ``outcome`` says why (budget, cancelled, failed), ``detail`` the failure."""

    def __init__(self, outcome: Outcome, detail: str = "") -> None:
        super().__init__(detail or outcome.value)
        self.outcome, self.detail = outcome, detail


def task_max_tokens(examples: Sequence[Example]) -> int:
    """The ``max_tokens`` of a task call in a run with a budget: twice the longest expected answer of
    ``examples``, in characters (a token holds at least one), within :data:`TASK_TOKENS`;
    :data:`TASK_TOKENS_WITHOUT_EXPECTED` when no case has an expected value."""
    longest = max((len(expected_text(example)) for example in examples), default=0)
    if not longest:
        return TASK_TOKENS_WITHOUT_EXPECTED
    return min(TASK_TOKENS[1], max(TASK_TOKENS[0], 2 * longest))


def reflection_max_tokens(instruction: str) -> int:
    """The ``max_tokens`` of a reflection call in a run with a budget: the longest proposal allowed for
    ``instruction`` (``reflection.proposal_limit``) at :data:`CHARS_PER_TOKEN`, and some spare."""
    return proposal_limit(instruction) // CHARS_PER_TOKEN + REFLECTION_SPARE_TOKENS


def price(config: ModelConfig) -> tuple[float, float] | None:
    """(input, output) US dollars per million tokens: the price typed for the model, else litellm's cost map's,
    else ``None``."""
    return config.price_per_million or known_price(config)


class Tokens(Protocol):
    """A model's answer as the meter charges it: the tokens sent and received."""

    @property
    def prompt_tokens(self) -> int: ...

    @property
    def completion_tokens(self) -> int: ...


A = TypeVar("A", bound=Tokens)


class Meter:
    """Counts calls by role, prices their tokens, and stops the run at its budget or on Cancel (thread-safe).

    ``budget`` is the run's, shared with ``judge`` (the metric's ``llm()`` handler), whose spending counts toward
    the cost. In a run with a budget, a role with a known price gets a ``max_tokens`` (:meth:`max_tokens`:
    ``tokens`` by role, within what litellm says the model can answer), so that its worst case is known.
    """

    def __init__(
        self,
        models: Models,
        budget: Budget,
        tokens: dict[str, int],
        cancel: threading.Event | None = None,
        judge: MetricLlm | None = None,
    ) -> None:
        self.budget = budget
        self.cancel = cancel or threading.Event()
        self.judge = judge
        configs = {"task": models.task, "reflection": models.reflection}
        self._prices = {role: price(config) for role, config in configs.items()}
        self._names = {role: config.model for role, config in configs.items()}
        self._max_tokens = {
            role: _within(tokens[role], config) if budget.limit_usd is not None and self._prices[role] else None
            for role, config in configs.items()
        }
        self._calls = {"task": 0, "reflection": 0}
        self._lock = threading.Lock()

    @property
    def calls(self) -> Calls:
        with self._lock:
            return Calls(self._calls["task"], self._calls["reflection"])

    @property
    def cost_usd(self) -> float:
        """What the run's calls with a known price cost: the task, the reflection and the metric's own."""
        return self.budget.spent_usd

    @property
    def unpriced(self) -> tuple[str, ...]:
        """The models whose calls were made without a known price (they count as free)."""
        with self._lock:
            names = [self._names[role] for role, cost in self._prices.items() if cost is None and self._calls[role]]
        if self.judge is not None and self.judge.unpriced_calls and (chosen := self.judge.settings.effective()):
            names.append(chosen[0].model)
        return tuple(dict.fromkeys(names))

    def max_tokens(self, role: str) -> int | None:
        """The ``max_tokens`` calls of ``role`` are sent with (None: none, in a run without a budget or a price)."""
        return self._max_tokens[role]

    def start(self, role: str, prompt: str) -> float | None:
        """Before a call of ``role`` (``task`` or ``reflection``) sending ``prompt`` (its messages' text): raise
        :class:`Stopped` when the run was cancelled or its budget left cannot cover the call's worst case; else
        return that worst case, reserved until :meth:`count` or :meth:`failed`."""
        if self.cancel.is_set():
            raise Stopped(Outcome.CANCELLED)
        worst = worst_cost(len(prompt.encode("utf-8", "surrogatepass")), self._max_tokens[role], self._prices[role])
        if not self.budget.admit(worst):
            raise Stopped(Outcome.BUDGET)
        if self.cancel.is_set():  # while it waited for the calls in flight to end
            self.budget.settle(worst, None)
            raise Stopped(Outcome.CANCELLED)
        return worst

    def count(self, role: str, worst: float | None, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one call of ``role`` started with ``worst`` reserved, and charge what its tokens cost."""
        cost = self._prices[role]
        with self._lock:
            self._calls[role] += 1
        spent = (prompt_tokens * cost[0] + completion_tokens * cost[1]) / 1e6 if cost is not None else None
        self.budget.settle(worst, spent)

    def call(self, role: str, prompt: str, ask: Callable[[], A]) -> A:
        """The answer of ``ask()``, one call of ``role`` sending ``prompt``: admitted by :meth:`start`, then counted
        and charged (:meth:`count`); a call that fails stops the run (:class:`Stopped`, ``failed``)."""
        worst = self.start(role, prompt)
        try:
            answer = ask()
        except LlmError as exc:
            self.failed(role, worst, exc)
            raise Stopped(Outcome.FAILED, str(exc)) from None
        self.count(role, worst, answer.prompt_tokens, answer.completion_tokens)
        return answer

    def failed(self, role: str, worst: float | None, error: LlmError) -> None:
        """Count a call that failed, unless it was refused before any request left (no model, no key)."""
        self.budget.settle(worst, None)
        if error.kind not in NOT_SENT:
            with self._lock:
                self._calls[role] += 1


def _within(tokens: int, config: ModelConfig) -> int:
    """``tokens``, or fewer when litellm says ``config``'s model cannot answer with that many."""
    most = known_max_output(config)
    return min(tokens, most) if most is not None else tokens


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
        self.task = ChatTask(models.task, models.settings, meter.max_tokens("task"))
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
        if self.meter.cancel.is_set():
            raise Stopped(Outcome.CANCELLED)
        refused = self.meter.budget.refusals
        verdicts = self.metric.score_many(
            [
                (example["input"], output, example.get("expected"))
                for (_, example), output in zip(fresh, outputs, strict=True)
            ]
        )
        if self.meter.budget.refusals > refused:  # the budget ended a case's llm() call: its verdict is not one
            raise Stopped(Outcome.BUDGET)
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
        sent = instruction + render_input(example["input"])
        return self.meter.call("task", sent, lambda: self.task.reply(instruction, example["input"])).text


class Reflector:
    """Asks the reflection model with GEPA's prompt and extracts the proposal with GEPA's extractor."""

    def __init__(self, models: Models, meter: Meter) -> None:
        self.models, self.meter = models, meter
        self._known: dict[str, Reflection] = {}

    def many(self, prompts: Sequence[str]) -> list[Reflection]:
        """One reflection per prompt, in order; the calls run together."""
        if not self.models.deterministic:
            return parallel(self.ask, prompts)
        fresh = [prompt for prompt in dict.fromkeys(prompts) if prompt not in self._known]
        self._known.update(zip(fresh, parallel(self.ask, fresh), strict=True))
        return [self._known[prompt] for prompt in prompts]

    def ask(self, prompt: str) -> Reflection:
        """One reflection on ``prompt``, a fresh call."""
        models, most = self.models, self.meter.max_tokens("reflection")
        return self.meter.call("reflection", prompt, lambda: reflect(prompt, models.reflection, models.settings, most))


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
