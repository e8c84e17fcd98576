"""Core benchmark: contract-check latency and bulk scoring through the isolated runner.

    .venv/bin/python benchmarks/bench_core.py [--cases 20000] [--repeats 20]

(a) The contract check of a trivial metric on 3 cases: through the public API
    (median of N, a warm pool as the app has it between keystrokes, and
    back-to-back with no pause) and through the CLI (whole process, median of 5).
(b) Scoring N cases with an exact-match metric through the runner, against the
    same metric in a plain in-process loop in a fresh Python, as a ratio: both
    for the loop alone (API vs loop) and end to end (CLI vs a script that reads
    the file and loops).
Reports medians; the machine is shared, so read ratios rather than absolutes.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

from bench_cli import write_cases  # noqa: E402  (benchmarks/ is on the path when a benchmark runs as a script)

from skynet_core.cases import Case  # noqa: E402
from skynet_core.metric.contract import check_metric  # noqa: E402
from skynet_core.metric.source import MetricSource  # noqa: E402
from skynet_core.scoring import LocalScorer, RunOptions  # noqa: E402
from skynet_core.scoring.runner import WorkerPool  # noqa: E402

TRIVIAL = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n"
EXACT = (
    "def score(input, output, expected=None):\n"
    "    want = expected['label']\n"
    "    if output == want:\n"
    "        return 1.0, {'feedback': 'Correct.'}\n"
    "    return 0.0, {'feedback': f'Expected {want!r}, got {output!r}.'}\n"
)
LOOP = """
import json, sys, time
started = time.perf_counter()
rows = [json.loads(line) for line in open(sys.argv[1])]
namespace = {}
exec(compile(open(sys.argv[2]).read(), "metric.py", "exec"), namespace)
score = namespace["score"]
loop_started = time.perf_counter()
results = [score(row["input"], row["output"], row["expected"]) for row in rows]
done = time.perf_counter()
print(json.dumps({"loop_s": done - loop_started, "total_s": done - started}))
"""


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000.0


def bench_check(pool: WorkerPool, repeats: int, pause: float) -> float:
    cases = [Case(id=str(i), input={"q": i}, output="a", expected={"label": "a"}) for i in range(3)]
    samples = []
    for _ in range(repeats):
        time.sleep(pause)
        started = time.perf_counter()
        report = check_metric(TRIVIAL, cases, RunOptions(timeout_s=10, pool=pool, stop_on_timeout=True), sample=cases)
        samples.append(time.perf_counter() - started)
        assert report.ok
    return median_ms(samples)


def bench_cli_check(metric: Path, data: Path) -> float:
    samples = []
    for _ in range(5):
        started = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "skynet_core", "check", str(metric), "--data", str(data)],
            cwd=ROOT,
            check=True,
            capture_output=True,
        )
        samples.append(time.perf_counter() - started)
    return median_ms(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=20)
    args = parser.parse_args()

    pool = WorkerPool()
    time.sleep(1.0)
    print(f"isolation: {pool.isolation.value} ({pool.isolation_reason})")
    print(
        f"(a) check, API, warm pool (0.3 s between checks), median of {args.repeats}: "
        f"{bench_check(pool, args.repeats, 0.3):.1f} ms"
    )
    print(f"(a) check, API, back to back, median of {args.repeats}: {bench_check(pool, args.repeats, 0.0):.1f} ms")

    with tempfile.TemporaryDirectory() as tmp:
        data = Path(tmp) / "cases.jsonl"
        write_cases(data, args.cases)  # the same synthetic tickets as bench_cli
        trivial, exact = Path(tmp) / "trivial.py", Path(tmp) / "exact.py"
        trivial.write_text(TRIVIAL)
        exact.write_text(EXACT)
        print(f"(a) check, CLI (whole process), median of 5: {bench_cli_check(trivial, data):.0f} ms")

        rows = [json.loads(line) for line in data.open()]
        cases = [Case(id=row["id"], input=row["input"], output=row["output"], expected=row["expected"]) for row in rows]
        runner_s, loop_s, cli_s, script_s = [], [], [], []
        for _ in range(3):
            time.sleep(0.5)
            started = time.perf_counter()
            run = LocalScorer()(MetricSource.of(EXACT), cases, RunOptions(timeout_s=60, pool=pool))
            runner_s.append(time.perf_counter() - started)
            assert len(run.results) == args.cases and all(result.ok for result in run.results)
            fresh = subprocess.run(
                [sys.executable, "-c", LOOP, str(data), str(exact)], capture_output=True, text=True, check=True
            )
            figures = json.loads(fresh.stdout)
            loop_s.append(figures["loop_s"])
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", LOOP, str(data), str(exact)], capture_output=True, check=True)
            script_s.append(time.perf_counter() - started)
            started = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "skynet_core", "score", str(exact), "--data", str(data)],
                cwd=ROOT,
                capture_output=True,
            )
            cli_s.append(time.perf_counter() - started)
        runner, loop = statistics.median(runner_s), statistics.median(loop_s)
        cli, script = statistics.median(cli_s), statistics.median(script_s)
        print(
            f"(b) {args.cases} cases, runner (API, wall): {runner * 1000:.0f} ms; a fresh Python reading the file "
            f"and looping in-process: {script * 1000:.0f} ms; ratio {runner / script:.1f}x"
        )
        print(
            f"(b) the same against the loop alone ({loop * 1000:.0f} ms, without starting Python or reading "
            f"the file): {runner / loop:.1f}x"
        )
        print(
            f"(b) end to end: CLI score {cli * 1000:.0f} ms; fresh Python reading the file and looping "
            f"{script * 1000:.0f} ms; ratio {cli / script:.1f}x"
        )
    pool.close()


if __name__ == "__main__":
    main()
