"""The app's scoring paths without the browser: what "Score candidates" and "Compare scores" ask of skynet_core.

    .venv/bin/python benchmarks/bench_app_scoring.py [--repeats 5]

- Reward trade-offs, "Score candidates": the contract check with every case
  of the bundled example (72 cases x 3 candidates = 216) as the sample, the
  reward metric, 8 calls in flight (the app's default), as ``submit_score`` runs it.
- History, "Compare scores": the exact-match metric and then the JSON-checks
  metric on the 72 cases of one candidate, one run after the other, as the page runs them.

Each runs against a warm pool (as in the app, 1 s between runs for its spares
to refill), alternating two ways of starting children: one child until a case
is slow (what the runner does now), and all 8 from the first result (what it
did before; a slow judge still gets them all). Medians; the machine is
shared, so read the ratio.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from skynet_core.datasets import load_example  # noqa: E402
from skynet_core.examples import EXAMPLE_METRICS  # noqa: E402
from skynet_core.metric.contract import check_metric  # noqa: E402
from skynet_core.metric.source import MetricSource  # noqa: E402
from skynet_core.scoring import LocalScorer, RunOptions  # noqa: E402
from skynet_core.scoring.runner import WorkerPool, run  # noqa: E402

CONCURRENCY = 8


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    data = load_example()
    every = data.cases
    first = data.for_candidate(data.candidates[0])
    reward = EXAMPLE_METRICS["Accuracy, speed and cost"].read_text()
    exact = EXAMPLE_METRICS["Exact match"].read_text()
    checks = EXAMPLE_METRICS["Several checks (JSON)"].read_text()
    pool = WorkerPool()
    time.sleep(2.0)

    def score_candidates() -> None:
        report = check_metric(reward, every, RunOptions(concurrency=CONCURRENCY, pool=pool), sample=every)
        assert len(report.cases) == len(every), report.first_failure

    def compare_scores() -> None:
        for source in (exact, checks):
            scored = LocalScorer()(MetricSource.of(source), first, RunOptions(concurrency=CONCURRENCY, pool=pool))
            assert len(scored.results) == len(first)

    lazy = (run.SLOW_CASE_MS, run.BUSY_MS)
    times: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.repeats):
        for name, path in (
            ("Score candidates (216 cases)", score_candidates),
            ("Compare scores (2 x 72 cases)", compare_scores),
        ):
            for mode, thresholds in (("one child until a case is slow", lazy), ("all children at once", (0.0, 0.0))):
                run.SLOW_CASE_MS, run.BUSY_MS = thresholds
                time.sleep(1.0)
                started = time.perf_counter()
                path()
                times.setdefault((name, mode), []).append(time.perf_counter() - started)
    run.SLOW_CASE_MS, run.BUSY_MS = lazy
    pool.close()
    print(f"isolation: {pool.isolation.value}; load average {os.getloadavg()[0]:.1f}; median of {args.repeats}")
    for name in dict.fromkeys(name for name, _ in times):
        now = statistics.median(times[name, "one child until a case is slow"])
        before = statistics.median(times[name, "all children at once"])
        print(f"  {name:<32} {now:5.2f} s (all children at once: {before:5.2f} s, {before / now:.1f}x)")


if __name__ == "__main__":
    main()
