"""Optimize a one-step DSPy program with dspy.GEPA; metric/ scores every prediction, sandboxed.

    pip install -r requirements.txt
    export SKYNET_TASK_MODEL=openai/gpt-4o-mini        # the program's model
    export SKYNET_REFLECTION_MODEL=openai/gpt-4o       # reads the metric's feedback, writes the next instruction
    export OPENAI_API_KEY=...                          # the provider's usual key variable
    python run_dspy.py --max-metric-calls 60

fields.json maps the DSPy example's fields to the metric's ``input`` and ``expected`` and the
prediction's fields to its ``output``. ``SKYNET_<ROLE>_API_BASE`` points a role at an
OpenAI-compatible server. The best instruction is printed and written to best_instruction.txt.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import dspy

from skynet_core.cases import Case
from skynet_core.engines import (
    DspyFields,
    SandboxedMetric,
    dspy_examples,
    dspy_metric,
    dspy_program,
    litellm_kwargs,
    model_from_env,
)
from skynet_core.llm import ModelSettings, make_handler
from skynet_core.metric.folder import read_metric
from skynet_core.scoring import RunOptions

HERE = Path(__file__).resolve().parent
EMPTY = (
    'cases.jsonl is empty: add one JSON line per case, {"id": ..., "split": "train" or "val", "input": {...}, '
    '"expected": {...} or null}, or export again with the dataset.'
)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--max-metric-calls", type=int, default=60, help="GEPA's budget of metric calls")
    parser.add_argument("--minibatch", type=int, default=3, help="cases the reflection model reads per step")
    args = parser.parse_args()

    task_model, reflection_model = model_from_env("task"), model_from_env("reflection")
    if task_model is None or reflection_model is None:
        sys.exit(
            "Set SKYNET_TASK_MODEL and SKYNET_REFLECTION_MODEL (or SKYNET_TASK_API_BASE and "
            "SKYNET_REFLECTION_API_BASE for a local OpenAI-compatible server)."
        )
    rows = [json.loads(line) for line in (HERE / "cases.jsonl").read_text().splitlines() if line.strip()]
    cases = [
        Case(id=row["id"], input=row["input"], output=None, expected=row["expected"], split=row["split"])
        for row in rows
    ]
    spec = json.loads((HERE / "fields.json").read_text())
    fields = DspyFields(tuple(spec["inputs"]), tuple(spec["expected"]), tuple(spec["outputs"]))
    train = dspy_examples([case for case in cases if case.split == "train"] or cases, fields)
    val = dspy_examples([case for case in cases if case.split == "val"], fields) or train

    options = RunOptions(llm=make_handler(ModelSettings.from_env()))  # scored on this machine, in the vendored runner
    metric = SandboxedMetric(read_metric(HERE / "metric"), options)
    optimizer = dspy.GEPA(
        metric=dspy_metric(metric, fields),
        max_metric_calls=args.max_metric_calls,
        reflection_lm=dspy.LM(reflection_model.model, cache=False, **litellm_kwargs(reflection_model)),
        reflection_minibatch_size=args.minibatch,
        num_threads=1,
        track_stats=True,
    )
    program = dspy_program(fields, (HERE / "instruction.txt").read_text().strip())
    with dspy.context(lm=dspy.LM(task_model.model, cache=False, **litellm_kwargs(task_model))):
        optimized = optimizer.compile(program, trainset=train, valset=val)

    best = optimized.signature.instructions
    (HERE / "best_instruction.txt").write_text(best + "\n")
    results = optimized.detailed_results
    print(
        json.dumps(
            {
                "best_instruction": best,
                "best_val_score": results.val_aggregate_scores[results.best_idx],
                "objective_pareto_front": results.objective_pareto_front,
                "metric_calls": metric.calls,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
