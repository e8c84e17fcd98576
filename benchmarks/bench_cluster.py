"""Cluster benchmark: a CPU-heavy metric scored on a local Ray cluster against the local runner.

    .venv/bin/python benchmarks/bench_cluster.py [--cases 2000] [--cpu-ms 50] [--cpus 2]

Starts a Ray head on loopback (127.0.0.2) with ``--cpus`` CPUs (stopped at the end), scores ``--cases``
cases with a metric that burns about ``--cpu-ms`` of CPU per case, once through the local
runner (``--cpus`` cases in flight) and once through the cluster, alternated ``--repeats`` times,
and prints the best times and their ratio (the overhead of going through Ray on one machine)
and the CPU seconds each path used in all its processes (which a loaded machine does not skew),
with how the cases were batched. The machine is shared: read the ratio, not the absolute times.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from skynet_core.cases import Case  # noqa: E402
from skynet_core.metric.source import MetricSource  # noqa: E402
from skynet_core.scoring import LocalScorer, RayScorer, RunOptions  # noqa: E402
from skynet_core.scoring.runner import WorkerPool  # noqa: E402

sys.path.insert(0, str(ROOT))  # for the tests' helpers; skynet_core itself is installed (setup.sh)
from tests.ray_cluster import LocalRayCluster, descendants  # noqa: E402

TICKS = os.sysconf("SC_CLK_TCK")

# A fixed amount of arithmetic per case (calibrated here to ``--cpu-ms``), so both runs compute the same scores.
HEAVY = """def score(input, output, expected=None):
    total = input['n']
    for k in range({rounds}):
        total = (total * 31 + k) % 1000003
    return (total % 10) / 10, {{'feedback': 'burned'}}
"""


def rounds_for(cpu_ms: float) -> int:
    """How many loop rounds take ``cpu_ms`` of CPU here (the best of a few tries, as on a quiet machine)."""
    namespace: dict = {}
    exec(HEAVY.format(rounds=200_000), namespace)  # noqa: S102  (our own benchmark metric)
    best = min(_cpu_s(namespace["score"]) for _ in range(5))
    return max(1, int(200_000 * cpu_ms / 1000.0 / best))


def _cpu_s(score) -> float:
    started = time.process_time()
    score({"n": 1}, "x")
    return time.process_time() - started


def timed(run, roots) -> tuple[float, float, object]:
    """Wall seconds, and the CPU seconds of every process under ``roots()`` while ``run`` ran: on a
    shared machine, CPU shows the overhead that wall time hides. Processes are sampled every 0.1 s,
    each counted at its last sample (a short-lived one can be missed, so this is a lower bound)."""
    seen: dict[tuple[int, int], float] = {}
    base = _sample(roots())
    done = threading.Event()

    def sample() -> None:
        while not done.is_set():
            seen.update(_sample(roots()))
            done.wait(0.1)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    started = time.monotonic()
    result = run()
    wall = time.monotonic() - started
    done.set()
    sampler.join()
    seen.update(_sample(roots()))
    return wall, sum(cpu - base.get(key, 0.0) for key, cpu in seen.items()), result


def _sample(roots: set[int]) -> dict[tuple[int, int], float]:
    """CPU seconds so far of each process under ``roots``, keyed by (pid, start time)."""
    found = {}
    for pid in set().union(*(descendants(root) | {root} for root in roots)):
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
        except OSError:
            continue
        found[(pid, int(fields[19]))] = (int(fields[11]) + int(fields[12])) / TICKS
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--cpu-ms", type=float, default=50.0)
    parser.add_argument("--cpus", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    source = MetricSource.of(HEAVY.format(rounds=rounds_for(args.cpu_ms)))
    cases = [Case(id=f"c{n}", input={"n": n}, output="x") for n in range(args.cases)]
    ideal_s = args.cases * args.cpu_ms / 1000.0 / args.cpus

    import ray

    pool = WorkerPool()
    cluster = LocalRayCluster(cpus=args.cpus)
    try:
        on_cluster = RayScorer(cluster.address)
        on_cluster(source, cases[: args.cpus], RunOptions(timeout_s=60))  # connect, start workers
        # Alternated, twice each, so that a burst of other work on the shared machine hits both.
        local_times, remote_times, local_cpu, remote_cpu = [], [], [], []
        for _ in range(args.repeats):
            local_s, cpu, local = timed(
                lambda: LocalScorer()(source, cases, RunOptions(timeout_s=60, concurrency=args.cpus, pool=pool)),
                lambda: {os.getpid()},
            )
            local_times.append(local_s)
            local_cpu.append(cpu)
            remote_s, cpu, remote = timed(
                lambda: on_cluster(source, cases, RunOptions(timeout_s=60)),
                lambda: {os.getpid(), *(node.process.pid for node in cluster.nodes)},
            )
            remote_times.append(remote_s)
            remote_cpu.append(cpu)
    finally:
        pool.close()
        ray.shutdown()
        cluster.stop()
    assert local.by_status == {"ok": args.cases} and remote.by_status == {"ok": args.cases}
    same = [(r.id, r.score) for r in remote.results] == [(r.id, r.score) for r in local.results]
    local_s, remote_s = min(local_times), min(remote_times)

    print(f"{args.cases} cases × {args.cpu_ms:g} ms CPU, {args.cpus} CPUs (ideal {ideal_s:.1f} s)")
    print(
        f"  local runner, {args.cpus} in flight: {local_s:.1f} s ({local_s / ideal_s:.2f}× ideal); "
        f"all runs: {', '.join(f'{t:.1f}' for t in local_times)} s"
    )
    print(
        f"  Ray, local cluster, {len(remote.batches)} batches of {remote.batches[0].count}: {remote_s:.1f} s "
        f"({remote_s / ideal_s:.2f}× ideal)"
    )
    print(f"  Ray / local: {remote_s / local_s:.2f}× (target ≤ 1.3×); same scores: {same}")
    print(
        f"  CPU seconds, all processes of each path: local {min(local_cpu):.1f}, Ray {min(remote_cpu):.1f} "
        f"({min(remote_cpu) / min(local_cpu):.2f}×)"
    )


if __name__ == "__main__":
    main()
