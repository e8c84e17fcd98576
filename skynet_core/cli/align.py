"""``python -m skynet_core align``: align the judge's instructions with the human scores, from the command line.

    python -m skynet_core align METRIC --data CASES --labels LABELS [--timeout S] [--candidate NAME]
        [--roles FILE.json] [--candidate-file NAME=FILE] [--rater NAME] [--threshold T] [--rounds R]
        [--max-calls N] [--max-cost USD] [--no-cache] [--seed S] [--out FILE] [--min-gain K] [--json]

The metric's ``llm()`` calls use the metric model (else the reflection model), the proposals the reflection model,
as ``score`` and ``uplift`` take them (the app's saved settings, else ``SKYNET_METRIC_MODEL``,
``SKYNET_REFLECTION_MODEL`` and their ``_API_BASE``). The raters' agreement and the plan (calls at most, estimated
cost) are printed before the run, to standard error with ``--json``. ``--out FILE`` writes the aligned metric.py to
a new file; the metric given is never changed. Ctrl+C cancels.

Exit status: 0; 1 when the run stopped early (budget, a failed model call, Ctrl+C), or when ``--min-gain K`` is
given and the lower end of the gain's interval is below K; 2 for bad input (arguments, files, too few labels or
disagreements, no prompt to align, no model).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

import orjson

from ..align.config import DEFAULT_ROUNDS, MAX_ROUNDS
from ..display import terminal_lines
from ..i18n import _

if TYPE_CHECKING:
    from ..align.labelled import RaterPair
    from ..align.loop import Alignment, AlignProgress
    from ..align.measures import Figures
    from ..align.result import AlignResult

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


def add_parser(commands: Any) -> None:
    """Add the ``align`` command to the CLI's subparsers (``commands``)."""
    from .options import add_budget_options, add_json_option, add_scoring_command, add_seed_option

    help_text = _("rewrite the judge's instructions toward the human scores with GEPA, measured on held-out cases")
    sub = add_scoring_command(commands, "align", help_text)
    sub.add_argument(
        "--labels",
        required=True,
        metavar="LABELS",
        help=_("human scores (.csv or .jsonl: id, human as a number or pass/fail, optional candidate, note, rater)"),
    )
    sub.add_argument(
        "--rater",
        default=None,
        metavar="NAME",
        help=_("use only this rater's scores (default: the mean of every rater's)"),
    )
    sub.add_argument(
        "--threshold", type=float, default=0.5, metavar="T", help=_("the pass threshold of Cohen's kappa (default 0.5)")
    )
    sub.add_argument(
        "--rounds",
        type=int,
        default=DEFAULT_ROUNDS,
        metavar="R",
        help=_("rounds of GEPA's loop, 1 to {top} (default {default})").format(top=MAX_ROUNDS, default=DEFAULT_ROUNDS),
    )
    add_budget_options(sub)
    add_seed_option(sub, _("the seed of the split and of GEPA (default 0)"))
    sub.add_argument(
        "--out",
        metavar="FILE",
        help=_("write the aligned metric.py to FILE, a new file (an existing one is refused); METRIC is never changed"),
    )
    sub.add_argument(
        "--min-gain",
        type=float,
        default=None,
        metavar="K",
        help=_("exit 1 when the lower end of the interval of the gain in kappa is below K"),
    )
    add_json_option(sub)


class Refused(ValueError):
    """An input the run cannot use (exit 2); the message says what to do."""


def run(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    """Run the ``align`` command; returns the exit status."""
    from ..align.plan import plan_align
    from ..datasets import DatasetError
    from ..llm import LlmError
    from .options import UsageError

    try:
        alignment, ceiling = _prepare(args, stderr)
        plan = plan_align(alignment)
    except (Refused, UsageError, ValueError, DatasetError, LlmError, OSError) as exc:
        if str(exc):  # an empty one was said already (an option out of range)
            print(_("error: {message}").format(message=terminal_lines(str(exc))), file=stderr)
        return EXIT_USAGE
    told = stderr if args.json else stdout
    for line in [*ceiling, *plan.describe()]:
        print(terminal_lines(line), file=told)
    if alignment.config.max_cost_usd is not None and plan.cost_usd is None:
        print(
            _("warning: calls of a model without a known price count as free, so --max-cost cannot bound them"),
            file=told,
        )
    told.flush()
    result = _run(alignment, stderr, progress=not args.json and stderr.isatty())
    return _finish(args, result, stdout, stderr)


def _prepare(args: argparse.Namespace, stderr: TextIO) -> tuple[Alignment, list[str]]:
    """The alignment the arguments describe and the raters' agreement lines; raises for people (exit 2)."""
    from ..align.config import AlignConfig
    from ..align.labelled import labelled_cases, rater_pairs, refusal
    from ..align.loop import Alignment
    from ..align.measures import ceiling
    from ..align.prompts import prompts_of
    from ..align.split import split_labelled
    from ..human.files import KnownCases, read_labels
    from ..human.settings import default_rater
    from ..llm import make_handler
    from ..llm.cache import answer_cache
    from ..paths import output_problem
    from ..scoring import RunOptions, scorer_for
    from ..scoring.runner.limit import sandbox_limit
    from ..scoring.runner.pool import start_one_child_in_background
    from .inputs import _read_metric, cases_in_split, model_settings, read_cases
    from .options import concurrency

    _check_numbers(args)
    if args.out and Path(args.out).exists():
        raise Refused(
            _("--out {path} exists; give a new file name: align never writes over a file.").format(path=args.out)
        )
    if args.out and (problem := output_problem(args.out)):
        raise Refused(_("--out {path}: {problem}").format(path=args.out, problem=problem))
    settings = model_settings(args, stderr)
    if settings is None:
        raise Refused("")  # model_settings said which option is out of range
    settings = settings.with_changes(concurrency=concurrency(args, settings.concurrency))
    if settings.reflection is None or settings.effective() is None:
        raise Refused(
            _(
                "align needs a reflection model, which writes the proposals (and judges, when no metric model is set): "
                "set SKYNET_REFLECTION_MODEL (or SKYNET_REFLECTION_API_BASE) to a litellm model name or an "
                "OpenAI-compatible server, with the provider's key variable (e.g. OPENAI_API_KEY)"
            )
        )
    start_one_child_in_background()
    metric = _read_metric(args.metric, tuple(item for item in (args.data, args.labels, args.roles) if item), stderr)
    try:
        prompts = prompts_of(metric.source)
    except SyntaxError as exc:
        raise Refused(
            _("metric.py does not parse (line {line}): {error}").format(line=exc.lineno, error=exc.msg)
        ) from None
    cases, counts = read_cases(args, stderr)
    cases = cases_in_split(args, cases, counts)
    candidate = cases[0].candidate if len(cases) else (args.candidate or "")
    # As score --labels reads them: a row without a candidate is the candidate aligned for, rows of other cases
    # are only counted.
    known = KnownCases(frozenset(case.id for case in cases), (candidate,))
    scores = read_labels(
        args.labels, dataset=str(args.data), rater=default_rater(), candidate=candidate, known=known
    ).scores
    labelled = labelled_cases(list(cases), scores, candidate, rater=args.rater, threshold=args.threshold)
    if refused := refusal(labelled):
        raise Refused(refused)
    config = AlignConfig(args.rounds, seed=args.seed, max_cost_usd=settings.max_cost_usd)
    cache = answer_cache() if settings.cache else None
    sandbox_limit().raise_to(settings.concurrency)  # the limit guards a shared server; this process is one run

    def options(chosen: Any) -> RunOptions:
        return RunOptions(args.timeout, chosen.concurrency, make_handler(chosen, cache=cache if chosen.cache else None))

    split = split_labelled(labelled, args.seed)
    alignment = Alignment(metric.source, prompts, labelled, split, config, settings, scorer_for(args.ray), options)
    pairs = rater_pairs(scores, candidate, split.ids) if args.rater is None else ()
    return alignment, [_ceiling_line(pair, found) for pair, found in ceiling(pairs, labelled.scale, seed=args.seed)]


def _check_numbers(args: argparse.Namespace) -> None:
    from ..metric.contract import validate_timeout

    validate_timeout(args.timeout)
    if not math.isfinite(args.threshold):
        raise Refused(_("--threshold must be a finite number, not {value}").format(value=args.threshold))
    if args.min_gain is not None and not -2 <= args.min_gain <= 2:
        raise Refused(_("--min-gain must be from -2 to 2, not {value}").format(value=args.min_gain))
    if args.seed < 0:
        raise Refused(_("--seed must be 0 or more, not {value}").format(value=args.seed))


def _ceiling_line(pair: RaterPair, found: Figures) -> str:
    from ..align.text import ceiling_line

    return ceiling_line(pair, found)


def _run(alignment: Alignment, stderr: TextIO, *, progress: bool) -> AlignResult:
    """The run in a thread of its own, so that Ctrl+C cancels it (it stops before its next call)."""
    from ..align.loop import run_align, total_steps

    cancel = threading.Event()
    found: list[AlignResult] = []
    bar = _Bar(stderr, total_steps(alignment.config)) if progress else None
    worker = threading.Thread(
        target=lambda: found.append(run_align(alignment, cancel=cancel, on_progress=bar)), daemon=True
    )
    worker.start()
    try:
        while worker.is_alive():
            worker.join(0.2)
    except KeyboardInterrupt:
        cancel.set()
        worker.join()
    finally:
        if bar is not None:
            bar.close()
    return found[0]


def _finish(args: argparse.Namespace, result: AlignResult, stdout: TextIO, stderr: TextIO) -> int:
    """Write ``--out`` (a complete run only), print the result, and the exit status."""
    from ..align.result import Outcome
    from ..align.text import result_lines
    from ..metric.source import MAIN_FILE

    if result.outcome is Outcome.REFUSED:
        print(_("error: {message}").format(message=terminal_lines(result.message())), file=stderr)
        return EXIT_USAGE
    status = EXIT_OK
    if result.outcome is Outcome.COMPLETE and args.out:
        try:
            with open(args.out, "x", encoding="utf-8") as handle:  # "x": a file that appeared meanwhile is kept
                handle.write(result.aligned.files[MAIN_FILE])
            result = dataclasses.replace(result, out=str(args.out))
        except OSError as exc:
            print(
                _("error: cannot write {path}: {error}").format(path=args.out, error=exc.strerror or exc), file=stderr
            )
            status = EXIT_USAGE
    if args.json:
        stdout.write(orjson.dumps(result.to_json()).decode() + "\n")
    else:
        stdout.write("\n".join(terminal_lines(line) for line in result_lines(result)) + "\n")
        if result.out:
            stdout.write(_("Wrote {path}.").format(path=result.out) + "\n")
    if status or result.outcome is not Outcome.COMPLETE:
        return status or EXIT_FAILED
    gain = result.gain
    if args.min_gain is not None and (gain is None or gain.low is None or gain.low < args.min_gain):
        shown = "–" if gain is None or gain.low is None else f"{gain.low:.3f}"
        print(
            _("gain gate failed: the lower end of the gain's interval is {low}, below --min-gain {minimum:g}").format(
                low=shown, minimum=args.min_gain
            ),
            file=stderr,
        )
        return EXIT_FAILED
    return EXIT_OK


class _Bar:
    """The run's progress on a terminal: a bar of steps, with what runs now and the calls so far."""

    def __init__(self, stream: TextIO, total: int) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit=_("step"), file=stream, dynamic_ncols=True)

    def __call__(self, progress: AlignProgress) -> None:
        self.bar.n = progress.done
        self.bar.set_description_str(progress.describe(), refresh=False)
        self.bar.set_postfix_str(
            _("{judge} judge and {reflection} reflection calls").format(
                judge=progress.calls.judge, reflection=progress.calls.reflection
            )
        )

    def close(self) -> None:
        self.bar.close()
