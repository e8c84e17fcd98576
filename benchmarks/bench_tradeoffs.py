"""Reward trade-offs benchmark: what the page computes when a person moves a weight.

    .venv/bin/python benchmarks/bench_tradeoffs.py [--cases 10000] [--candidates 3] [--repeats 10]

Synthetic candidates (accuracy in {0, 1}, lognormal latency and cost, a few unmeasured cases)
stand for stored scores, as the page holds them after "Score candidates". One weight move
redoes, as the page does: the chosen candidate's per-case parts (``reward_parts``), the summary
per candidate, the winner map over the simplex, the nearest change of winner, rank stability
under 200 perturbations, A vs B (candidates, and one candidate's cases that change rank), and the
five figures the page draws (no weights bar chart since the sliders show the shares); then the
figures' JSON, which is what ``st.plotly_chart`` sends to the browser. Each step and the whole
are timed, median of N runs; the target for the whole is at most 300 ms.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent

from skynet_core.reward import reward_parts, validate_reward_spec  # noqa: E402
from skynet_core.reward.charts import (  # noqa: E402
    candidates_figure,
    curve_figure,
    stacked_reward_figure,
    ternary_winner_figure,
)
from skynet_core.reward.tradeoffs import (  # noqa: E402
    CandidateData,
    case_rank_changes,
    compare_weights,
    nearest_change,
    rank_stability,
    summarize,
    winner_map,
)

# (name, share of right answers, median latency ms, median cost USD), like the bundled example's candidates.
PROFILES = [
    ("fast-small", 0.68, 300.0, 0.0002),
    ("balanced", 0.86, 900.0, 0.0018),
    ("large-careful", 0.94, 2500.0, 0.011),
]


def make_candidates(cases: int, count: int, seed: int = 0) -> list[CandidateData]:
    rng = np.random.default_rng(seed)
    ids = [f"case-{i}" for i in range(cases)]
    candidates = []
    for index in range(count):
        name, right, latency, cost = PROFILES[index % len(PROFILES)]
        latency_ms = latency * rng.lognormal(0.0, 0.35, cases)
        cost_usd = cost * rng.lognormal(0.0, 0.35, cases)
        latency_ms[rng.random(cases) < 0.02] = np.nan
        candidates.append(
            CandidateData(
                f"{name}-{index}" if index >= len(PROFILES) else name,
                ids,
                (rng.random(cases) < right).astype(float),
                latency_ms,
                cost_usd,
            )
        )
    return candidates


def weight_move(candidates: list[CandidateData], spec: dict[str, Any]) -> dict[str, float]:
    """One redraw after a weight moved; seconds per step."""
    steps: dict[str, float] = {}

    def timed(name: str, work: Callable[[], Any]) -> Any:
        started, cpu = time.perf_counter(), time.process_time()
        value = work()
        steps[name] = time.perf_counter() - started
        # CPU seconds of this process: on a shared, loaded machine, what a quiet one's wall time would be.
        steps["cpu"] = steps.get("cpu", 0.0) + time.process_time() - cpu
        return value

    norm = timed("validate spec", lambda: validate_reward_spec(spec))
    shown = candidates[0]
    _, parts = timed("per-case parts", lambda: reward_parts(shown.accuracy, shown.latency_ms, shown.cost_usd, norm))
    summary = timed("summary", lambda: summarize(candidates, norm))
    grid = timed("winner map", lambda: winner_map(summary, 0.02))
    timed("nearest change", lambda: nearest_change(summary, grid, norm.weights))
    timed("rank stability", lambda: rank_stability(candidates, norm, n=200, spread=0.10))
    # A vs B: A is the spec's first weights, B the moved ones; the cases of one candidate that change rank.
    base_weights = {"accuracy": 0.7, "speed": 0.2, "cost": 0.1}
    timed("A vs B candidates", lambda: compare_weights(summary, base_weights, norm.weights))
    timed("A vs B case ranks", lambda: case_rank_changes(shown, norm, base_weights, norm.weights))
    figures = timed(
        "figures",
        lambda: [
            curve_figure("speed", norm.speed_ref, shown.latency_ms, shown.ids),
            curve_figure("cost", norm.cost_ref, shown.cost_usd, shown.ids),
            stacked_reward_figure(shown.ids, parts, norm.weights),
            candidates_figure(summary, norm),
            ternary_winner_figure(grid, norm.weights, int(np.isnan(shown.latency_ms).sum())),
        ],
    )
    timed("figures' JSON", lambda: [figure.to_json() for figure in figures])
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=10_000)
    parser.add_argument("--candidates", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=10)
    args = parser.parse_args()

    candidates = make_candidates(args.cases, args.candidates)
    spec = {
        "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
        "speed": {"reference": 2000},
        "cost": {"reference": 0.01},
    }
    weight_move(candidates, spec)  # warm-up: imports, plotly's validators
    runs = []
    for repeat in range(args.repeats):
        # Each repeat moves the accuracy weight, as a person nudging the control would.
        moved = {**spec, "weights": {**spec["weights"], "accuracy": 0.5 + 0.05 * repeat}}
        runs.append(weight_move(candidates, moved))

    print(f"Moving a weight: {args.cases} cases x {args.candidates} candidates, median of {args.repeats}")
    for step in (step for step in runs[0] if step != "cpu"):
        print(f"  {step:<16} {statistics.median(run[step] for run in runs) * 1000:8.1f} ms")
    compute = [sum(seconds for step, seconds in run.items() if step not in ("figures' JSON", "cpu")) for run in runs]
    total = [sum(seconds for step, seconds in run.items() if step != "cpu") for run in runs]
    print(f"  {'recompute + figures':<24} {statistics.median(compute) * 1000:8.1f} ms")
    print(f"  {'with the figures JSON':<24} {statistics.median(total) * 1000:8.1f} ms (target: at most 300 ms)")
    cpu = statistics.median(run["cpu"] for run in runs)
    print(f"  {'CPU time of the whole':<24} {cpu * 1000:8.1f} ms (wall time on a loaded machine exceeds it)")


if __name__ == "__main__":
    main()
