"""Keeping and reading back a large run: how long it takes, and the longest the GIL is held meanwhile.

    .venv/bin/python benchmarks/bench_keep.py [--cases 900000]

A job's end keeps its run (``RunStore.save``: every result and case, in SQLite), and the Author, Feedback review
and Human scores pages read the newest run back (``RunStore.get``). Both run in the server's process: while one
call holds the GIL, the server answers nothing, its health check included. A ticker thread sleeps 5 ms at a time
and records the longest gap between its wake-ups: the longest the GIL was held by the step being measured.

Printed for ``--cases`` trivial results and their cases: save; the first read of the run by a store that has not
read it (a new server, or another process); the same read again (the run is held once read).
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # this tree's skynet_core

from skynet_core.cases import Case  # noqa: E402
from skynet_core.results import CaseResult  # noqa: E402
from skynet_core.runs import RunKey  # noqa: E402
from skynet_core.store.runs import RunStore  # noqa: E402

TICK_S = 0.005


class Ticker:
    """A thread that wakes every :data:`TICK_S` and keeps the longest gap it saw since :meth:`reset`."""

    def __init__(self) -> None:
        self.longest = 0.0
        threading.Thread(target=self._run, daemon=True).start()

    def reset(self) -> None:
        self.longest = 0.0

    def _run(self) -> None:
        last = time.perf_counter()
        while True:
            time.sleep(TICK_S)
            now = time.perf_counter()
            self.longest = max(self.longest, now - last)
            last = now


def measured(ticker: Ticker, name: str, step: Callable[[], Any]) -> Any:
    ticker.reset()
    started = time.perf_counter()
    value = step()
    print(f"  {name:34s} {time.perf_counter() - started:7.2f} s   the GIL held at most {ticker.longest:.3f} s")
    return value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=900_000)
    args = parser.parse_args()
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    gc.disable()  # building the inputs is not measured: out of the collector's way, as the server keeps them
    cases = [
        Case(id=f"c{n}", input={"message": f"ticket {n}"}, output="billing", expected={"label": "billing"})
        for n in range(args.cases)
    ]
    results = [CaseResult(id=case.id, score=1.0, feedback="Correct.", duration_ms=0.1) for case in cases]
    gc.freeze()
    gc.enable()
    ticker = Ticker()
    print(f"{args.cases:,} results and their cases:")
    with tempfile.TemporaryDirectory() as folder:
        store = RunStore(folder)
        key = RunKey("cases.jsonl", "", None, "metric", "cases")
        run_id = measured(ticker, "save", lambda: store.save(key, results, metric_source="metric", cases=cases))
        reader = RunStore(folder)
        measured(ticker, "read back (first time)", lambda: reader.get(run_id))
        measured(ticker, "read back again (held)", lambda: reader.get(run_id))
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
