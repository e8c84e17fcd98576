"""Human-score agreement benchmark: the whole report (7 figures, 2 named scores, 1,000 bootstrap resamples each).

    .venv/bin/python benchmarks/bench_human.py [--cases 1000] [--repeats 7]

Times :func:`skynet_core.human.measure_agreement` on labelled cases with ties (labels in quarter steps, a
pass/fail named score), after one warm-up call (scipy imported), as wall time and CPU time of this process;
prints the medians, the load average and, for scale, Krippendorff's alpha between two raters on the same cases.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numpy as np

from skynet_core.human import LabelledCase, Pairing, measure_agreement, rater_agreement


def labelled(n: int) -> Pairing:
    rng = np.random.default_rng(0)
    score = rng.random(n)
    human = np.round(np.clip(score + rng.normal(0, 0.3, n), 0, 1) * 4) / 4
    named = {"format": (score > 0.3).astype(float), "style": rng.random(n)}
    return Pairing(
        tuple(
            LabelledCase(f"c{i}", float(score[i]), float(human[i]), {name: float(v[i]) for name, v in named.items()})
            for i in range(n)
        ),
        unlabelled=0,
    )


def timed(call) -> tuple[float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    call()
    return time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    pairing = labelled(args.cases)
    measure_agreement(pairing)  # warm-up: scipy's import is not part of the figure
    runs = [timed(lambda: measure_agreement(pairing)) for _ in range(args.repeats)]
    first = {case.id: case.human for case in pairing.cases}
    second = {case.id: case.score for case in pairing.cases}
    alpha = [timed(lambda: rater_agreement(first, second)) for _ in range(args.repeats)]
    load = os.getloadavg()
    print(f"{args.cases} labelled cases, median of {args.repeats}, load average {load[0]:.1f} / {load[1]:.1f}")
    print(
        f"  agreement report: wall {statistics.median(r[0] for r in runs):.3f} s, "
        f"CPU {statistics.median(r[1] for r in runs):.3f} s"
    )
    print(
        f"  two raters' alpha: wall {statistics.median(r[0] for r in alpha):.3f} s, "
        f"CPU {statistics.median(r[1] for r in alpha):.3f} s"
    )


if __name__ == "__main__":
    main()
