"""A labels file at its 64 MB cap, nearly all of it for cases the data does not have (issue 42, item 7).

    .venv/bin/python benchmarks/bench_labels.py [--mb 64] [--cases 60] [--repeats 3]

Writes a data file of ``--cases`` cases and a labels CSV of about ``--mb`` MB: one row per case, then rows for
ids the data does not have until the size is reached (about 4.4 million rows at 64 MB). Each step runs in a
Python process of its own, so its peak resident memory (``VmHWM``) is its own:

- the import through the workspace, as the Human scores page's Import button makes it (``import_human_scores``):
  wall and CPU time and peak RSS, and how much the process held before it;
- ``score --labels`` on the command line, in process (scoring the cases included): wall and CPU time, peak RSS;
- the Human scores page afterwards (AppTest: the script run of the page, the labelling view and the panels; no
  scored run, so no report): the median of ``--repeats`` runs.

Targets: the file parses in at most 1 GB, the page draws in at most 1 s. The machine is shared: the load average
is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

METRIC = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'ok'}\n"


def peak_mb() -> float:
    """This process's peak resident memory (VmHWM) in MB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def write_files(folder: Path, cases: int, mb: int) -> tuple[Path, Path, Path, int]:
    data = folder / "support.jsonl"
    data.write_text("".join(json.dumps({"id": f"s{n}", "input": {"n": n}, "output": "x"}) + "\n" for n in range(cases)))
    metric = folder / "metric.py"
    metric.write_text(METRIC)
    labels = folder / "labels.csv"
    rows = 0
    with labels.open("w") as handle:
        handle.write("id,human\n")
        handle.writelines(f"s{n},{n % 2}\n" for n in range(cases))
        limit = mb * 1_000_000
        while handle.tell() < limit:
            handle.writelines(f"ghost{rows + n},1\n" for n in range(10_000))
            rows += 10_000
    return data, metric, labels, rows


def child_import(folder: Path, data: Path, labels: Path) -> dict[str, float]:
    from skynet_core.workspace import Workspace

    os.environ["SKYNET_DATA_ROOTS"] = str(folder)
    ws = Workspace(folder / "studio", env={})
    ws.data.save_choice(str(data))
    if ws.data.in_use().problem:
        raise SystemExit(ws.data.in_use().problem)
    before = peak_mb()
    content = labels.read_bytes()  # as the page's uploader holds it
    start, cpu = time.perf_counter(), time.process_time()
    found = ws.human.import_scores(labels.name, content)
    return {
        "seconds": time.perf_counter() - start,
        "cpu": time.process_time() - cpu,
        "peak_mb": peak_mb(),
        "before_mb": before,
        "kept": found.count,
        "unknown": found.unknown_rows,
    }


def child_cli(data: Path, metric: Path, labels: Path) -> dict[str, float]:
    import io

    from skynet_core.cli import run

    out, err = io.StringIO(), io.StringIO()
    start, cpu = time.perf_counter(), time.process_time()
    code = run(["score", str(metric), "--data", str(data), "--labels", str(labels), "--json"], stdout=out, stderr=err)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    return {"seconds": seconds, "cpu": cpu, "peak_mb": peak_mb(), "exit": code, "json_bytes": len(out.getvalue())}


def child_page(folder: Path, repeats: int) -> dict[str, float]:
    os.environ["SKYNET_DATA_DIR"] = str(folder / "studio")
    os.environ["SKYNET_DATA_ROOTS"] = str(folder)
    from tests.app.harness import open_app

    at = open_app("human", timeout=120)
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        at.run()
        times.append(time.perf_counter() - start)
    return {"median_s": statistics.median(times), "max_s": max(times)}


def in_child(step: str, *args: str) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, __file__, "--child", step, *args], capture_output=True, text=True, cwd=ROOT, check=False
    )
    if done.returncode:
        raise SystemExit(f"{step} failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.splitlines()[-1])
    return result


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mb", type=int, default=64)
    parser.add_argument("--cases", type=int, default=60)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--child", nargs="+")
    args = parser.parse_args()
    if args.child:
        step, *paths = args.child
        folder = Path(paths[0])
        result = (
            child_import(folder, Path(paths[1]), Path(paths[2]))
            if step == "import"
            else child_cli(Path(paths[1]), Path(paths[2]), Path(paths[3]))
            if step == "cli"
            else child_page(folder, int(paths[1]))
        )
        print(json.dumps(result))
        return
    with tempfile.TemporaryDirectory() as temp:
        folder = Path(temp)
        data, metric, labels, ghosts = write_files(folder, args.cases, args.mb)
        size = labels.stat().st_size / 1e6
        print(f"labels file {size:.1f} MB: {args.cases} rows for the data's cases, {ghosts:,} for other ids")
        print(f"load average at the start {os.getloadavg()[0]:.1f}")
        found = in_child("import", str(folder), str(data), str(labels))
        print(
            f"  import (workspace): {found['seconds']:.1f} s ({found['cpu']:.1f} s of CPU), "
            f"peak RSS {found['peak_mb']:.0f} MB "
            f"({found['before_mb']:.0f} MB before it); kept {found['kept']:.0f}, counted {found['unknown']:,.0f}"
        )
        cli = in_child("cli", str(folder), str(data), str(metric), str(labels))
        print(
            f"  score --labels --json: {cli['seconds']:.1f} s ({cli['cpu']:.1f} s of CPU in its process), "
            f"peak RSS {cli['peak_mb']:.0f} MB, "
            f"exit {cli['exit']:.0f}, JSON {cli['json_bytes']:,.0f} bytes"
        )
        page = in_child("page", str(folder), str(args.repeats))
        print(f"  Human scores page afterwards: median {page['median_s']:.2f} s, max {page['max_s']:.2f} s")
        print(f"load average at the end {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
