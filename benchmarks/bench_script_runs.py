"""Script-run benchmark: the server's CPU for one script run of each page (what every click, keystroke or poll
of a person's browser costs the server), and the SQLite connections the run opens.

    .venv/bin/python benchmarks/bench_script_runs.py [--runs 30] [--pages author,data,...]

Each page is opened through Streamlit's AppTest (``tests/app/harness.py``) on a new studio with the bundled example
(what a person sees first), run once to warm up, then run again N times; the figure is the median CPU time of this
process per run (the script's thread and AppTest's own reading of the page). It is measured twice, alternating: with
the store's connections kept open between calls (as the app runs) and with one opened per call (``IDLE_PER_FILE``
and ``IDLE_IN_ALL`` set to 0), which is how the store connected before.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.chdir(ROOT)
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
DATA = Path(tempfile.mkdtemp(prefix="bench-script-runs-"))
os.environ["SKYNET_DATA_DIR"] = str(DATA / "data")
os.environ["SKYNET_DATA_ROOTS"] = str(DATA)

import logging  # noqa: E402

from streamlit.testing.v1 import AppTest  # noqa: E402

from skynet_core.store import db as store_db  # noqa: E402
from tests.app.harness import PAGES, open_app  # noqa: E402


def opened(page: str) -> AppTest:
    """The app on ``page``, as its address asks for it (the page tests' harness), run once."""
    return open_app(page, check=True)


def counting_connects() -> Callable[[], int]:
    """Count the connections SQLite opens from now on; returns a reader of the count."""
    count = [0]
    plain = sqlite3.connect

    def connect(*args: Any, **kwargs: Any) -> sqlite3.Connection:
        count[0] += 1
        return plain(*args, **kwargs)

    sqlite3.connect = connect  # type: ignore[assignment]
    return lambda: count[0]


def per_run(at: AppTest, runs: int, connects: Callable[[], int]) -> tuple[float, float]:
    """Median CPU seconds per script run, and connections opened per run."""
    cpu: list[float] = []
    before = connects()
    for _ in range(runs):
        started = time.process_time()
        at.run()
        cpu.append(time.process_time() - started)
    return statistics.median(cpu), (connects() - before) / runs


def kept(on: bool) -> None:
    store_db.IDLE_PER_FILE, store_db.IDLE_IN_ALL = (4, 12) if on else (0, 0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--pages", default=",".join(PAGES))
    args = parser.parse_args()
    # AppTest's reading of the page warns that its thread has no script run context: expected in bare mode.
    logging.getLogger("streamlit.runtime.scriptrunner_utils.script_run_context").addFilter(lambda record: False)
    connects = counting_connects()
    print(f"Server CPU per script run, AppTest, median of {args.runs} runs (kept: connections kept open)")
    print(f"  {'page':<10} {'kept':>8} {'per call':>9} {'ratio':>6}  connections opened per run (per call)")
    for page in args.pages.split(","):
        at = opened(page)
        figures: dict[bool, list[tuple[float, float]]] = {True: [], False: []}
        for _round in range(2):
            for on in (True, False):
                kept(on)
                at.run()  # the first run after the switch fills (or empties) the kept connections
                figures[on].append(per_run(at, args.runs // 2, connects))
        kept(True)
        with_kept = statistics.mean(cpu for cpu, _ in figures[True])
        per_call = statistics.mean(cpu for cpu, _ in figures[False])
        opened_per_run = statistics.mean(count for _, count in figures[False])
        print(
            f"  {page:<10} {with_kept * 1000:6.1f} ms {per_call * 1000:6.1f} ms {with_kept / per_call:6.2f}"
            f"  {statistics.mean(count for _, count in figures[True]):.1f} ({opened_per_run:.1f})"
        )


if __name__ == "__main__":
    main()
