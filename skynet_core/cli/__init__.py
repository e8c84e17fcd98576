"""The command line: the same contract check and scoring as the app, without a browser.

    python -m skynet_core check METRIC.py --data CASES [--timeout S] [--json | --json-lines]
    python -m skynet_core score METRIC.py --data CASES [--out FILE] [--timeout S] [--concurrency N]
                                [--json | --json-lines] [--ray ADDRESS]
    python -m skynet_core export METRIC --engine gepa|dspy --out DIR [--data CASES] [--instruction TEXT]
    python -m skynet_core align METRIC --data CASES --labels LABELS [--out FILE] [--json]   (skynet_core.cli.align)

METRIC.py may also be the metric's folder; either way the helper modules and small data files
beside metric.py come along (contract rule 13).

``score`` streams: each result goes to ``--out`` and (with ``--json-lines``)
to standard output as it comes, in case order, so memory does not grow with
the number of cases.

``--roles FILE.json`` gives column roles as the Data page does (``{column: [role,
field]}``), and ``--candidate-file NAME=FILE`` adds a candidate from a file of its
own, joined to CASES by id (repeatable); the main file's candidate is then named
after the file. A table with one output column per candidate (``out_small``,
``out_large``) gives those columns the role ``candidate_output`` with the candidate's
name as the field (``candidate_latency_ms``, ``candidate_cost_usd`` for its
measurements); a roles file with sections, ``{"main": {...}, "candidate_files":
{NAME: {...}}}``, also gives each candidate file's columns their roles.

Exit status: 0 when the contract holds (check) or every case scored (score);
1 when the metric breaks the contract or a case errs; 2 for a usage or input
problem (unreadable data, bad arguments); 130 when Ctrl+C stopped ``score`` (the run is cancelled,
``--out`` is left as it was; a second Ctrl+C stops at once).
"""

from __future__ import annotations

import argparse
import gc
import sys
import threading
from collections.abc import Sequence
from typing import TextIO

from ..cases import Case
from ..datasets import DatasetError
from ..display import terminal_lines
from ..i18n import _, format_cost, use_language
from ..llm import MetricLlm, make_handler
from ..metric.contract import check_metric
from ..metric.source import MetricSource
from ..results import CaseResult, CheckReport, JobError
from ..results.overflow import nothing_kept_on_disk
from ..scoring import RunOptions, scorer_for
from ..scoring.runner.pool import start_one_child_in_background
from ..scoring.runner.values import Cancelled
from .inputs import (
    _in_split,
    _Inputs,
    _metric_name,
    _read_inputs,
    _read_metric,
    _read_roles,
    input_files,
    model_settings,
)
from .interrupt import EXIT_INTERRUPTED, Interrupt, cancelled_by_ctrl_c
from .options import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, cli_language
from .parser import build_parser
from .report import ReportOutput, _Sink, format_report, open_out

__all__ = [
    "EXIT_FAILED",
    "EXIT_OK",
    "EXIT_USAGE",
    "UsageError",
    "build_parser",
    "cli_language",
    "format_report",
    "main",
    "run",
]


def run(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run the command line in its language (``--lang``, else the environment's); returns the exit status."""
    argv = sys.argv[1:] if argv is None else argv
    # Whole side information is kept on disk only for the app's download: the command line writes what it keeps.
    with use_language(cli_language(argv)), nothing_kept_on_disk():
        return _run(argv, stdout, stderr)


def _run(argv: list[str], stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    args = build_parser().parse_args(argv)
    if args.command == "export":
        return _run_export(args, stdout, stderr)
    if args.command == "uplift":
        from ..engines.uplift.cli import run as run_uplift

        return run_uplift(args, stdout, stderr)
    if args.command == "align":
        from .align import run as run_align

        return run_align(args, stdout, stderr)
    # Starting the sandbox (probing bubblewrap, starting children) overlaps with reading the data.
    start_one_child_in_background()
    settings = model_settings(args, stderr)
    if settings is None:
        return EXIT_USAGE
    from ..llm.cache import answer_cache  # here: main's imports above changed beside where it would go

    llm = make_handler(settings, cache=answer_cache() if settings.cache else None, warm=False)
    try:
        read = _read_inputs(args, stderr)
    except (UsageError, ValueError, DatasetError) as exc:
        print(_("error: {message}").format(message=terminal_lines(str(exc))), file=stderr)
        return EXIT_USAGE
    if read.source.names_llm():
        # litellm (seconds of CPU) loads beside the run only for a metric that may ask the model: for one that
        # cannot, its import took a core from the run's sandboxes for as long as the run lasted.
        llm.warm_up()
    if args.command == "stress":
        from ..stress.cli import run as run_stress

        return run_stress(args, read, settings, llm, stdout, stderr)
    if args.command == "check":
        # One case at a time, and no more cases after a timeout: a verdict, as the app's live check gives.
        options = RunOptions(read.timeout, llm=llm, stop_on_timeout=True)
        checked = check_metric(read.source, read.cases, options, name=_metric_name(args.metric))
        output = ReportOutput(args, stdout)
        for result in checked.cases:
            output.case(result)
        output.finish(checked)
        return EXIT_OK if checked.ok else EXIT_FAILED
    return _run_score(args, read, settings.concurrency, llm, stdout, stderr)


def _run_score(
    args: argparse.Namespace, read: _Inputs, default_concurrency: int, llm: MetricLlm, stdout: TextIO, stderr: TextIO
) -> int:
    """``score``: every case of the split, streamed to the terminal and ``--out`` (put in place only when the
    run ended); the exit status."""
    cases = _in_split(args, read, stderr)
    if cases is None:
        return EXIT_USAGE
    try:
        out = open_out(args.out)
    except OSError as exc:
        print(_("error: cannot write {path}: {error}").format(path=args.out, error=exc.strerror), file=stderr)
        return EXIT_USAGE
    output = ReportOutput(args, stdout, read.labels)
    concurrency = args.concurrency if args.concurrency is not None else default_concurrency
    from ..scoring.runner.limit import sandbox_limit  # here: main's imports above changed beside where it would go

    sandbox_limit().raise_to(concurrency)  # the limit guards a shared server; this process is one run
    sink = _Sink(output, out)
    report: CheckReport | None = None
    interrupt = Interrupt()
    try:
        with cancelled_by_ctrl_c(sink.cancel) as interrupt:
            report = _score(
                read.source,
                cases,
                read.timeout,
                concurrency,
                llm,
                sink,
                show_progress=not (args.json or args.json_lines) and stderr.isatty(),
                stderr=stderr,
                ray_address=args.ray,
                name=_metric_name(args.metric),
            )
    except Cancelled:
        report = None  # the sink stopped the run (its write failed, reported below), or Ctrl+C did
    except JobError as exc:  # the scorer's place cannot score at all (the cluster): its message says what to do
        print(_("error: {message}").format(message=exc), file=stderr)
        return EXIT_USAGE
    finally:
        # Only a run that ended puts --out in place; an interrupted one leaves the old file as it was.
        if out is not None and (report is None or sink.failed is not None or interrupt.caught):
            out.discard()
    if interrupt.caught:
        _say_interrupted(report.tally.total if report is not None else 0, len(cases), args.out, stderr)
        return EXIT_INTERRUPTED
    if out is not None and sink.failed is None:
        try:
            out.close()
        except OSError as exc:
            sink.failed = exc
    if sink.failed is not None:
        print(
            _("error: cannot write {path}: {error}").format(path=args.out, error=sink.failed.strerror or sink.failed),
            file=stderr,
        )
        return EXIT_USAGE
    assert report is not None
    output.finish(report)
    gates = read.labels.failed_gates() if read.labels is not None else []
    for failed in gates:
        print(_("error: {message}").format(message=failed), file=stderr)
    return EXIT_OK if report.ok and report.tally.total == len(cases) and not gates else EXIT_FAILED


def _say_interrupted(scored: int, total: int, out: str | None, stderr: TextIO) -> None:
    message = _("interrupted (Ctrl+C): {scored} of {total} cases scored").format(scored=scored, total=total)
    if out:
        message += "; " + _("{path} was left as it was").format(path=out)
    print(message, file=stderr)


def _score(
    source: MetricSource,
    cases: Sequence[Case],
    timeout: float,
    concurrency: int,
    llm: MetricLlm,
    sink: _Sink,
    *,
    show_progress: bool,
    stderr: TextIO,
    ray_address: str | None = None,
    name: str = "metric.py",
) -> CheckReport:
    bar = None
    if show_progress:
        from tqdm import tqdm

        bar = tqdm(total=len(cases), unit=_("case"), file=stderr, dynamic_ncols=True)
    lock = threading.Lock()

    def progress(result: CaseResult) -> None:
        if bar is not None:
            with lock:
                if llm.spent_usd:
                    bar.set_postfix_str(_("llm() spent {cost}").format(cost=format_cost(llm.spent_usd)), refresh=False)
                bar.update(1)

    try:
        scorer = scorer_for(ray_address)  # Ray itself, and the cluster module, are imported only when it scores
        # Every case, however many time out; each result streamed to the sink in case order, none kept.
        options = RunOptions(
            timeout,
            concurrency,
            llm,
            cancel=sink.cancel,
            on_result=progress if bar is not None else None,
            in_order=sink,
            keep=False,
        )
        return check_metric(source, cases, options, scorer=scorer, sample=cases, name=name)
    finally:
        if bar is not None:
            bar.close()


def _run_export(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from ..datasets import load_dataset
    from ..engines.export import export_for_engine
    from ..engines.reflection import dataset_instruction

    inputs = tuple(input_files(args))
    try:
        metric = _read_metric(args.metric, inputs, stderr)
        source = metric.source
        cases, instruction = [], args.instruction
        if args.data:
            dataset = load_dataset(args.data, roles=_read_roles(args.roles).main if args.roles else None)
            cases = dataset.for_candidate(dataset.candidates[0])
            instruction = instruction or dataset_instruction(dataset)
        exported = export_for_engine(source, args.engine, cases, instruction=instruction)
        folder = exported.write_to(args.out, inputs=(*inputs, *metric.paths()))
    except (UsageError, ValueError, DatasetError) as exc:
        print(_("error: {message}").format(message=exc), file=stderr)
        return EXIT_USAGE
    except OSError as exc:
        print(_("error: cannot write {path}: {error}").format(path=args.out, error=exc.strerror or exc), file=stderr)
        return EXIT_USAGE
    stdout.write(
        _("Wrote {folder}: pip install -r requirements.txt, then python run_{engine}.py (see {readme}).").format(
            folder=folder, engine=args.engine, readme=folder / "README.md"
        )
        + "\n"
    )
    return EXIT_OK


def main() -> None:
    try:
        status = run()
    except KeyboardInterrupt:  # Ctrl+C outside a run that cancels itself (reading the data, a check): no traceback
        print(_("interrupted (Ctrl+C)"), file=sys.stderr)
        status = EXIT_INTERRUPTED
    # The interpreter's collections at exit would scan every object the run left, only to free what the
    # process's end frees anyway (20 ms of a 20,000-case run); frozen objects are still freed by reference
    # counting as modules are torn down, so files still close and atexit handlers still run.
    gc.freeze()
    sys.exit(status)
