"""The one budget of a run's model calls (skynet_core/llm/budget.py): a call whose worst case is known starts only
when what is left covers it, waiting while calls in flight hold the rest; one whose worst case is unknown starts
while anything is left; nothing is ever refused without a budget."""

from __future__ import annotations

import threading

import pytest

from skynet_core.llm import Budget, worst_cost


def admitted_later(budget: Budget, worst: float) -> tuple[threading.Thread, list[bool]]:
    found: list[bool] = []
    thread = threading.Thread(target=lambda: found.append(budget.admit(worst)), daemon=True)
    thread.start()
    return thread, found


def test_a_call_waits_for_the_calls_in_flight_then_starts_if_what_is_left_covers_it() -> None:
    budget = Budget(5.0)
    assert budget.admit(3.0)
    thread, found = admitted_later(budget, 3.0)
    thread.join(0.3)
    assert thread.is_alive() and not found  # $3 is held by the call in flight: it waits
    budget.settle(3.0, 1.0)
    thread.join(5)
    assert found == [True]  # $1 spent, $4 left: it fits
    third, refused = admitted_later(budget, 3.0)
    third.join(0.3)
    assert third.is_alive()
    budget.settle(3.0, 2.5)
    third.join(5)
    assert refused == [False] and budget.refusals == 1  # $3.50 spent: $3 can never fit in what is left
    assert budget.spent_usd == pytest.approx(3.5)


def test_a_call_of_unknown_cost_starts_while_anything_is_left() -> None:
    budget = Budget(1.0)
    assert budget.admit() and not budget.exhausted()
    budget.settle(None, 0.6)
    assert budget.admit()
    budget.settle(None, 0.6)  # one call past the budget at most
    assert not budget.admit() and budget.exhausted() and budget.refusals == 2


def test_without_a_limit_every_call_starts() -> None:
    budget = Budget(None)
    assert all(budget.admit(1e9) for _ in range(3)) and not budget.exhausted()


def test_a_worst_case_is_the_prompt_at_a_token_a_byte_and_every_answer_token() -> None:
    assert worst_cost(984, 1000, (1.0, 2.0)) == pytest.approx((1000 * 1.0 + 1000 * 2.0) / 1e6)
    assert worst_cost(10, None, (1.0, 2.0)) is None and worst_cost(10, 5, None) is None
