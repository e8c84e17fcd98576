"""Peers on the same cases and metric: promptfoo, MLflow, and our command line, in one run.

    .venv/bin/python benchmarks/bench_peers.py [--cases 2000] [--repeats 1]
    .venv/bin/python benchmarks/bench_peers.py --install [--cases 2000]

Every tool scores the same JSONL cases with the same exact-match check
(output equals expected label), whole process, wall time:

- ours: ``python -m skynet_core score`` (isolated children), and ``--json --out``;
- promptfoo ``eval`` with the ``echo`` provider and a Python assertion file;
- MLflow ``mlflow.genai.evaluate`` with a ``@scorer`` function.

``--install`` installs promptfoo (npm) and MLflow (PyPI) into a temporary
folder, never into the project's environment, measures them, and removes the
folder. Without it, only ours is measured and the peers' figures printed are
those measured earlier on this machine (issue #14), labelled as such.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_cli import BARE, EXACT, cli, write_cases  # noqa: E402

PROMPTFOO = "promptfoo@0.118.0"  # the last that runs on Node 20 (0.123 wants 22.22)
MLFLOW = "mlflow==3.17.2"  # 3.18.0's mlflow-skinny is not on every mirror yet
EARLIER = {  # issue #14: 2,000 cases, this 2-core machine, under load, medians
    "promptfoo eval, Python assertion": "79-125 s",
    "MLflow genai.evaluate": "71-137 s",
}
PROMPTFOO_ASSERT = "def get_assert(output, context):\n    return output == context['vars']['label']\n"
MLFLOW_SCRIPT = textwrap.dedent("""
    import json, sys
    import mlflow
    from mlflow.genai.scorers import scorer

    @scorer
    def exact(outputs, expectations):
        return outputs == expectations["label"]

    rows = [json.loads(line) for line in open(sys.argv[1])]
    data = [{"inputs": row["input"], "outputs": row["output"], "expectations": row["expected"]} for row in rows]
    mlflow.set_tracking_uri("sqlite:///" + sys.argv[2])
    result = mlflow.genai.evaluate(data=data, scorers=[exact])
    print(json.dumps({"metrics": {key: float(value) for key, value in result.metrics.items()}}))
""")


def wall(command: list[str], timeout: float | None = None, **kwargs: object) -> float | None:
    """Seconds the command took, or None when it outlived ``timeout`` (it is then killed)."""
    started = time.perf_counter()
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)  # type: ignore[call-overload]
    except subprocess.TimeoutExpired:
        return None
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1, 100):  # promptfoo exits 100 when some assertions fail
        raise SystemExit(f"{command[0]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def install(tmp: Path) -> tuple[Path, Path]:
    """promptfoo's executable and a Python with MLflow, both inside ``tmp``."""
    print(f"installing {PROMPTFOO} and {MLFLOW} into {tmp} ...", flush=True)
    python = tmp / "mlflow" / "bin" / "python"
    for command in (
        ["npm", "install", "--no-audit", "--no-fund", "--prefix", str(tmp / "npm"), PROMPTFOO],
        [sys.executable, "-m", "venv", str(tmp / "mlflow")],
        [str(python), "-m", "pip", "install", "-q", MLFLOW],
    ):
        # No browser download (promptfoo pulls in Playwright; nothing here needs it, and it needs the network).
        done = subprocess.run(
            command, capture_output=True, text=True, env={**os.environ, "PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD": "1"}
        )
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed: {(done.stderr or done.stdout)[-2000:]}")
    return tmp / "npm" / "node_modules" / ".bin" / "promptfoo", python


def promptfoo_config(tmp: Path, data: Path) -> Path:
    tests = tmp / "tests.csv"
    with tests.open("w") as handle:
        handle.write("output,label\n")
        for line in data.open():
            row = json.loads(line)
            handle.write(f"{row['output']},{row['expected']['label']}\n")
    (tmp / "assert_exact.py").write_text(PROMPTFOO_ASSERT)
    config = tmp / "promptfooconfig.yaml"
    config.write_text(
        f"prompts: ['{{{{output}}}}']\nproviders: [echo]\ntests: file://{tests}\n"
        f"defaultTest:\n  assert:\n    - type: python\n      value: file://{tmp / 'assert_exact.py'}\n"
    )
    return config


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=1)
    parser.add_argument("--install", action="store_true", help="install and measure promptfoo and MLflow (temporary)")
    parser.add_argument(
        "--peer-timeout",
        type=float,
        default=900.0,
        metavar="S",
        help="stop a peer's run after S seconds and report it as unfinished (default 900)",
    )
    args = parser.parse_args()
    figures: dict[str, str] = {}

    def record(label: str, samples: list[float | None], unit: str = "s", note: str = "") -> None:
        finished = [sample for sample in samples if sample is not None]
        figures[label] = (
            f"{statistics.median(finished):.2f} {unit}{note}"
            if len(finished) == len(samples)
            else f"did not finish within {args.peer_timeout:g} s{note}"
        )
        print(f"  {label}: {figures[label]}", flush=True)

    with tempfile.TemporaryDirectory() as name:
        tmp = Path(name)
        data, metric = tmp / "cases.jsonl", tmp / "exact.py"
        write_cases(data, args.cases)
        metric.write_text(EXACT)
        ours = {
            "bare loop (fresh Python, no isolation)": [
                sys.executable,
                "-c",
                BARE,
                str(data),
                str(metric),
                str(tmp / "bare.jsonl"),
            ],
            "skynet score": cli("score", str(metric), "--data", str(data)),
            "skynet score --json --out r.jsonl": cli(
                "score", str(metric), "--data", str(data), "--json", "--out", str(tmp / "r.jsonl")
            ),
        }
        for label, command in ours.items():
            record(label, [wall(command, cwd=ROOT) for _ in range(args.repeats)])
        if args.install:
            promptfoo, python = install(tmp)
            env = {
                **os.environ,
                "PROMPTFOO_DISABLE_TELEMETRY": "1",
                "PROMPTFOO_DISABLE_UPDATE": "1",
                "PROMPTFOO_CONFIG_DIR": str(tmp / "promptfoo-home"),
                "PROMPTFOO_PYTHON": sys.executable,
            }
            config = promptfoo_config(tmp, data)
            samples = [
                wall(
                    [
                        str(promptfoo),
                        "eval",
                        "-c",
                        str(config),
                        "--no-cache",
                        "--no-progress-bar",
                        "-o",
                        str(tmp / "promptfoo.json"),
                    ],
                    args.peer_timeout,
                    cwd=tmp,
                    env=env,
                )
                for _ in range(args.repeats)
            ]
            if all(sample is not None for sample in samples):
                stats = json.loads((tmp / "promptfoo.json").read_text())["results"]["stats"]
                if stats["successes"] + stats["failures"] != args.cases:
                    raise SystemExit(f"promptfoo scored {stats['successes'] + stats['failures']} of {args.cases}")
            record("promptfoo eval, Python assertion", samples, note=" (measured now)")
            script = tmp / "mlflow_eval.py"
            script.write_text(MLFLOW_SCRIPT)
            quiet = {**os.environ, "MLFLOW_DISABLE_TELEMETRY": "true", "DO_NOT_TRACK": "1"}
            samples = [
                wall(
                    [str(python), str(script), str(data), str(tmp / "mlflow.db")], args.peer_timeout, cwd=tmp, env=quiet
                )
                for _ in range(args.repeats)
            ]
            record("MLflow genai.evaluate", samples, note=" (measured now)")
        else:
            figures.update({label: f"{value} (issue #14, measured earlier)" for label, value in EARLIER.items()})
    print(f"{args.cases:,} cases, exact match, whole process; load average {os.getloadavg()[0]:.1f}")
    print("| tool | wall |\n| --- | ---: |")
    for label, value in figures.items():
        print(f"| {label} | {value} |")


if __name__ == "__main__":
    main()
