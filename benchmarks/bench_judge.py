"""Judge benchmark: scoring with a model-as-judge metric, cases in flight against a slow judge.

    .venv/bin/python benchmarks/bench_judge.py [--cases 200] [--latency-ms 200] [--concurrency 8] [--repeats 3]
    .venv/bin/python benchmarks/bench_judge.py --cases 60 --partly-cached 20 --latency-ms 500

A local OpenAI-compatible server (tests/fake_openai.py, 127.0.0.1) answers
every call after ``--latency-ms``. The metric calls ``llm()`` once per case,
through the isolated runner and litellm, as in the app. The figure is the wall
time as a ratio of the ideal N × latency / concurrency (target ≤ 1.5), median
of ``--repeats`` runs, with two diagnostics: the same run with a handler that
only sleeps (the runner's own overhead, no HTTP or litellm), and the litellm
call's own overhead per call (a judge that answers at once, one call at a time).
The machine is shared: read ratios rather than absolutes.

``--cached``: instead, "Score all" again after an edit that left the judge's calls alone (only the
feedback's wording changed), against the answer cache filled by a first run (a fresh cache in a
temporary folder): the provider calls it made (target 0) and its wall time as a ratio of the same
metric with the judge call removed (target ≤ 1.5), medians of ``--repeats`` runs alternated, each started
0.5 s after the one before (as a person's click would be: the pool has its spare worker started by then).

``--partly-cached NEW``: instead, "Score all" of ``--cases`` + NEW cases, the first ``--cases`` answered from the
answer cache (filled by a first run of those, each run with a fresh cache) and the NEW ones asking the judge:
the wall time as a ratio of the ideal, NEW × latency / concurrency, and the most calls the judge saw in flight
at once (target: the concurrency), medians of ``--repeats``. Before issue 44, the new cases went one at a time.

``--first-call``: instead, how soon a command line ``check`` of the judge
metric (3 cases) makes its first model call, from the process's start (median
of ``--repeats``), next to how long importing litellm takes in a fresh Python,
plainly and as ``skynet_core.llm`` does it, with the garbage collector off (the
floor: the CLI imports it in the background from its start, overlapping with
reading the data and starting the sandbox).
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
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

sys.path.insert(0, str(ROOT))  # this tree's skynet_core (not another checkout's installed one), the tests' helpers
from skynet_core.cases import Case  # noqa: E402
from skynet_core.llm import ModelConfig, ModelSettings, complete, make_handler  # noqa: E402
from skynet_core.llm.cache import LlmCache  # noqa: E402
from skynet_core.metric.source import MetricSource  # noqa: E402
from skynet_core.scoring import LocalScorer, RunOptions  # noqa: E402
from skynet_core.scoring.runner import LlmRequest, WorkerPool  # noqa: E402
from tests.fake_openai import FakeOpenAI  # noqa: E402

TARGET_RATIO = 1.5
IMPORT_LITELLM = (
    "import os, time; os.environ['LITELLM_LOCAL_MODEL_COST_MAP'] = 'True'; t = time.perf_counter(); "
    "import litellm; print(time.perf_counter() - t)"
)
# As skynet_core.llm imports it: with the garbage collector off meanwhile.
IMPORT_LITELLM_NO_GC = (
    "import gc, os, time; os.environ['LITELLM_LOCAL_MODEL_COST_MAP'] = 'True'; t = time.perf_counter(); "
    "gc.disable(); import litellm; gc.freeze(); gc.enable(); print(time.perf_counter() - t)"
)
JUDGE = """
from skynet import llm

def score(input, output, expected=None):
    verdict = llm("Answer PASS or FAIL, then one sentence.", input=f"Question: {input['question']}\\nAnswer: {output}")
    return (1.0 if verdict.strip().upper().startswith("PASS") else 0.0), {"feedback": verdict}
"""
# The same calls as JUDGE (an edit of the feedback's wording), and the same metric without its judge.
JUDGE_REWORDED = JUDGE.replace('{"feedback": verdict}', '{"feedback": "The judge said: " + verdict}')
NO_JUDGE = """
def score(input, output, expected=None):
    verdict = f"PASS. Question: {input['question']}, answer: {output}."
    return (1.0 if verdict.strip().upper().startswith("PASS") else 0.0), {"feedback": "The judge said: " + verdict}
"""


SETTLE_S = 0.5  # --cached: the pause before each timed run (both arms alike)


def make_cases(count: int) -> list[Case]:
    return [
        Case(id=f"case-{i}", input={"question": f"question {i}"}, output="billing", expected={"label": "billing"})
        for i in range(count)
    ]


def timed_run(pool: WorkerPool, cases: list[Case], concurrency: int, handler: Any, metric: str = JUDGE) -> float:
    started = time.perf_counter()
    run = LocalScorer()(MetricSource.of(metric), cases, RunOptions(concurrency=concurrency, llm=handler, pool=pool))
    elapsed = time.perf_counter() - started
    failed = [result for result in run.results if not result.ok]
    if failed or len(run.results) != len(cases):
        raise SystemExit(f"the benchmark run failed: {failed[0].error if failed else 'cases missing'}")
    return elapsed


def cached(count: int, latency_ms: float, concurrency: int, repeats: int) -> None:
    """Score all again from the answer cache, against the metric without its judge (module docstring)."""
    cases = make_cases(count)
    pool = WorkerPool()
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(latency_s=latency_ms / 1000.0, usage=(60, 12)) as server:
        cache = LlmCache(Path(tmp))
        settings = ModelSettings(metric=ModelConfig("openai/gpt-4o-mini", api_base=server.url))
        complete(settings, "warm up litellm")  # its import takes seconds; the app pays it once
        server.requests.clear()
        try:
            first = timed_run(pool, cases, concurrency, make_handler(settings, cache=cache))
            filled = len(server.requests)
            timed_run(pool, cases[:concurrency], concurrency, None, NO_JUDGE)  # warm the pool
            again, plain = [], []
            for _ in range(repeats):
                # Each run starts as a second click would, after the pool has started its spare worker: run
                # back to back, the run after a 30 ms one waited ~80 ms for a child to start.
                time.sleep(SETTLE_S)
                again.append(timed_run(pool, cases, concurrency, make_handler(settings, cache=cache), JUDGE_REWORDED))
                time.sleep(SETTLE_S)
                plain.append(timed_run(pool, cases, concurrency, None, NO_JUDGE))
            calls = len(server.requests) - filled
        finally:
            pool.close()
    ratio = statistics.median(again) / statistics.median(plain)
    print(
        f"judge scoring from the answer cache: {count} cases, judge latency {latency_ms:g} ms, {concurrency} in flight"
    )
    print(f"  first run (fills the cache)         {first:6.2f} s   {filled} provider calls")
    print(
        f"  again after a feedback edit         {statistics.median(again):6.3f} s   {calls} provider calls in "
        f"{repeats} runs (target 0)   runs: " + ", ".join(f"{value:.3f}" for value in again)
    )
    print(
        f"  the metric without its judge        {statistics.median(plain):6.3f} s   runs: "
        + ", ".join(f"{value:.3f}" for value in plain)
    )
    print(
        f"  ratio                               {ratio:6.2f}    (target <= 1.5: {'met' if ratio <= 1.5 else 'NOT met'})"
    )
    print(f"  load average                        {os.getloadavg()[0]:6.1f}")


def partly_cached(count: int, new: int, latency_ms: float, concurrency: int, repeats: int) -> None:
    """Score all again with ``new`` more cases than the cached ``count`` (module docstring)."""
    cases = make_cases(count + new)
    ideal_s = new * latency_ms / 1000.0 / concurrency
    walls, in_flight = [], []
    pool = WorkerPool()
    with FakeOpenAI(latency_s=0.0, usage=(60, 12)) as server:
        settings = ModelSettings(metric=ModelConfig("openai/gpt-4o-mini", api_base=server.url))
        complete(settings, "warm up litellm")  # its import takes seconds; the app pays it once
        try:
            for _ in range(repeats):
                with tempfile.TemporaryDirectory() as tmp:
                    cache = LlmCache(Path(tmp))
                    server.latency_s = 0.0
                    timed_run(pool, cases[:count], concurrency, make_handler(settings, cache=cache))
                    server.latency_s = latency_ms / 1000.0
                    server.max_in_flight = 0
                    server.requests.clear()
                    time.sleep(SETTLE_S)
                    walls.append(timed_run(pool, cases, concurrency, make_handler(settings, cache=cache)))
                    if len(server.requests) != new:
                        raise SystemExit(f"expected {new} provider calls, the judge saw {len(server.requests)}")
                    in_flight.append(server.max_in_flight)
        finally:
            pool.close()
    wall = statistics.median(walls)
    print(
        f"judge scoring, partly cached: {count} cases from the answer cache then {new} new, judge latency "
        f"{latency_ms:g} ms, {concurrency} in flight"
    )
    print(f"  ideal for the new ones (N x latency / concurrency)  {ideal_s:6.2f} s")
    print(
        f"  wall time, median of {repeats}                            {wall:6.2f} s   (runs: "
        + ", ".join(f"{value:.2f}" for value in walls)
        + ")"
    )
    print(f"  ratio to ideal                                      {wall / ideal_s:6.2f}")
    print(f"  one at a time would take                            {new * latency_ms / 1000.0:6.2f} s")
    print(f"  most calls seen in flight                           {max(in_flight):6d}   (runs: {in_flight})")
    print(f"  load average                                        {os.getloadavg()[0]:6.1f}")


def first_call(repeats: int) -> None:
    """Seconds from starting ``python -m skynet_core check`` to the judge's first request, and to the exit."""
    firsts, walls, imports, imports_no_gc = [], [], [], []
    with tempfile.TemporaryDirectory() as tmp, FakeOpenAI(usage=(60, 12)) as server:
        metric, data = Path(tmp) / "judge.py", Path(tmp) / "cases.jsonl"
        metric.write_text(JUDGE)
        data.write_text(
            "".join(
                json.dumps(
                    {
                        "id": f"c{i}",
                        "input": {"question": f"q{i}"},
                        "output": "billing",
                        "expected": {"label": "billing"},
                    }
                )
                + "\n"
                for i in range(3)
            )
        )
        env = {
            **os.environ,
            "SKYNET_METRIC_MODEL": "openai/gpt-4o-mini",
            "SKYNET_METRIC_API_BASE": server.url,
            "OPENAI_API_KEY": "sk-local",
            "SKYNET_DATA_DIR": tmp,
        }
        for repeat in range(repeats):
            server.requests.clear()
            # A data directory of its own each time: the answer cache of an earlier repeat would answer them all.
            fresh = {**env, "SKYNET_DATA_DIR": str(Path(tmp) / f"data-{repeat}")}
            started = time.perf_counter()
            process = subprocess.Popen(
                [sys.executable, "-m", "skynet_core", "check", str(metric), "--data", str(data)],
                cwd=ROOT,
                env=fresh,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
            )
            first = None
            while process.poll() is None:
                if first is None and server.requests:
                    first = time.perf_counter() - started
                time.sleep(0.01)
            walls.append(time.perf_counter() - started)
            if process.returncode != 0 or first is None:
                raise SystemExit(f"the check failed ({process.returncode}): {process.stdout.read().decode()}")
            firsts.append(first)
            done = subprocess.run([sys.executable, "-c", IMPORT_LITELLM], capture_output=True, text=True, check=True)
            imports.append(float(done.stdout))
            done = subprocess.run(
                [sys.executable, "-c", IMPORT_LITELLM_NO_GC], capture_output=True, text=True, check=True
            )
            imports_no_gc.append(float(done.stdout))
    print(f"CLI check of a judge metric on 3 cases, median of {repeats} (load average {os.getloadavg()[0]:.1f}):")
    print(
        f"  first model call after        {statistics.median(firsts):6.2f} s   (runs: "
        + ", ".join(f"{value:.2f}" for value in firsts)
        + ")"
    )
    print(f"  whole check                   {statistics.median(walls):6.2f} s")
    print(f"  importing litellm alone       {statistics.median(imports):6.2f} s   (a fresh Python, for comparison)")
    print(f"  ... with the collector off    {statistics.median(imports_no_gc):6.2f} s   (as skynet_core.llm does)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=200)
    parser.add_argument("--latency-ms", type=float, default=200.0)
    parser.add_argument("--concurrency", type=int, default=8)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--first-call", action="store_true", help="time the CLI's first model call instead")
    parser.add_argument("--cached", action="store_true", help="score again from the answer cache instead")
    parser.add_argument(
        "--partly-cached", type=int, default=None, metavar="NEW", help="--cases cached, then NEW more asking the judge"
    )
    args = parser.parse_args()
    if args.partly_cached is not None:
        partly_cached(args.cases, args.partly_cached, args.latency_ms, args.concurrency, args.repeats)
        return
    if args.cached:
        cached(args.cases, args.latency_ms, args.concurrency, max(args.repeats, 5))
        return
    if args.first_call:
        compileall.compile_dir(ROOT / "skynet_core", quiet=1)  # as bench_cli: bytecode as a user has it
        first_call(args.repeats)
        return
    latency_s = args.latency_ms / 1000.0
    ideal_s = args.cases * latency_s / args.concurrency
    cases = make_cases(args.cases)
    pool = WorkerPool()

    def sleeper(request: LlmRequest) -> dict[str, Any]:
        time.sleep(latency_s)
        return {
            "text": "PASS. fine",
            "usage": {"latency_ms": args.latency_ms, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": None},
        }

    try:
        with FakeOpenAI(latency_s=latency_s, usage=(60, 12)) as server:
            settings = ModelSettings(metric=ModelConfig("openai/gpt-4o-mini", api_base=server.url))
            handler = make_handler(settings)
            complete(settings, "warm up litellm")  # its import takes seconds; the app pays it once
            timed_run(pool, cases[: args.concurrency], args.concurrency, handler)  # warm caches and the pool

            walls = [timed_run(pool, cases, args.concurrency, handler) for _ in range(args.repeats)]
            sleeps = [timed_run(pool, cases, args.concurrency, sleeper) for _ in range(args.repeats)]

            server.latency_s = 0.0
            calls = 50
            started = time.perf_counter()
            for _ in range(calls):
                complete(settings, "Answer PASS or FAIL.", "x")
            per_call_ms = (time.perf_counter() - started) / calls * 1000.0
            in_flight = server.max_in_flight
    finally:
        pool.close()

    wall = statistics.median(walls)
    ratio = wall / ideal_s
    print(f"judge scoring: {args.cases} cases, judge latency {args.latency_ms:g} ms, {args.concurrency} in flight")
    print(f"  ideal (N x latency / concurrency)   {ideal_s:6.2f} s")
    print(
        f"  wall time, median of {args.repeats}            {wall:6.2f} s   (runs: "
        + ", ".join(f"{value:.2f}" for value in walls)
        + ")"
    )
    print(
        f"  ratio to ideal                      {ratio:6.2f}    (target <= {TARGET_RATIO}: "
        f"{'met' if ratio <= TARGET_RATIO else 'NOT met'})"
    )
    print(f"  one at a time would take            {args.cases * latency_s:6.2f} s")
    print(f"  most calls seen in flight           {in_flight:6d}")
    print(
        f"  runner alone (handler sleeps)       {statistics.median(sleeps):6.2f} s   ratio "
        f"{statistics.median(sleeps) / ideal_s:.2f}"
    )
    print(f"  litellm + HTTP overhead per call    {per_call_ms:6.1f} ms")


if __name__ == "__main__":
    main()
