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
import threading
from collections.abc import Iterator
from contextlib import contextmanager

SETTLE_EVERY = 20_000
"""A run that keeps its results settles them once per this many (a full collection of 20,000
results' objects takes some 0.05 s here)."""


def settle() -> None:
    """Collect the young generations, then freeze everything alive: later collections skip it."""
    gc.collect(1)
    gc.freeze()


class _Sections:
    """The open :func:`collector_off` sections of every thread. Invariant (under ``lock``): while ``open`` > 0 the
    collector is off; the last section to close turns it back on if it was on when the first one opened."""

    lock = threading.Lock()
    open = 0
    was_on = False


@contextmanager
def collector_off() -> Iterator[None]:
    """No automatic collection while any thread is inside one of these (a dataset loading in a page's run while
    litellm imports in the background: with each thread saving and restoring the switch on its own, the first
    to finish turned the collector back on under the other)."""
    with _Sections.lock:
        if _Sections.open == 0:
            _Sections.was_on = gc.isenabled()
            gc.disable()
        _Sections.open += 1
    try:
        yield
    finally:
        with _Sections.lock:
            _Sections.open -= 1
            if _Sections.open == 0 and _Sections.was_on:
                gc.enable()


@contextmanager
def built_frozen() -> Iterator[None]:
    """The collector off while the block builds long-lived objects, then every object alive frozen, uncollected:
    collecting the young generations first (as :func:`settle` does) would scan every object just built in one
    call (a second at 900,000 results read back)."""
    with collector_off():
        try:
            yield
        finally:
            gc.freeze()


def collector_state() -> tuple[int, bool]:
    """The sections open and whether the collector is on, read together. "Off with none open" is seen for an
    instant while another thread forks a sandbox: Python 3.11's subprocess turns the collector off around a fork
    with a ``preexec_fn`` and back on after it (a section opened in that instant leaves the switch to the fork)."""
    with _Sections.lock:
        return _Sections.open, gc.isenabled()


@contextmanager
def quiet() -> Iterator[None]:
    """No automatic collection inside (for building long-lived data), then :func:`settle` what was built."""
    with collector_off():
        try:
            yield
        finally:
            settle()


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
