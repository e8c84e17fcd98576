"""What a run may spend on model calls: the one budget of ``score --max-cost`` (the metric's ``llm()`` calls) and
of the uplift experiment (its task and reflection calls, and the metric's ``llm()`` calls, on one budget).

A call starts only when the budget left covers its worst case (:func:`worst_cost`: its prompt at one token a
byte, its answer at all the tokens it may take, at its model's price). Calls in flight hold their worst case
until they end: a call that would fit once they have ended waits for them, and one that cannot fit even then
is refused. So calls started in parallel never spend past the budget. A call whose worst case is not known (a
metric's ``llm()`` call, which has no ``max_tokens``; a model without a price) starts while anything is left:
a run goes past its budget by at most the calls of that kind in flight when it was reached (one, when they
run one at a time). A call's reservation is released, and what it cost charged, when it ends.
"""

from __future__ import annotations

import threading

PROMPT_OVERHEAD_TOKENS = 16
"""Tokens a chat request adds to its messages' text (roles, separators), counted in a worst case."""


def worst_cost(prompt_bytes: int, max_tokens: int | None, price: tuple[float, float] | None) -> float | None:
    """The most a call can cost in US dollars: ``prompt_bytes`` of UTF-8 as as many tokens (a tokenizer's token
    is at least a byte), and ``max_tokens`` of answer, at ``price`` (input, output) per million tokens; None
    when the answer is unbounded or the price unknown."""
    if max_tokens is None or price is None:
        return None
    return ((prompt_bytes + PROMPT_OVERHEAD_TOKENS) * price[0] + max_tokens * price[1]) / 1e6


class Budget:
    """``limit_usd`` (None: no budget) and what the calls under it have spent and hold reserved. Thread-safe.

    :meth:`admit` before a call (False: the call must not start), :meth:`settle` after it, whatever happened.
    ``refusals`` counts the calls refused.
    """

    def __init__(self, limit_usd: float | None = None) -> None:
        self.limit_usd = limit_usd
        self._spent = 0.0
        self._reserved = 0.0
        self._in_flight = 0  # calls admitted and not settled (counted: a sum of floats never quite returns to 0)
        self._refusals = 0
        self._changed = threading.Condition()

    @property
    def spent_usd(self) -> float:
        with self._changed:
            return self._spent

    @property
    def refusals(self) -> int:
        with self._changed:
            return self._refusals

    def exhausted(self) -> bool:
        """Whether what was spent has reached the limit (counted as a refusal when it has): the rule for a call
        that reserves nothing, e.g. a metric's ``llm()`` call answered from the cache or asked."""
        with self._changed:
            if self.limit_usd is None or self._spent < self.limit_usd:
                return False
            self._refusals += 1
            return True

    def admit(self, worst_usd: float | None = None) -> bool:
        """Whether a call whose worst case is ``worst_usd`` (None: not known) may start; if so its worst case is
        reserved until :meth:`settle`. Refused once what was spent reaches the limit, and for a known worst case
        that what is left after the spending cannot cover; while the calls in flight hold what it needs, it waits
        for them to end."""
        need = worst_usd or 0.0
        with self._changed:
            limit = self.limit_usd
            while limit is not None:
                if self._spent >= limit or (worst_usd is not None and self._spent + need > limit):
                    self._refusals += 1
                    return False
                held = self._spent + self._reserved
                if (held + need <= limit if worst_usd is not None else held < limit) or not self._in_flight:
                    break
                self._changed.wait()
            self._reserved += need
            self._in_flight += 1
            return True

    def settle(self, worst_usd: float | None, cost_usd: float | None) -> None:
        """A call admitted with ``worst_usd`` ended: release its reservation and charge what it cost (None: not
        known, counted as free)."""
        with self._changed:
            self._reserved -= worst_usd or 0.0
            self._in_flight -= 1
            if not self._in_flight:
                self._reserved = 0.0
            self._spent += cost_usd or 0.0
            self._changed.notify_all()
