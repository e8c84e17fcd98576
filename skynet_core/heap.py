"""Long-lived data out of the garbage collector's sight, so that a full collection stays short.

A full collection holds the GIL while it scans every tracked object of the process. A dataset of
900,000 cases is some four million of them (each case and its dicts), and "Score all" adds two per
result; Streamlit collected fully after every script run (until ``runner.postScriptGC`` was turned off
in ``.streamlit/config.toml``), five times a second while a page polls a job, and each collection took
1 to 7 s (``benchmarks/bench_server.py`` logs them): the server answered nothing meanwhile, health
checks included. Python's own full collections remain.

:func:`settle` moves every object alive now into the permanent generation (``gc.freeze``), which
collections never scan: it is O(1), and such objects are still freed by reference counting as
soon as nothing holds them (cases and results hold no cycles). Only a garbage cycle among them
would wait for ``gc.unfreeze``: the young generations are collected first, so few can be caught.
While a large dataset loads, the collector is off (:func:`quiet`): its automatic full collections,
each scanning the heap that the load keeps growing, took 40 of the 120 s a 900,000-case file took to
load. A loaded dataset is then settled once, and a run that keeps its results settles them every
:data:`SETTLE_EVERY` (:class:`Settler`).
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

SETTLE_EVERY = 20_000
"""A run that keeps its results settles them once per this many (a full collection of 20,000
results' objects takes some 0.05 s here)."""


def settle() -> None:
    """Collect the young generations, then freeze everything alive: later collections skip it."""
    gc.collect(1)
    gc.freeze()


@contextmanager
def quiet() -> Iterator[None]:
    """No automatic collection inside (for building long-lived data), then :func:`settle` what was built."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        settle()
        if collecting:
            gc.enable()


class Settler:
    """Counts objects a run keeps and calls :func:`settle` once every ``every`` of them. Callers need not
    lock: a count lost to a race only delays the next settle."""

    __slots__ = ("_count", "every")

    def __init__(self, every: int = SETTLE_EVERY) -> None:
        self.every, self._count = every, 0

    def kept(self, count: int = 1) -> None:
        self._count += count
        if self._count >= self.every:
            self._count = 0
            settle()
