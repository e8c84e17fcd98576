"""Optimize instruction.txt with GEPA's optimize_anything; metric/ scores every output, sandboxed.

    pip install -r requirements.txt
    export SKYNET_TASK_MODEL=openai/gpt-4o-mini        # runs the instruction on each case
    export SKYNET_REFLECTION_MODEL=openai/gpt-4o       # reads the metric's feedback, writes the next version
    export OPENAI_API_KEY=...                          # the provider's usual key variable
    python run_gepa.py --max-metric-calls 60

``SKYNET_<ROLE>_API_BASE`` points a role at an OpenAI-compatible server (Ollama, vLLM); the
metric's own ``llm()`` calls use ``SKYNET_METRIC_MODEL`` (else the reflection model). The best
instruction is printed and written to best_instruction.txt.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from gepa.optimize_anything import EngineConfig, GEPAConfig, ReflectionConfig, optimize_anything

from skynet_core.engines import ChatTask, SandboxedMetric, gepa_evaluator, litellm_kwargs, model_from_env
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
    examples = [json.loads(line) for line in (HERE / "cases.jsonl").read_text().splitlines() if line.strip()]
    if not examples:
        sys.exit(EMPTY)
    train = [example for example in examples if example["split"] == "train"] or examples
    val = [example for example in examples if example["split"] == "val"] or train

    options = RunOptions(llm=make_handler(ModelSettings.from_env()))  # scored on this machine, in the vendored runner
    metric = SandboxedMetric(read_metric(HERE / "metric"), options)
    evaluator = gepa_evaluator(metric, ChatTask(task_model))
    config = GEPAConfig(
        engine=EngineConfig(max_metric_calls=args.max_metric_calls, parallel=False),
        reflection=ReflectionConfig(
            reflection_lm=reflection_model.model,
            reflection_minibatch_size=args.minibatch,
            reflection_lm_kwargs=litellm_kwargs(reflection_model),
        ),
    )
    result = optimize_anything(
        (HERE / "instruction.txt").read_text().strip(),
        evaluator=evaluator,
        batch_evaluator=evaluator.batch,
        dataset=train,
        valset=val,
        config=config,
    )

    best = (
        result.best_candidate if isinstance(result.best_candidate, str) else next(iter(result.best_candidate.values()))
    )
    (HERE / "best_instruction.txt").write_text(best + "\n")
    print(
        json.dumps(
            {
                "best_instruction": best,
                "best_val_score": result.val_aggregate_scores[result.best_idx],
                "objective_pareto_front": result.objective_pareto_front,
                "metric_calls": metric.calls,
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()
