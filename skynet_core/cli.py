"""The command line: the same contract check and scoring as the app, without a browser.

    python -m skynet_core check METRIC.py --data CASES [--timeout S] [--json]
    python -m skynet_core score METRIC.py --data CASES [--out FILE] [--timeout S] [--concurrency N] [--json]

``--roles FILE.json`` gives column roles as the Data page does (``{column: [role,
field]}``), and ``--candidate-file NAME=FILE`` adds a candidate from a file of its
own, joined to CASES by id (repeatable); the main file's candidate is then named
after the file.

Exit status: 0 when the contract holds (check) or every case scored (score);
1 when the metric breaks the contract or a case errs; 2 for a usage or input
problem (unreadable data, bad arguments).
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import Any, NoReturn, TextIO

import orjson

from .contract import DEFAULT_TIMEOUT_S, check_metric, validate_timeout
from .datasets import CandidateFile, DatasetError, Role, load_dataset, roles_from_json
from .display import terminal_text
from .judge import judge_summary
from .llm import MetricLlm, machine_settings, make_handler
from .paths import output_problem, special_file
from .results import CaseResult, CheckReport, StageStatus
from .runner.watchdog import MEMORY_LIMIT_MODE

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2
MARKS = {StageStatus.PASSED: "✓", StageStatus.FAILED: "✗", StageStatus.SKIPPED: "-", StageStatus.NOT_RUN: "·"}


class UsageError(Exception):
    """A problem with the arguments or the input files (exit status 2)."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(EXIT_USAGE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m skynet_core", description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    for name, help_text in (("check", "run the contract check on 3 sampled cases"),
                            ("score", "score every case of the dataset")):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("metric", metavar="METRIC.py", help="the metric file")
        sub.add_argument("--data", required=True, metavar="CASES", help="cases: .jsonl, .csv or .parquet")
        sub.add_argument("--timeout", type=float, default=DEFAULT_TIMEOUT_S, metavar="S",
                         help="seconds per call of score, 1 to 600 (default 60)")
        sub.add_argument("--candidate", default=None, help="which candidate's outputs to score (default: the first)")
        sub.add_argument("--roles", metavar="FILE.json",
                         help='column roles as JSON, {"column": ["role", "field"]}; unnamed columns are inferred')
        sub.add_argument("--candidate-file", action="append", default=[], metavar="NAME=FILE",
                         help="another candidate's outputs in a file of their own, joined to CASES by id")
        sub.add_argument("--json", action="store_true", help="print one JSON object instead of text")
        sub.add_argument("--max-calls", type=int, default=None, metavar="N",
                         help="llm() calls one case may make, 1 to 10000 (default: the app's setting, 50 unless "
                              "changed)")
        sub.add_argument("--max-cost", type=float, default=None, metavar="USD",
                         help="the most this run's llm() calls may cost, in US dollars (default: the app's setting, "
                              "no budget unless set)")
        if name == "score":
            sub.add_argument("--out", metavar="FILE", help="write per-case results to FILE (.csv, .jsonl, .parquet)")
            sub.add_argument("--concurrency", type=int, default=None, metavar="N",
                             help="cases in flight at once, 1 to 64 (default: the app's setting, 8 unless changed)")
            sub.add_argument("--split", default=None, help="score only this split (train, val or test)")
    return parser


def _read_metric(path: str) -> str:
    if kind := special_file(path):
        raise UsageError(f"{path} is {kind}, not a metric file; give the path of metric.py")
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise UsageError(f"{path}: no such metric file") from None
    except UnicodeDecodeError as exc:
        raise UsageError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start}); save it as UTF-8") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot read the metric file ({exc.strerror})") from None


def _read_roles(path: str) -> dict[str, tuple[Role, str]]:
    if kind := special_file(path):
        raise UsageError(f"--roles {path} is {kind}, not a file; give a JSON file")
    try:
        text = Path(path).read_bytes()
    except OSError as exc:
        raise UsageError(f"--roles {path}: cannot read the file ({exc.strerror})") from None
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        raise UsageError(f"--roles {path}: not valid JSON ({exc})") from None
    return roles_from_json(value, f"--roles {path}")


def _candidate_file(text: str) -> CandidateFile:
    name, equals, path = text.partition("=")
    if not equals or not name.strip() or not path.strip():
        raise UsageError(f"--candidate-file {text!r}: write NAME=FILE, e.g. --candidate-file large=large.csv")
    return CandidateFile(name=name.strip(), path=path.strip())


def run(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    stdout = stdout or sys.stdout
    stderr = stderr or sys.stderr
    args = build_parser().parse_args(argv)
    try:
        timeout = validate_timeout(args.timeout)
        if args.command == "score":
            if args.concurrency is not None and not 1 <= args.concurrency <= 64:
                raise UsageError(f"--concurrency must be from 1 to 64, not {args.concurrency}")
            if args.out and Path(args.out).suffix.lower() not in (".csv", ".jsonl", ".parquet"):
                raise UsageError(f"--out {args.out}: use a .csv, .jsonl or .parquet file name")
            if args.out and (problem := output_problem(args.out)):
                raise UsageError(f"--out {args.out}: {problem}")
        if args.max_calls is not None and not 1 <= args.max_calls <= 10_000:
            raise UsageError(f"--max-calls must be from 1 to 10000, not {args.max_calls}")
        if args.max_cost is not None and not 0 <= args.max_cost <= 1_000_000:  # also refuses NaN
            raise UsageError(f"--max-cost must be a number of US dollars, 0 or more, not {args.max_cost}")
        source = _read_metric(args.metric)
        dataset = load_dataset(args.data, roles=_read_roles(args.roles) if args.roles else None,
                               candidate_files=[_candidate_file(text) for text in args.candidate_file])
        candidate = args.candidate if args.candidate is not None else dataset.candidates[0]
        if candidate not in dataset.candidates:
            raise UsageError(f"--candidate {candidate!r} is not in {args.data}; it has "
                             + ", ".join(repr(name) for name in dataset.candidates))
        cases = dataset.for_candidate(candidate)
    except (UsageError, ValueError, DatasetError) as exc:
        print(f"error: {_terminal_lines(str(exc))}", file=stderr)
        return EXIT_USAGE

    # The metric's llm() calls are made here, with the app's saved settings or the environment's (keys stay here).
    settings = machine_settings()
    if args.max_calls is not None:
        settings = settings.with_changes(max_calls_per_case=args.max_calls)
    if args.max_cost is not None:
        settings = settings.with_changes(max_cost_usd=args.max_cost)
    llm = make_handler(settings)
    if args.command == "check":
        report = check_metric(source, cases, timeout=timeout, llm=llm)
    else:
        if args.split:
            cases = [case for case in cases if case.split == args.split]
            if not cases:
                print(f"error: no cases in split {args.split!r}; the splits are "
                      + ", ".join(sorted(dataset.split_counts())), file=stderr)
                return EXIT_USAGE
        concurrency = args.concurrency if args.concurrency is not None else settings.concurrency
        report = _score(source, cases, timeout, concurrency, llm, show_progress=not args.json and stderr.isatty(),
                        stderr=stderr)
        if args.out:
            from .export import write_results

            try:
                write_results(report.cases, args.out)
            except OSError as exc:
                print(f"error: cannot write {args.out}: {exc.strerror or exc}", file=stderr)
                return EXIT_USAGE
    if args.json:
        data = report.to_json()
        data["memory_limit"] = MEMORY_LIMIT_MODE  # how the sandbox's memory limit is enforced, next to isolation
        if args.command == "score":
            data["judge"] = judge_summary(report.cases).to_json()
        stdout.write(orjson.dumps(data, option=orjson.OPT_NON_STR_KEYS).decode() + "\n")
    else:
        stdout.write(format_report(report, args.command, Path(args.metric).name, args.out if args.command == "score"
                                   else None))
    if args.command == "score":
        return EXIT_OK if report.ok and len(report.cases) == len(cases) else EXIT_FAILED
    return EXIT_OK if report.ok else EXIT_FAILED


def _score(source: str, cases: list[Any], timeout: float, concurrency: int, llm: MetricLlm, *,
           show_progress: bool, stderr: TextIO) -> CheckReport:
    bar = None
    if show_progress:
        from tqdm import tqdm

        bar = tqdm(total=len(cases), unit="case", file=stderr, dynamic_ncols=True)
    lock = threading.Lock()

    def progress(_: CaseResult) -> None:
        if bar is not None:
            with lock:
                if llm.spent_usd:
                    bar.set_postfix_str(f"llm() spent ${llm.spent_usd:,.4f}", refresh=False)
                bar.update(1)

    try:
        return check_metric(source, cases, timeout=timeout, sample=cases, concurrency=concurrency, llm=llm,
                            on_result=progress, stop_on_timeout=False)
    finally:
        if bar is not None:
            bar.close()


def format_report(report: CheckReport, command: str, metric_name: str, out: str | None = None) -> str:
    """The report for people: stages with their verdicts, the cases, a one-line conclusion."""
    lines = [f"Contract check of {metric_name} (isolation: {report.isolation.value}, "
             f"memory limit: {MEMORY_LIMIT_MODE})"]
    for stage in report.stages:
        where = f" [metric.py line {stage.line}]" if stage.line and stage.status is StageStatus.FAILED else ""
        message = stage.message.splitlines()[0] if stage.message else stage.status.value.replace("_", " ")
        lines.append(f"  {MARKS[stage.status]} {stage.label:<20} {message}{where}")
        for extra in stage.message.splitlines()[1:] if stage.status is StageStatus.FAILED else []:
            lines.append(f"      {extra}")
    if report.cases:
        lines.append("")
        shown = report.cases if command == "check" or len(report.cases) <= 20 else [
            case for case in report.cases if not case.ok][:20]
        if shown:
            lines.append(f"  {'case':<14} {'split':<6} {'status':<8} {'score':>7}  feedback / error")
        for case in shown:
            score = f"{case.score:.3f}" if case.score is not None else "-"
            text = case.feedback if case.ok else case.error.splitlines()[0] if case.error else ""
            lines.append(f"  {case.id[:14]:<14} {case.split:<6} {case.status.value:<8} {score:>7}  {text[:100]}")
        if command == "score":
            ok = [case.score for case in report.cases if case.ok and case.score is not None]
            mean = f", mean score {sum(ok) / len(ok):.3f}" if ok else ""
            lines.append(f"  {len(ok)} of {len(report.cases)} cases scored{mean}")
            judge = judge_summary(report.cases)
            if judge.used:
                lines.append(f"  {judge.describe()}")
    if out:
        lines.append(f"  results written to {out}")
    lines.append("")
    if report.ok:
        lines.append("The metric meets the contract." if command == "check" else "Every case scored.")
    else:
        failure = report.first_failure
        lines.append(f"The metric breaks the contract at {failure.label}." if failure else "Some cases failed.")
    # Feedback, errors and ids come from metric code and data files: no control character reaches the terminal.
    return "\n".join(terminal_text(line) for line in lines) + "\n"


def _terminal_lines(text: str) -> str:
    return "\n".join(terminal_text(line) for line in text.split("\n"))


def main() -> None:
    sys.exit(run())
