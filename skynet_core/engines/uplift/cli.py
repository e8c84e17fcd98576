"""``python -m skynet_core uplift``: the experiment from the command line.

    python -m skynet_core uplift METRIC --data CASES [--roles FILE.json] [--candidate NAME]
                                 [--candidate-file NAME=FILE] [--split SPLIT]
                                 (--instruction TEXT | --instruction-file F)
                                 [--rounds R] [--seeds S] [--minibatch M] [--max-cost USD] [--json]

The cases are read as ``score`` reads them, with the same data options (one definition:
``skynet_core.cli.options.add_data_options``). The task and reflection models and their prices come from the
settings saved on the Settings page in the data directory, else from ``SKYNET_TASK_MODEL`` /
``SKYNET_TASK_API_BASE`` and ``SKYNET_REFLECTION_MODEL`` / ``SKYNET_REFLECTION_API_BASE``, as ``score`` takes
its settings (``machine_settings``); keys from the provider's usual variables. The plan (calls at most,
estimated cost) is printed before the run, to standard error with ``--json`` (and how the run ended after it).
Ctrl+C cancels: what finished is printed, with its finished seeds.

Exit status: 0 when every seed finished; 1 when the run stopped early (its budget, a failed model call); 2 for
a usage or input problem, no models, or a metric that scored none of the validation cases; 130 after Ctrl+C.
"""

from __future__ import annotations

import argparse
import threading
from typing import TYPE_CHECKING, Any, TextIO

import orjson

from ...cli.interrupt import EXIT_INTERRUPTED, cancelled_by_ctrl_c
from ...cli.options import add_data_options, add_json_option, add_max_cost_option, add_place_options, concurrency
from ...display import terminal_lines, terminal_text
from ...i18n import _, format_number, ngettext
from ...paths import path_problem, special_file
from .config import DEFAULT_MINIBATCH, DEFAULT_ROUNDS, DEFAULT_SEEDS, MAX_INSTRUCTION_BYTES

if TYPE_CHECKING:
    from .loop import Experiment, Progress
    from .result import UpliftResult

EXIT_OK, EXIT_STOPPED, EXIT_USAGE = 0, 1, 2
MODEL_VARIABLES = {
    "task": ("SKYNET_TASK_MODEL", "SKYNET_TASK_API_BASE"),
    "reflection": ("SKYNET_REFLECTION_MODEL", "SKYNET_REFLECTION_API_BASE"),
}
REPORT_INSTRUCTION_CHARS = 2_000
"""The most characters of a final instruction the text report prints (``--json`` has them whole)."""


def add_parser(commands: Any) -> None:
    """Add the ``uplift`` command to the CLI's subparsers (``commands``)."""
    help_text = _("measure what GEPA's reflection gains from the metric's feedback, against the score alone")
    sub = commands.add_parser("uplift", help=help_text, description=help_text)
    sub.add_argument("metric", metavar="METRIC", help=_("metric.py, or the metric folder that holds it"))
    add_data_options(sub)
    add_place_options(sub)
    given = sub.add_mutually_exclusive_group(required=True)
    given.add_argument("--instruction", metavar="TEXT", help=_("the instruction every arm starts from"))
    given.add_argument("--instruction-file", metavar="F", help=_("a text file holding that instruction"))
    for flag, default, meta, text in (
        ("--rounds", DEFAULT_ROUNDS, "R", _("reflection rounds per arm and seed (default {default})")),
        ("--seeds", DEFAULT_SEEDS, "S", _("independent repeats, for the intervals (default {default})")),
        ("--minibatch", DEFAULT_MINIBATCH, "M", _("training cases per round (default {default})")),
    ):
        sub.add_argument(flag, type=int, default=default, metavar=meta, help=text.format(default=default))
    add_max_cost_option(sub, _("stop once the run has spent this many US dollars, keeping the seeds that finished"))
    add_json_option(sub)


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Run the ``uplift`` command; returns the exit status."""
    from ...cli.options import UsageError
    from ...datasets import DatasetError
    from ...llm import LlmError
    from .loop import run_uplift
    from .plan import plan_uplift
    from .result import Outcome

    try:
        experiment = _experiment(args, stderr)
        plan = plan_uplift(experiment)
    except (UsageError, ValueError, OSError, LlmError, DatasetError) as exc:
        print(_("error: {message}").format(message=terminal_lines(str(exc))), file=stderr)
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
    ended: list[UpliftResult | BaseException] = []
    bar = _ProgressBar(stderr) if not args.json and stderr.isatty() else None

    def work() -> None:
        try:
            ended.append(run_uplift(experiment, cancel=cancel, on_progress=bar))
        except BaseException as exc:  # noqa: BLE001  (said below, without a traceback, whatever it is)
            ended.append(exc)

    worker = threading.Thread(target=work, daemon=True, name="skynet-uplift")
    # Ctrl+C sets ``cancel`` (no KeyboardInterrupt, which breaks a thread's join): the run stops before its next
    # call and returns what finished.
    with cancelled_by_ctrl_c(cancel) as interrupt:
        worker.start()
        while worker.is_alive():
            worker.join(0.2)
    if bar is not None:
        bar.close()
    result = ended[0] if ended else RuntimeError(_("the run ended without a result"))
    if isinstance(result, BaseException):
        failure = terminal_lines(f"{type(result).__name__}: {result}")
        print(_("error: the run failed: {error}").format(error=failure), file=stderr)
        return EXIT_INTERRUPTED if interrupt.caught else EXIT_STOPPED
    if result.outcome is Outcome.METRIC_FAILED:  # nothing was measured: no value to report
        print(_("error: {message}").format(message=terminal_lines(result.message())), file=stderr)
        return EXIT_USAGE
    if args.json:
        stdout.write(orjson.dumps(result.to_json()).decode() + "\n")
        print(terminal_lines(result.message()), file=stderr)
    else:
        stdout.write(format_result(result))
    if interrupt.caught:
        return EXIT_INTERRUPTED
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


def _experiment(args: argparse.Namespace, stderr: TextIO) -> Experiment:
    """The experiment the arguments describe; raises ``UsageError``, ``ValueError``, ``LlmError``, ``DatasetError``
    or ``OSError`` for people. Notes and warnings on the metric and the data go to ``stderr``."""
    from ...cli.inputs import _read_metric, cases_in_split, input_files, read_cases
    from ...llm import machine_settings, make_handler, warm_up
    from ...scoring import RunOptions, scorer_for
    from ..sandboxed import SandboxedMetric
    from ..task import litellm_kwargs
    from .cases import split_cases
    from .config import Models, UpliftConfig
    from .loop import Experiment

    settings = machine_settings()  # the Settings page's, over the environment's: as score takes them
    task, reflection = settings.task, settings.reflection
    missing = [role for role, model in (("task", task), ("reflection", reflection)) if model is None]
    if missing or task is None or reflection is None:
        names = _(" and ").join(
            _("{model} (or {base})").format(model=MODEL_VARIABLES[role][0], base=MODEL_VARIABLES[role][1])
            for role in missing
        )
        raise ValueError(
            _(
                "uplift needs a task model and a reflection model: set {names} to a litellm model name (e.g. "
                "openai/gpt-4.1-mini) or an OpenAI-compatible server, with the provider's key variable (e.g. "
                "OPENAI_API_KEY), or choose them on the Settings page of the studio using this data directory"
            ).format(names=names)
        )
    warm_up()  # litellm (seconds to import) loads while the instruction, the metric and the data are read
    instruction = args.instruction if args.instruction_file is None else _read_instruction(args.instruction_file)
    config = UpliftConfig(
        instruction, rounds=args.rounds, seeds=args.seeds, minibatch=args.minibatch, max_cost_usd=args.max_cost
    )
    inputs = input_files(args)
    files = (*inputs, *((args.instruction_file,) if args.instruction_file else ()))
    source = _read_metric(args.metric, files, stderr).source
    cases = cases_in_split(args, *read_cases(args, stderr))
    if not any(case.expected for case in cases):
        print(
            _(
                "warning: no case has an expected value; if the data has expected columns without the expected. "
                "prefix, give them the expected role with --roles FILE.json"
            ),
            file=stderr,
        )
    for model in (task, reflection):
        litellm_kwargs(model)  # a missing key is said now, before any call
    options = RunOptions(concurrency=concurrency(args, settings.concurrency), llm=make_handler(settings))
    metric = SandboxedMetric(source, options, scorer_for(args.ray))
    return Experiment(metric, split_cases(cases, config.seed), config, Models(task, reflection, settings))


def _read_instruction(path: str) -> str:
    """The instruction in the file at ``path``: a regular file of at most :data:`MAX_INSTRUCTION_BYTES` of UTF-8
    text (a device or a named pipe is refused before it is opened, as ``--data`` refuses one); raises
    ``ValueError`` for people."""
    if problem := path_problem(path):
        raise ValueError(_("--instruction-file {path}: {problem}").format(path=path, problem=problem))
    if kind := special_file(path):
        raise ValueError(
            _("--instruction-file {path} is {kind}, not a file; give a text file holding the instruction").format(
                path=path, kind=kind
            )
        )
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_INSTRUCTION_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(
            _("--instruction-file {path}: cannot read it ({error})").format(
                path=path, error=getattr(exc, "strerror", None) or exc
            )
        ) from None
    if len(data) > MAX_INSTRUCTION_BYTES:
        raise ValueError(
            _(
                "--instruction-file {path} is longer than an instruction may be (at most {limit} bytes); give the "
                "instruction itself, not a document"
            ).format(path=path, limit=f"{MAX_INSTRUCTION_BYTES:,}")
        )
    return text


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
    lines.append(_("Calls: {calls}; cost {cost}.").format(calls=result.calls.describe(), cost=result.describe_cost()))
    for run in result.runs:
        lines.extend(
            _("Refused proposal, {arm}, seed {seed}, round {round}: {reason}").format(
                arm=run.arm.label, seed=run.seed + 1, round=step.index + 1, reason=step.refused
            )
            for step in run.rounds
            if step.refused
        )
    for arm, found in result.arms.items():
        for seed, instruction in enumerate(found.instructions):
            lines.append(_("Final instruction, {arm}, seed {seed}:").format(arm=arm.label, seed=seed + 1))
            shown = instruction[:REPORT_INSTRUCTION_CHARS]
            lines.extend("    " + line for line in shown.splitlines())
            if len(instruction) > len(shown):
                more = len(instruction) - len(shown)
                lines.append(
                    "    "
                    + ngettext(
                        "… ({count} more character: --json has the whole instruction)",
                        "… ({count} more characters: --json has the whole instruction)",
                        more,
                    ).format(count=format_number(more))
                )
    lines.append(result.message())
    return "\n".join(terminal_text(line) for line in lines) + "\n"
