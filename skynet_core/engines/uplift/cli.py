"""``python -m skynet_core uplift``: the experiment from the command line.

    python -m skynet_core uplift METRIC --data CASES (--instruction TEXT | --instruction-file F)
                                 [--rounds R] [--seeds S] [--minibatch M] [--max-cost USD] [--json]

The task and reflection models come from ``SKYNET_TASK_MODEL`` / ``SKYNET_TASK_API_BASE`` and
``SKYNET_REFLECTION_MODEL`` / ``SKYNET_REFLECTION_API_BASE``, keys from the provider's usual variables;
the temperature, timeouts, retries and the metric's own ``llm()`` model from the app's saved settings or
the environment, as ``check`` and ``score`` take them. The plan (calls at most, estimated cost) is printed
before the run, to standard error with ``--json``. Ctrl+C cancels and keeps the finished seeds.

Exit status: 0 when every seed finished; 1 when the run stopped early (budget, a failed model call,
Ctrl+C); 2 for a usage or input problem, or no models.
"""

from __future__ import annotations

import argparse
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import orjson

from ...display import terminal_text
from ...i18n import _, format_number, ngettext
from .config import DEFAULT_MINIBATCH, DEFAULT_ROUNDS, DEFAULT_SEEDS

if TYPE_CHECKING:
    from .loop import Experiment, Progress
    from .result import UpliftResult

EXIT_OK, EXIT_STOPPED, EXIT_USAGE = 0, 1, 2
MODEL_VARIABLES = {
    "task": ("SKYNET_TASK_MODEL", "SKYNET_TASK_API_BASE"),
    "reflection": ("SKYNET_REFLECTION_MODEL", "SKYNET_REFLECTION_API_BASE"),
}


def add_parser(commands: Any) -> None:
    """Add the ``uplift`` command to the CLI's subparsers (``commands``)."""
    help_text = _("measure what GEPA's reflection gains from the metric's feedback, against the score alone")
    sub = commands.add_parser("uplift", help=help_text, description=help_text)
    sub.add_argument("metric", metavar="METRIC", help=_("metric.py, or the metric folder that holds it"))
    sub.add_argument(
        "--data",
        required=True,
        metavar="CASES",
        help=_("cases: .jsonl, .csv or .parquet (their train and val splits are used when both exist)"),
    )
    given = sub.add_mutually_exclusive_group(required=True)
    given.add_argument("--instruction", metavar="TEXT", help=_("the instruction every arm starts from"))
    given.add_argument("--instruction-file", metavar="F", help=_("a text file holding that instruction"))
    for flag, default, meta, text in (
        ("--rounds", DEFAULT_ROUNDS, "R", _("reflection rounds per arm and seed (default {default})")),
        ("--seeds", DEFAULT_SEEDS, "S", _("independent repeats, for the intervals (default {default})")),
        ("--minibatch", DEFAULT_MINIBATCH, "M", _("training cases per round (default {default})")),
    ):
        sub.add_argument(flag, type=int, default=default, metavar=meta, help=text.format(default=default))
    sub.add_argument(
        "--max-cost",
        type=float,
        default=None,
        metavar="USD",
        help=_("stop once the run has spent this many US dollars, keeping the seeds that finished"),
    )
    sub.add_argument("--json", action="store_true", help=_("print one JSON object instead of text"))


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Run the ``uplift`` command; returns the exit status."""
    from ...llm import LlmError
    from .loop import run_uplift
    from .plan import plan_uplift

    try:
        experiment = _experiment(args)
        plan = plan_uplift(experiment)
    except (ValueError, OSError, LlmError) as exc:
        print(_("error: {message}").format(message=_line(str(exc))), file=stderr)
        return EXIT_USAGE
    told = stderr if args.json else stdout
    for line in plan.describe():
        print(line, file=told)
    if args.max_cost is not None and plan.cost_usd is None:
        print(
            _("warning: calls of a model without a known price count as free, so --max-cost cannot bound them"),
            file=told,
        )
    told.flush()
    cancel = threading.Event()
    found: list[UpliftResult] = []
    bar = _ProgressBar(stderr) if not args.json and stderr.isatty() else None
    worker = threading.Thread(
        target=lambda: found.append(run_uplift(experiment, cancel=cancel, on_progress=bar)), daemon=True
    )
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        cancel.set()  # the run stops before its next call and keeps the finished seeds
        worker.join()
    finally:
        if bar is not None:
            bar.close()
    result = found[0]
    if args.json:
        stdout.write(orjson.dumps(result.to_json()).decode() + "\n")
    else:
        stdout.write(format_result(result))
    return EXIT_OK if result.complete else EXIT_STOPPED


class _ProgressBar:
    """The run's progress on a terminal: a bar of steps, with what runs now and what was spent."""

    def __init__(self, stream: TextIO) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=0, unit=_("step"), file=stream, dynamic_ncols=True)

    def __call__(self, progress: Progress) -> None:
        self.bar.total = progress.total
        self.bar.n = progress.done
        self.bar.set_description_str(progress.describe(), refresh=False)
        self.bar.set_postfix_str(_("${cost} spent").format(cost=f"{progress.cost_usd:,.4f}"))

    def close(self) -> None:
        self.bar.close()


def _experiment(args: argparse.Namespace) -> Experiment:
    """The experiment the arguments describe; raises ``ValueError`` (or ``LlmError``, ``OSError``) for people."""
    from ...datasets import DatasetError, load_dataset
    from ...llm import machine_settings, make_handler, warm_up
    from ...metric.folder import read_metric
    from ...metric.source import MetricSourceError
    from ...scoring import RunOptions
    from ..sandboxed import SandboxedMetric
    from ..task import litellm_kwargs, model_from_env
    from .cases import split_cases
    from .config import Models, UpliftConfig
    from .loop import Experiment

    task, reflection = model_from_env("task"), model_from_env("reflection")
    missing = [name for name, model in (("task", task), ("reflection", reflection)) if model is None]
    if missing or task is None or reflection is None:
        names = _(" and ").join(
            _("{model} (or {base})").format(model=MODEL_VARIABLES[role][0], base=MODEL_VARIABLES[role][1])
            for role in missing
        )
        raise ValueError(
            _(
                "uplift needs a task model and a reflection model: set {names} to a litellm model name (e.g. "
                "openai/gpt-4.1-mini) or an OpenAI-compatible server, with the provider's key variable (e.g. "
                "OPENAI_API_KEY)"
            ).format(names=names)
        )
    warm_up()  # litellm (seconds to import) loads while the instruction, the metric and the data are read
    instruction = args.instruction
    if args.instruction_file is not None:
        try:
            instruction = Path(args.instruction_file).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise ValueError(
                _("--instruction-file {path}: cannot read it ({error})").format(
                    path=args.instruction_file, error=getattr(exc, "strerror", None) or exc
                )
            ) from None
    config = UpliftConfig(
        instruction, rounds=args.rounds, seeds=args.seeds, minibatch=args.minibatch, max_cost_usd=args.max_cost
    )
    try:
        source = read_metric(args.metric, exclude=(args.data,))
        dataset = load_dataset(args.data)
    except (MetricSourceError, DatasetError) as exc:
        raise ValueError(str(exc)) from None
    for model in (task, reflection):
        litellm_kwargs(model)  # a missing key is said now, before any call
    settings = machine_settings()
    # On this machine: the command has no Ray setting (``score --ray`` has).
    metric = SandboxedMetric(source, RunOptions(llm=make_handler(settings)))
    cases = dataset.for_candidate(dataset.candidates[0])
    return Experiment(metric, split_cases(cases, config.seed), config, Models(task, reflection, settings))


def format_result(result: UpliftResult) -> str:
    """The result for people: the start, each arm's scores and gain, the feedback value, the calls and cost, the
    final instructions, and how the run ended."""
    lines = []
    if result.start is not None:
        lines.append(
            ngettext(
                "Start: {score} on {count} validation case ({where}).",
                "Start: {score} on {count} validation cases ({where}).",
                len(result.val_ids),
            ).format(
                score=format_number(result.start, 3),
                count=len(result.val_ids),
                where=_("the dataset's val split") if result.split_from_dataset else _("a seeded half of the cases"),
            )
        )
    for arm, found in result.arms.items():
        ends = " ".join(format_number(end, 3) for end in found.ends) or "-"
        lines.append(
            _("  {arm}: end per seed {ends}; gain {gain}").format(arm=arm.label, ends=ends, gain=found.gain.describe())
        )
    lines.append(
        _("Feedback value (gain with feedback − gain with the score only): {value}").format(
            value=result.feedback_value.describe()
        )
    )
    lines.append(result.verdict())
    spent = f"{result.cost_usd:,.4f}"
    cost = (
        _("cost ${cost} (no price known for {models}: their calls count as free)").format(
            cost=spent, models=", ".join(result.unpriced)
        )
        if result.unpriced
        else _("cost ${cost}").format(cost=spent)
    )
    lines.append(
        _("Calls: {task} task, {reflection} reflection; {cost}.").format(
            task=format_number(result.calls.task), reflection=format_number(result.calls.reflection), cost=cost
        )
    )
    for arm, found in result.arms.items():
        for seed, instruction in enumerate(found.instructions):
            lines.append(_("Final instruction, {arm}, seed {seed}:").format(arm=arm.label, seed=seed + 1))
            lines.extend("    " + line for line in instruction.splitlines())
    lines.append(result.message())
    return "\n".join(terminal_text(line) for line in lines) + "\n"


def _line(text: str) -> str:
    return "\n".join(terminal_text(line) for line in text.split("\n"))
