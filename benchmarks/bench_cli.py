"""The command line against a bare loop: wall time, ratio and peak memory, measured in the same run.

    .venv/bin/python benchmarks/bench_cli.py [--cases 20000 100000] [--repeats 3]
    .venv/bin/python benchmarks/bench_cli.py --million

The bare loop is a fresh Python that parses the JSONL file, calls the same
exact-match metric on every case in-process, and dumps one JSON line per
result to a file: no isolation, no checks. Each repeat runs the bare loop,
``score`` (text), ``score --json --out r.jsonl`` and ``score --json-lines``
back to back (alternated, so load on a shared machine hits them alike), and
the ratios are of the medians. Peak memory is the max RSS of the CLI process
(``wait4``), the sandboxed children excluded.

``--baseline TREE`` adds ``score (text)`` and ``score --json --out r.jsonl`` run from another checkout
of the project (e.g. ``git worktree add /tmp/before main``), alternated with the others, so a change
is measured against what it changes in one run, under the same load.

``--million`` generates 1,000,000 cases in a temporary folder, runs the bare
loop and ``score --out r.jsonl`` once each, and checks that every case is in
the output, in order.
"""

from __future__ import annotations

import argparse
import compileall
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
EXACT = (
    "def score(input, output, expected=None):\n"
    "    want = expected['label']\n"
    "    if output == want:\n"
    "        return 1.0, {'feedback': 'Correct.'}\n"
    "    return 0.0, {'feedback': f'Expected {want!r}, got {output!r}.'}\n"
)
BARE = """
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
namespace = {}
exec(compile(open(sys.argv[2]).read(), "metric.py", "exec"), namespace)
score = namespace["score"]
with open(sys.argv[3], "w") as out:
    for row in rows:
        value, info = score(row["input"], row["output"], row["expected"])
        out.write(json.dumps({"id": row["id"], "score": value, "feedback": info["feedback"]}) + "\\n")
"""
LABELS = ["billing", "technical", "account", "shipping"]


def write_cases(path: Path, count: int) -> None:
    with path.open("w") as handle:
        for start in range(0, count, 10000):
            handle.write(
                "".join(
                    json.dumps(
                        {
                            "id": str(index),
                            "input": {"message": f"ticket {index}"},
                            "output": LABELS[index % 4],
                            "expected": {"label": LABELS[index % 3]},
                        }
                    )
                    + "\n"
                    for index in range(start, min(count, start + 10000))
                )
            )


def timed(command: list[str], cwd: Path = ROOT) -> tuple[float, float, int, float]:
    """Wall seconds, max RSS in MB, exit status and CPU seconds (with the children it waited for) of one process."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    process.returncode = os.waitstatus_to_exitcode(status)
    stderr = process.stderr.read().decode() if process.stderr else ""
    if process.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}): {stderr}")
    return wall, usage.ru_maxrss / 1024, process.returncode, usage.ru_utime + usage.ru_stime


def compile_package(root: Path = ROOT) -> None:
    """Write the package's bytecode first, as an installed or once-run package has it: with
    PYTHONDONTWRITEBYTECODE set (as in some shells), every run would compile its modules again,
    a tenth of a second that no user pays."""
    compileall.compile_dir(root / "skynet_core", quiet=1)


def cli(*args: str) -> list[str]:
    return [sys.executable, "-m", "skynet_core", *args]


def bench(tmp: Path, count: int, repeats: int, baseline: Path | None = None) -> None:
    data, metric = tmp / f"cases{count}.jsonl", tmp / "exact.py"
    write_cases(data, count)
    metric.write_text(EXACT)
    runs = {
        "bare loop": [sys.executable, "-c", BARE, str(data), str(metric), str(tmp / "bare.jsonl")],
        "score (text)": cli("score", str(metric), "--data", str(data)),
        "score --json --out r.jsonl": cli(
            "score", str(metric), "--data", str(data), "--json", "--out", str(tmp / "r.jsonl")
        ),
        "score --json-lines": cli("score", str(metric), "--data", str(data), "--json-lines"),
    }
    where = dict.fromkeys(runs, ROOT)
    if baseline is not None:
        runs["baseline: score (text)"] = runs["score (text)"]
        runs["baseline: score --json --out"] = runs["score --json --out r.jsonl"]
        where["baseline: score (text)"] = where["baseline: score --json --out"] = baseline
    walls: dict[str, list[float]] = {name: [] for name in runs}
    cpus: dict[str, list[float]] = {name: [] for name in runs}
    rss: dict[str, float] = dict.fromkeys(runs, 0.0)
    for _ in range(repeats):
        for name, command in runs.items():
            wall, peak, _, cpu = timed(command, where[name])
            walls[name].append(wall)
            cpus[name].append(cpu)
            rss[name] = max(rss[name], peak)
    lines = sum(1 for _ in (tmp / "r.jsonl").open())
    assert lines == count, f"--out has {lines} lines for {count} cases"
    bare, bare_cpu = statistics.median(walls["bare loop"]), statistics.median(cpus["bare loop"])
    print(f"{count:,} cases, median of {repeats} (wall; CPU of the process, sandboxes counted if reaped before exit):")
    for name, samples in walls.items():
        median, cpu = statistics.median(samples), statistics.median(cpus[name])
        print(
            f"  {name:<28} {median:6.3f} s  {median / bare:5.2f}x bare   CPU {cpu:6.3f} s  {cpu / bare_cpu:5.2f}x"
            f"   max RSS {rss[name]:5.0f} MB"
        )


def million(tmp: Path) -> None:
    count = 1_000_000
    data, metric, out = tmp / "million.jsonl", tmp / "exact.py", tmp / "r.jsonl"
    write_cases(data, count)
    metric.write_text(EXACT)
    print(f"{count:,} cases ({data.stat().st_size / 1e6:.0f} MB of JSONL):")
    bare, bare_rss, _, bare_cpu = timed([sys.executable, "-c", BARE, str(data), str(metric), str(tmp / "bare.jsonl")])
    print(f"  bare loop                    {bare:6.1f} s  CPU {bare_cpu:6.1f} s  max RSS {bare_rss:5.0f} MB")
    wall, peak, code, cpu = timed(cli("score", str(metric), "--data", str(data), "--out", str(out)))
    ids = [json.loads(line)["id"] for line in out.open()]
    in_order = ids == [str(index) for index in range(count)]
    print(
        f"  score --out r.jsonl          {wall:6.1f} s  {wall / bare:4.1f}x bare  CPU {cpu:6.1f} s  "
        f"max RSS {peak:5.0f} MB  exit {code}; {len(ids):,} results, {'all in order' if in_order else 'NOT in order'}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, nargs="+", default=[20000, 100000])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--million", action="store_true", help="1,000,000 cases, score --out r.jsonl, once")
    parser.add_argument("--baseline", type=Path, default=None, help="another checkout to compare with")
    args = parser.parse_args()
    compile_package()
    if args.baseline is not None:
        compile_package(args.baseline)
    print(f"machine: {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at start")
    with tempfile.TemporaryDirectory() as tmp:
        if args.million:
            million(Path(tmp))
        else:
            for count in args.cases:
                bench(Path(tmp), count, args.repeats, args.baseline)
    print(f"load average {os.getloadavg()[0]:.1f} at the end")


if __name__ == "__main__":
    main()
