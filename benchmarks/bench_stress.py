"""Stress benchmark: the issue's 13 perturbations on 1,000 cases of a plain metric, against scoring those 13,000
perturbed outputs with ``score``.

    .venv/bin/python benchmarks/bench_stress.py [--cases 1000] [--repeats 3]

Both are the command line, whole process, as a person or CI runs them, with their report printed as JSON (to
``/dev/null``):

- ``stress``: ``python -m skynet_core stress METRIC --data CASES --perturbations <the 13> --json``: it perturbs
  every case (the outputs are a few words, so every perturbation changes every one), scores the 1,000 cases and
  their 13,000 perturbed copies in one scorer run, and builds the report (violations, 13 bootstrap intervals of
  1,000 resamples, feedback under stress, examples);
- ``score``: ``python -m skynet_core score METRIC --data PERTURBED --json`` of a JSON Lines file that holds exactly
  those 13,000 perturbed outputs (made with the same perturbations and seed).

The figure is the ratio of their wall times, medians of ``--repeats`` runs alternated (target ≤ 3). The machine
is shared: read the ratio rather than the absolutes.
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

sys.path.insert(0, str(ROOT))  # this tree's skynet_core (not another checkout's installed one)
from skynet_core.cases import Case  # noqa: E402
from skynet_core.stress import BY_ID, UNCHANGED, Draw  # noqa: E402

TARGET_RATIO = 3.0
THIRTEEN = (
    "whitespace",
    "case",
    "punctuation",
    "empty",
    "truncate",
    "other_case",
    "shuffle",
    "claims_correct",
    "thought_prefix",
    "injection",
    "padding",
    "smuggle_expected",
    "null",
)
LABELS = ("billing", "shipping", "account", "technical", "refund")
METRIC = """def score(input, output, expected=None):
    def norm(text):
        return " ".join(str(text).lower().split()).rstrip(".")
    want = expected["label"]
    ok = norm(output).endswith(want)
    return (1.0 if ok else 0.0), {"feedback": "Correct." if ok else f"Expected the label {want!r} at the end."}
"""


def cases(count: int) -> list[Case]:
    """Tickets whose answer names a label in a few words; every fourth one names the wrong label."""
    found = []
    for index in range(count):
        want = LABELS[index % len(LABELS)]
        said = want if index % 4 else LABELS[(index + 1) % len(LABELS)]
        output = f"Ticket {index} goes to {said}"
        found.append(Case(id=f"t{index}", input={"ticket": f"ticket {index}"}, output=output, expected={"label": want}))
    return found


def write(path: Path, rows: list[Case]) -> Path:
    with path.open("w") as handle:
        for case in rows:
            row = {"id": case.id, "input": case.input, "output": case.output, "expected": case.expected}
            handle.write(json.dumps(row) + "\n")
    return path


def perturbed(rows: list[Case], seed: int = 0) -> list[Case]:
    """Every perturbed copy the stress run scores: the 13 perturbations of each case, as ``run_stress`` makes them."""
    outputs = [case.output for case in rows]
    found = []
    for case in rows:
        for name in THIRTEEN:
            changed = BY_ID[name].apply(case.output, case, Draw.of(seed, name, case.id, outputs))
            if changed is not UNCHANGED:
                found.append(Case(id=f"{case.id}~{name}", input=case.input, output=changed, expected=case.expected))
    return found


def timed(argv: list[str]) -> float:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, check=False)
    elapsed = time.perf_counter() - started
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[:4])} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--cases", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        (base / "metric").mkdir()
        (base / "metric" / "metric.py").write_text(METRIC)
        rows = cases(args.cases)
        copies = perturbed(rows)
        data, everything = write(base / "cases.jsonl", rows), write(base / "perturbed.jsonl", copies)
        python = [sys.executable, "-m", "skynet_core"]
        stress = [*python, "stress", str(base / "metric"), "--data", str(data), "--perturbations", ",".join(THIRTEEN)]
        score = [*python, "score", str(base / "metric"), "--data", str(everything)]
        timed([*score, "--json"])  # warm the file cache and the bytecode
        stress_s, score_s = [], []
        for _repeat in range(args.repeats):
            stress_s.append(timed([*stress, "--json"]))
            score_s.append(timed([*score, "--json"]))
        stressed, scored = statistics.median(stress_s), statistics.median(score_s)
        ratio = stressed / scored
        print(f"{len(rows)} cases, {len(copies)} perturbed outputs ({len(THIRTEEN)} perturbations)")
        print(f"stress: {stressed:.2f} s (runs {', '.join(f'{value:.2f}' for value in stress_s)})")
        print(f"score of the perturbed outputs: {scored:.2f} s (runs {', '.join(f'{value:.2f}' for value in score_s)})")
        print(f"ratio {ratio:.2f}x (target <= {TARGET_RATIO:g}x): {'met' if ratio <= TARGET_RATIO else 'NOT met'}")


if __name__ == "__main__":
    main()
