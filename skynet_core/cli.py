"""The command line: the same contract check and scoring as the app, without a browser.

    python -m skynet_core check METRIC.py --data CASES [--timeout S] [--json | --json-lines]
    python -m skynet_core score METRIC.py --data CASES [--out FILE] [--timeout S] [--concurrency N]
                                [--json | --json-lines] [--ray ADDRESS]
    python -m skynet_core export METRIC --engine gepa|dspy --out DIR [--data CASES] [--instruction TEXT]

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
problem (unreadable data, bad arguments).
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
import threading
import unicodedata
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NoReturn, TextIO

import orjson

from .cases import Case
from .contract import DEFAULT_TIMEOUT_S, check_metric, validate_timeout
from .datasets import (
    CandidateFile,
    CaseLines,
    DatasetError,
    RolesFile,
    candidate_warnings,
    load_dataset,
    read_case_lines,
    roles_file_from_json,
)
from .display import terminal_text
from .human import cli as human_cli
from .i18n import LANGUAGES, N_, _, format_cost, from_environment, ngettext, resolve, use_language
from .llm import MetricLlm, machine_settings, make_handler
from .metric_folder import FolderRead, read_metric_folder
from .metric_needs import string_literals
from .metric_source import MetricSource, MetricSourceError
from .overflow import nothing_kept_on_disk
from .paths import output_problem, path_problem, same_file_as, special_file
from .results import SHOWN_CASES, CaseResult, CheckReport, JobError, StageStatus
from .runner.pool import start_one_child
from .runner.watchdog import MEMORY_LIMIT_MODE
from .runner.worker import Cancelled
from .scoring import scorer_for

if TYPE_CHECKING:
    from .export import ResultsWriter

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
SPOOL_BATCH = 512  # cases' JSON written to the spool at once (one write each costs more than encoding it)
SPOOL_IN_MEMORY = 8 << 20  # --json holds up to this much of the cases' JSON in memory, the rest in a temporary file
MARKS = {StageStatus.PASSED: "✓", StageStatus.FAILED: "✗", StageStatus.SKIPPED: "-", StageStatus.NOT_RUN: "·"}
# The words of the text report for the statuses (JSON keeps the status values themselves).
STAGE_WORDS = {
    StageStatus.PASSED: N_("passed"),
    StageStatus.FAILED: N_("failed"),
    StageStatus.SKIPPED: N_("skipped"),
    StageStatus.NOT_RUN: N_("not run"),
}
ISOLATION_WORDS = {"full": N_("full"), "reduced": N_("reduced")}


def cli_language(argv: Sequence[str], env: Any = None) -> str:
    """The language of a CLI run: ``--lang X`` (or ``--lang=X``) anywhere in ``argv``, else the
    environment's (``LC_ALL``, ``LC_MESSAGES``, ``LANG``). Read before the parser is built, so that
    ``--help`` is in that language too."""
    for index, item in enumerate(argv):
        if item == "--":
            break
        if item == "--lang" and index + 1 < len(argv):
            return resolve(argv[index + 1]) if argv[index + 1] not in LANGUAGES else argv[index + 1]
        if item.startswith("--lang="):
            value = item.partition("=")[2]
            return value if value in LANGUAGES else resolve(value)
    return from_environment(env)


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal (CJK characters take two)."""
    return sum(2 if ord(char) >= 0x1100 and unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded to ``width`` terminal columns (left-aligned, or right-aligned)."""
    fill = " " * max(0, width - _width(text))
    return fill + text if right else text + fill


class UsageError(Exception):
    """A problem with the arguments or the input files (exit status 2)."""


class _Formatter(argparse.HelpFormatter):
    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)


class _Parser(argparse.ArgumentParser):
    """argparse with its headings and ``--help`` in the run's language, and ``--lang`` on every command."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        kwargs["add_help"] = False
        super().__init__(*args, **kwargs)
        self._positionals.title = _("positional arguments")
        self._optionals.title = _("options")
        self.add_argument("-h", "--help", action="help", help=_("show this help message and exit"))
        self.add_argument(
            "--lang",
            default=argparse.SUPPRESS,
            metavar="LANG",
            help=_("the language of the text output and help: en or zh_CN (default: from LANG or LC_ALL)"),
        )

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, _("{prog}: error: {message}").format(prog=self.prog, message=message) + "\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="python -m skynet_core",
        description=_("The command line: the same contract check and scoring as the app, without a browser."),
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser, title=_("commands"))
    for name, help_text in (
        ("check", _("run the contract check on 3 sampled cases")),
        ("score", _("score every case of the dataset")),
    ):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("metric", metavar="METRIC.py", help=_("the metric file, or the folder that holds metric.py"))
        sub.add_argument("--data", required=True, metavar="CASES", help=_("cases: .jsonl, .csv or .parquet"))
        sub.add_argument(
            "--timeout",
            type=float,
            default=DEFAULT_TIMEOUT_S,
            metavar="S",
            help=_("the metric timeout: seconds per call of score, 1 to 600 (default 60)"),
        )
        sub.add_argument("--candidate", default=None, help=_("which candidate's outputs to score (default: the first)"))
        sub.add_argument(
            "--roles",
            metavar="FILE.json",
            help=_('column roles as JSON, {{"column": ["role", "field"]}}; unnamed columns are inferred').format(),
        )
        sub.add_argument(
            "--candidate-file",
            action="append",
            default=[],
            metavar="NAME=FILE",
            help=_("another candidate's outputs in a file of their own, joined to CASES by id"),
        )
        output = sub.add_mutually_exclusive_group()
        output.add_argument("--json", action="store_true", help=_("print one JSON object instead of text"))
        output.add_argument(
            "--json-lines",
            action="store_true",
            help=_("print each case's JSON object on its own line as it comes, then the report's"),
        )
        sub.add_argument(
            "--max-calls",
            type=int,
            default=None,
            metavar="N",
            help=_("llm() calls one case may make, 1 to 10000 (default: the app's setting, 50 unless changed)"),
        )
        sub.add_argument(
            "--max-cost",
            type=float,
            default=None,
            metavar="USD",
            help=_(
                "the most this run's llm() calls may cost, in US dollars (default: the app's setting, "
                "no budget unless set)"
            ),
        )
        sub.add_argument(
            "--no-cache",
            action="store_true",
            help=_("ask the model for every llm() call instead of reusing the answers cached in the data directory"),
        )
        sub.add_argument(
            "--trace",
            action="store_true",
            help="with --json, --json-lines or a .jsonl --out: each case's llm() calls (what was sent, the "
            "answer or error, tokens, latency, cost, retries) under llm_calls",
        )
        if name == "score":
            sub.add_argument("--out", metavar="FILE", help=_("write per-case results to FILE (.csv, .jsonl, .parquet)"))
            sub.add_argument(
                "--concurrency",
                type=int,
                default=None,
                metavar="N",
                help=_("cases in flight at once, 1 to 64 (default: the app's setting, 8 unless changed)"),
            )
            sub.add_argument("--split", default=None, help=_("score only this split (train, val or test)"))
            sub.add_argument(
                "--ray",
                metavar="ADDRESS",
                default=None,
                help=_("score on the Ray cluster at ADDRESS (host:port of its head; needs the ray extra)"),
            )
            human_cli.add_arguments(sub)
    _add_export_parser(commands)
    from .engines.uplift.cli import add_parser as add_uplift_parser

    add_uplift_parser(commands)
    return parser


def _read_metric(path: str, inputs: tuple[str, ...] = (), stderr: TextIO | None = None) -> FolderRead:
    """The metric folder at ``path`` (metric.py or its folder); ``inputs``, the data files given
    with it, never come along as metric files. Notes on files left out go to ``stderr``."""
    if kind := special_file(path):
        raise UsageError(
            _("{path} is {kind}, not a metric file or folder; give the path of metric.py or its folder").format(
                path=path, kind=kind
            )
        )
    try:
        read = read_metric_folder(path, exclude=inputs)
    except MetricSourceError as exc:
        raise UsageError(str(exc)) from None
    for note in read.notes:
        print(_("note: {text}").format(text=_terminal_lines(note)), file=stderr or sys.stderr)
    return read


def _refuse_out_over_inputs(out: str, inputs: dict[str, str], metric: FolderRead) -> None:
    """Refuse an ``--out`` that is the same file as an input (``inputs``: path to its option), or a file of
    the metric: one that came along with it, or one its code names (``open("labels.jsonl")``)."""
    if same := same_file_as(out, inputs):
        raise UsageError(
            _(
                "--out {path} is the same file as {option} {input}, which this run reads; write the results to "
                "another file."
            ).format(path=out, option=inputs[str(same)], input=same)
        )
    relative = os.path.relpath(os.path.abspath(out), os.path.abspath(metric.folder))
    named = any(relative in string_literals(text) for name, text in metric.source.files.items() if name.endswith(".py"))
    if (same := same_file_as(out, metric.paths())) or named:
        raise UsageError(
            _(
                "--out {path} is the same file as {input}, a file of the metric; write the results to another file."
            ).format(path=out, input=same or metric.folder / relative)
        )


def _read_roles(path: str) -> RolesFile:
    if problem := path_problem(path):
        raise UsageError(_("--roles {path}: {problem}").format(path=path, problem=problem))
    if kind := special_file(path):
        raise UsageError(_("--roles {path} is {kind}, not a file; give a JSON file").format(path=path, kind=kind))
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(
            _("--roles {path}: cannot read the file ({error})").format(path=path, error=exc.strerror)
        ) from None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise UsageError(_("--roles {path}: not valid JSON ({error})").format(path=path, error=exc)) from None
    return roles_file_from_json(value, f"--roles {path}")


def _candidate_files(texts: list[str], roles: RolesFile) -> list[CandidateFile]:
    """The ``--candidate-file`` arguments, each with its roles from the roles file's ``candidate_files``."""
    files = [_candidate_file(text) for text in texts]
    unknown = sorted(set(roles.candidate_files) - {item.name for item in files})
    if unknown:
        raise UsageError(
            _(
                "the roles file gives roles for candidate file {name}, but no --candidate-file is named so; "
                "name it NAME=FILE with that name"
            ).format(name=repr(unknown[0]))
        )
    return [dataclasses.replace(item, roles=roles.candidate_files.get(item.name)) for item in files]


def _metric_name(path: str) -> str:
    """What the check's messages call the metric: the file given (``metric_bug.py``), or metric.py in a folder."""
    return Path(path).name if not Path(path).is_dir() else "metric.py"


def _candidate_file(text: str) -> CandidateFile:
    name, equals, path = text.partition("=")
    if not equals or not name.strip() or not path.strip():
        raise UsageError(
            _("--candidate-file {text}: write NAME=FILE, e.g. --candidate-file large=large.csv").format(text=repr(text))
        )
    return CandidateFile(name=name.strip(), path=path.strip())


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
        from .engines.uplift.cli import run as run_uplift

        return run_uplift(args, stdout, stderr)
    # Starting the sandbox (probing bubblewrap, starting children) overlaps with reading the data.
    threading.Thread(target=start_one_child, daemon=True, name="skynet-pool-start").start()
    if args.max_calls is not None and not 1 <= args.max_calls <= 10_000:
        print(_("error: --max-calls must be from 1 to 10000, not {value}").format(value=args.max_calls), file=stderr)
        return EXIT_USAGE
    if args.max_cost is not None and not 0 <= args.max_cost <= 1_000_000:  # also refuses NaN
        print(
            _("error: --max-cost must be a number of US dollars, 0 or more, not {value}").format(value=args.max_cost),
            file=stderr,
        )
        return EXIT_USAGE
    # The metric's llm() calls are made here, with the app's saved settings or the environment's (keys stay here).
    # With a model configured, litellm (seconds to import) starts importing now, in the background.
    settings = machine_settings()
    if args.max_calls is not None:
        settings = settings.with_changes(max_calls_per_case=args.max_calls)
    if args.max_cost is not None:
        settings = settings.with_changes(max_cost_usd=args.max_cost)
    if args.no_cache:
        settings = settings.with_changes(cache=False)
    from .llm_cache import answer_cache  # here: main's imports above changed beside where it would go

    llm = make_handler(settings, cache=answer_cache() if settings.cache else None)
    try:
        timeout = validate_timeout(args.timeout)
        if args.command == "score":
            if args.ray is not None and not args.ray.strip():
                raise UsageError(
                    _(
                        "--ray needs the address of the cluster's head, e.g. --ray 127.0.0.1:6379 (leave it out to "
                        "score on this machine)"
                    )
                )
            if args.concurrency is not None and not 1 <= args.concurrency <= 64:
                raise UsageError(_("--concurrency must be from 1 to 64, not {value}").format(value=args.concurrency))
            if args.out and Path(args.out).suffix.lower() not in (".csv", ".jsonl", ".parquet"):
                raise UsageError(_("--out {path}: use a .csv, .jsonl or .parquet file name").format(path=args.out))
            if args.out and (problem := output_problem(args.out)):
                raise UsageError(_("--out {path}: {problem}").format(path=args.out, problem=problem))
        inputs = {
            args.data: "--data",
            **{text.partition("=")[2]: "--candidate-file" for text in args.candidate_file},
            **({args.roles: "--roles"} if args.roles else {}),
        }
        # The run's own output is not a metric file, even when an old one lies beside metric.py.
        written = (args.out,) if args.command == "score" and args.out else ()
        metric = _read_metric(args.metric, (*inputs, *written), stderr)
        source = metric.source
        if written:
            _refuse_out_over_inputs(args.out, inputs, metric)
        cases, split_counts, warnings = _read_cases(args)
        for warning in warnings:
            print(_("warning: {text}").format(text=_terminal_lines(warning)), file=stderr)
        labels = human_cli.from_args(args)  # --labels: read before any case runs; a bad label is exit 2
    except (UsageError, ValueError, DatasetError) as exc:
        print(_("error: {message}").format(message=_terminal_lines(str(exc))), file=stderr)
        return EXIT_USAGE

    if args.command == "check":
        checked = check_metric(source, cases, timeout=timeout, llm=llm, name=_metric_name(args.metric))
        output = ReportOutput(args, stdout)
        for result in checked.cases:
            output.case(result)
        output.finish(checked)
        return EXIT_OK if checked.ok else EXIT_FAILED

    if args.split:
        cases = (
            cases.in_split(args.split)
            if isinstance(cases, CaseLines)
            else [case for case in cases if case.split == args.split]
        )
        if not cases:
            print(
                _("error: no cases in split {split}; the splits are {splits}").format(
                    split=repr(args.split), splits=", ".join(sorted(split_counts()))
                ),
                file=stderr,
            )
            return EXIT_USAGE
    try:
        out = open_out(args.out)
    except OSError as exc:
        print(_("error: cannot write {path}: {error}").format(path=args.out, error=exc.strerror), file=stderr)
        return EXIT_USAGE
    output = ReportOutput(args, stdout, labels)
    concurrency = args.concurrency if args.concurrency is not None else settings.concurrency
    from .runner.limit import sandbox_limit  # here: main's imports above changed beside where it would go

    sandbox_limit().raise_to(concurrency)  # the limit guards a shared server; this process is one run
    sink = _Sink(output, out)
    report: CheckReport | None = None
    try:
        report = _score(
            source,
            cases,
            timeout,
            concurrency,
            llm,
            sink,
            show_progress=not (args.json or args.json_lines) and stderr.isatty(),
            stderr=stderr,
            ray_address=args.ray,
            name=_metric_name(args.metric),
        )
    except Cancelled:
        report = None  # the sink stopped the run: its write failed, reported below
    except JobError as exc:  # the scorer's place cannot score at all (the cluster): its message says what to do
        print(_("error: {message}").format(message=exc), file=stderr)
        return EXIT_USAGE
    finally:
        # Only a run that ended puts --out in place; an interrupted one leaves the old file as it was.
        if out is not None and (report is None or sink.failed is not None):
            out.discard()
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
    gates = labels.failed_gates() if labels is not None else []
    for failed in gates:
        print(_("error: {message}").format(message=failed), file=stderr)
    return EXIT_OK if report.ok and report.tally.total == len(cases) and not gates else EXIT_FAILED


def _read_cases(args: argparse.Namespace) -> tuple[Sequence[Case], Callable[[], dict[str, int]], list[str]]:
    """The cases to check or score, how to count them by split (for a message), and the data's warnings
    (ids that differ only in Unicode form; candidates that answer every case identically: the same file given twice).

    ``score`` of a plain JSON Lines file keeps the cases compact (:class:`CaseLines`),
    so that a million of them fit in memory; everything else is a loaded dataset.
    """
    plain = args.command == "score" and not args.roles and not args.candidate_file and args.candidate in (None, "")
    lines = read_case_lines(args.data) if plain else None
    if lines is not None:
        return lines, lines.split_counts, lines.warnings
    roles = _read_roles(args.roles) if args.roles else RolesFile()
    dataset = load_dataset(args.data, roles=roles.main, candidate_files=_candidate_files(args.candidate_file, roles))
    candidate = args.candidate if args.candidate is not None else dataset.candidates[0]
    if candidate not in dataset.candidates:
        raise UsageError(
            _("--candidate {candidate} is not in {path}; it has {candidates}").format(
                candidate=repr(candidate),
                path=args.data,
                candidates=", ".join(repr(name) for name in dataset.candidates),
            )
        )
    return dataset.for_candidate(candidate), dataset.split_counts, [*dataset.warnings, *candidate_warnings(dataset)]


def open_out(path: str | None) -> ResultsWriter | None:
    """The ``--out`` file's writer, opened before scoring so a path that cannot be written fails at once."""
    if not path:
        return None
    from .export import open_results

    return open_results(path)


class ReportOutput:
    """What goes to standard output, in one of three forms, fed case by case in case order.

    ``--json-lines``: each case's object on its own line as it comes, then one
    line with the report without ``cases`` (``ok``, ``isolation``, ``stages``,
    ``summary``; and ``judge`` for ``score``). ``--json``: one object, as
    before; the cases' JSON is spooled (to a temporary file past a few MB)
    until the verdict heading the object is known. Text: the report for
    people at the end (:func:`format_report`).
    """

    def __init__(self, args: argparse.Namespace, stdout: TextIO, labels: human_cli.LabelStep | None = None) -> None:
        self.args, self.stdout = args, stdout
        self.labels = labels  # --labels: the agreement with human scores, added to the report
        self.mode = "lines" if args.json_lines else "json" if args.json else "text"
        self.trace = bool(getattr(args, "trace", False))  # each case's llm() calls under llm_calls
        self.spool: IO[bytes] | None = None
        self.held: list[bytes] = []  # the cases' JSON not in the spool yet: it takes them SPOOL_BATCH at a time
        self.cases = 0
        if self.mode == "json":
            self.spool = tempfile.SpooledTemporaryFile(max_size=SPOOL_IN_MEMORY)

    @property
    def wants_json(self) -> bool:
        return self.mode != "text"

    def case(self, result: CaseResult, encoded: bytes | None = None) -> None:
        """Take one case's result; ``encoded`` is its ``to_json_bytes()`` when the caller has it already."""
        if self.mode == "lines":
            self.stdout.write((encoded or result.to_json_bytes(self.trace)).decode() + "\n")
        elif self.spool is not None:
            self.held.append(encoded or result.to_json_bytes(self.trace))
            if len(self.held) >= SPOOL_BATCH:
                self._spill()
        if self.labels is not None:
            self.labels.add(result)
        self.cases += 1

    def finish(self, report: CheckReport) -> None:
        args = self.args
        from .judge import judge_summary_of

        judge = judge_summary_of(report.tally).to_json() if args.command == "score" else None
        if self.mode == "text":
            self.stdout.write(
                format_report(
                    report, args.command, Path(args.metric).name, args.out if args.command == "score" else None
                )
            )
            if self.labels is not None:
                self.stdout.write(self.labels.text())
            return
        # memory_limit: how the sandbox's memory limit is enforced, next to the isolation level
        head: dict[str, Any] = {
            "ok": report.ok,
            "isolation": report.isolation.value,
            "memory_limit": MEMORY_LIMIT_MODE,
            "stages": [stage.to_json() for stage in report.stages],
        }
        if self.mode == "lines":
            tally = report.tally
            head["summary"] = {
                "cases": tally.total,
                "by_status": tally.by_status,
                "scored": tally.scored,
                "mean_score": tally.mean,
            }
            if judge is not None:
                head["judge"] = judge
            if self.labels is not None:
                head["agreement"] = self.labels.to_json()
            self.stdout.write(orjson.dumps(head).decode() + "\n")
            return
        assert self.spool is not None
        self._spill()
        self.stdout.write(orjson.dumps(head)[:-1].decode() + ',"cases":[')
        self.spool.seek(0)
        while chunk := self.spool.read(SPOOL_IN_MEMORY):
            self.stdout.write(chunk.decode())
        self.spool.close()
        tail = "]" + (',"judge":' + orjson.dumps(judge).decode() if judge is not None else "")
        if self.labels is not None:
            tail += ',"agreement":' + orjson.dumps(self.labels.to_json()).decode()
        tail += "}\n"
        self.stdout.write(tail)

    def _spill(self) -> None:
        """Move the cases held to the spool, comma-separated as the ``cases`` array has them."""
        if self.held and self.spool is not None:
            data = b",".join(self.held)
            self.spool.write(b"," + data if self.spool.tell() else data)
            self.held = []


class _Sink:
    """Takes each result in case order to the ``--out`` file and standard output; a write that
    fails stops the run (``failed`` says why) rather than losing results silently."""

    def __init__(self, output: ReportOutput, out: ResultsWriter | None) -> None:
        self.output, self.out = output, out
        self.cancel = threading.Event()
        self.failed: OSError | None = None
        # Decided once, not for every case: whether each result is encoded here, once for the file and
        # standard output alike.
        self._trace = output.trace
        self._encode = out is not None and (output.wants_json or output.trace)

    def __call__(self, result: CaseResult) -> None:
        if self.failed is not None:
            return
        try:
            encoded = result.to_json_bytes(self._trace) if self._encode else None
            if self.out is not None:
                self.out.write(result, encoded)
            self.output.case(result, encoded)
        except OSError as exc:
            self.failed = exc
            self.cancel.set()


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
        return check_metric(
            source,
            cases,
            timeout=timeout,
            sample=cases,
            concurrency=concurrency,
            llm=llm,
            on_result=progress if bar is not None else None,
            stop_on_timeout=False,
            cancel=sink.cancel,
            in_order=sink,
            keep=False,
            scorer=scorer,
            name=name,
        )
    finally:
        if bar is not None:
            bar.close()


def format_report(report: CheckReport, command: str, metric_name: str, out: str | None = None) -> str:
    """The report for people: stages with their verdicts, the cases, a one-line conclusion."""
    isolation = _(ISOLATION_WORDS.get(report.isolation.value, report.isolation.value))
    lines = [
        _("Contract check of {metric} (isolation: {isolation}, memory limit: {mode})").format(
            metric=metric_name, isolation=isolation, mode=MEMORY_LIMIT_MODE
        )
    ]
    for stage in report.stages:
        where = ""
        if stage.line and stage.status is StageStatus.FAILED:
            where = " [" + _("{file} line {line}").format(file=stage.file, line=stage.line) + "]"
        message = stage.message.splitlines()[0] if stage.message else _(STAGE_WORDS[stage.status])
        lines.append(f"  {MARKS[stage.status]} {_pad(stage.label, 20)} {message}{where}")
        if stage.warning:
            lines.append("      " + _("warning: {text}").format(text=stage.warning))
        for extra in stage.message.splitlines()[1:] if stage.status is StageStatus.FAILED else []:
            lines.append(f"      {extra}")
    tally = report.tally
    if tally.total:
        lines.append("")
        shown = tally.first if command == "check" or tally.total <= SHOWN_CASES else tally.failures
        if shown:
            heads = _("case"), _("split"), _("status"), _("score"), _("feedback / error")
            lines.append(
                f"  {_pad(heads[0], 14)} {_pad(heads[1], 6)} {_pad(heads[2], 8)} "
                f"{_pad(heads[3], 7, right=True)}  {heads[4]}"
            )
        for case in shown:
            score = f"{case.score:.3f}" if case.score is not None else "-"
            text = case.feedback if case.ok else case.error.splitlines()[0] if case.error else ""
            status = case.status.word
            lines.append(f"  {case.id[:14]:<14} {case.split:<6} {_pad(status, 8)} {score:>7}  {text[:100]}")
        if command == "score":
            if tally.mean is not None:
                summary = ngettext(
                    "{scored} of {total} case scored, mean score {mean}",
                    "{scored} of {total} cases scored, mean score {mean}",
                    tally.total,
                ).format(scored=tally.scored, total=tally.total, mean=f"{tally.mean:.3f}")
            else:
                summary = ngettext(
                    "{scored} of {total} case scored", "{scored} of {total} cases scored", tally.total
                ).format(scored=tally.scored, total=tally.total)
            lines.append(f"  {summary}")
            from .judge import judge_summary_of

            judge = judge_summary_of(tally)
            if judge.used:
                lines.append(f"  {judge.describe()}")
    if out:
        lines.append("  " + _("results written to {path}").format(path=out))
    lines.append("")
    if report.ok:
        lines.append(_("The metric meets the contract.") if command == "check" else _("Every case scored."))
    else:
        failure = report.first_failure
        lines.append(
            _("The metric breaks the contract at {stage}.").format(stage=failure.label)
            if failure
            else _("Some cases failed.")
        )
    # Feedback, errors and ids come from metric code and data files: no control character reaches the terminal.
    return "\n".join(terminal_text(line) for line in lines) + "\n"


def _terminal_lines(text: str) -> str:
    return "\n".join(terminal_text(line) for line in text.split("\n"))


# --- export for engines (#13): the logic is skynet_core.engines.export ---------------------------------------


def _add_export_parser(commands: Any) -> None:
    help_text = _("write a folder that runs the metric inside GEPA or DSPy GEPA (run_gepa.py / run_dspy.py)")
    sub = commands.add_parser("export", help=help_text, description=help_text)
    sub.add_argument("metric", metavar="METRIC", help=_("metric.py, or the metric folder that holds it"))
    sub.add_argument("--engine", required=True, choices=("gepa", "dspy"), help=_("the engine to run the metric in"))
    sub.add_argument("--out", required=True, metavar="DIR", help=_("the folder to write (created if missing)"))
    sub.add_argument("--data", metavar="CASES", help=_("the cases to optimize on: .jsonl, .csv or .parquet"))
    sub.add_argument(
        "--roles", metavar="FILE.json", help=_('column roles as JSON, {{"column": ["role", "field"]}}').format()
    )
    sub.add_argument(
        "--instruction",
        metavar="TEXT",
        help=_(
            "the instruction to optimize (default: the dataset's "
            "own, for the bundled example, else a placeholder to edit in instruction.txt)"
        ),
    )


def _run_export(args: argparse.Namespace, stdout: TextIO, stderr: TextIO) -> int:
    from .engines.export import export_for_engine
    from .engines.reflection import dataset_instruction

    inputs = tuple(item for item in (args.data, args.roles) if item)
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
    sys.exit(run())
