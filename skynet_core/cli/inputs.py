"""What ``check`` and ``score`` read before any case runs: the metric folder, the cases and their roles, the
candidate files, ``--split`` and ``--labels``; anything that cannot be used is a usage error (exit 2).

The readers of tables, roles and candidate files are imported when a run needs them: ``score`` of a plain
JSON Lines file reads it with :mod:`skynet_core.datasets.lines` alone.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import stat
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, TextIO

import orjson

from ..cases import Case
from ..datasets import CaseLines, read_case_lines
from ..display import terminal_lines
from ..human import cli as human_cli
from ..i18n import _
from ..llm import ModelSettings, machine_settings
from ..metric.contract import validate_timeout
from ..metric.folder import FolderRead, read_metric_folder
from ..metric.needs import string_literals
from ..metric.source import MetricSource, MetricSourceError
from ..paths import output_problem, path_problem, same_file_as, special_file

if TYPE_CHECKING:
    from ..datasets import CandidateFile, RolesFile

from .options import UsageError, checked_concurrency


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
        print(_("note: {text}").format(text=terminal_lines(note)), file=stderr or sys.stderr)
    return read


def input_files(args: argparse.Namespace) -> dict[str, str]:
    """Every file a command reads besides the metric, by the path given, with the option that names it: what
    its ``--out`` may never be (``score``'s results file, ``export``'s folder's files)."""
    named = [
        (getattr(args, "data", None), "--data"),
        (getattr(args, "roles", None), "--roles"),
        (getattr(args, "labels", None), "--labels"),
        *((text.partition("=")[2], "--candidate-file") for text in getattr(args, "candidate_file", None) or ()),
    ]
    return {path: option for path, option in named if path}


def _old_output(out: str | None) -> tuple[str, ...]:
    """``out`` when an old output there is left out of the metric folder's files: a regular file no other name
    leads to (a link to a file of the metric, symbolic or hard, is that file, and is refused)."""
    if not out:
        return ()
    try:
        info = os.lstat(out)
    except (OSError, ValueError):
        return (out,)
    return (out,) if stat.S_ISREG(info.st_mode) and info.st_nlink == 1 else ()


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
    from ..datasets import roles_file_from_json

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
    from ..datasets import CandidateFile

    name, equals, path = text.partition("=")
    if not equals or not name.strip() or not path.strip():
        raise UsageError(
            _("--candidate-file {text}: write NAME=FILE, e.g. --candidate-file large=large.csv").format(text=repr(text))
        )
    return CandidateFile(name=name.strip(), path=path.strip())


def _read_cases(args: argparse.Namespace) -> tuple[Sequence[Case], Callable[[], dict[str, int]], list[str]]:
    """The cases to check or score, how to count them by split (for a message), and the data's warnings
    (ids that differ only in Unicode form; candidates that answer every case identically: the same file given twice).

    ``score`` of a plain JSON Lines file keeps the cases compact (:class:`CaseLines`),
    so that a million of them fit in memory; everything else is a loaded dataset.
    """
    plain = (
        args.command in ("score", "stress")
        and not args.roles
        and not args.candidate_file
        and args.candidate in (None, "")
    )
    lines = read_case_lines(args.data) if plain else None
    if lines is not None:
        return lines, lines.split_counts, lines.warnings
    from ..datasets import RolesFile, candidate_warnings, load_dataset

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


@dataclasses.dataclass(frozen=True)
class _Inputs:
    """What ``check`` and ``score`` read before any case runs: the metric, the cases (all of them: the split
    is chosen later), the splits' counts (computed when asked), the ``--labels`` step, and the timeout."""

    source: MetricSource
    cases: Sequence[Case]
    split_counts: Callable[[], dict[str, int]]
    labels: human_cli.LabelStep | None
    timeout: float


def _check_score_options(args: argparse.Namespace) -> None:
    """Raise ``UsageError`` for a ``score`` (or ``stress``) option that cannot work (``--ray``, ``--concurrency``,
    ``--out``)."""
    if args.ray is not None and not args.ray.strip():
        raise UsageError(
            _(
                "--ray needs the address of the cluster's head, e.g. --ray 127.0.0.1:6379 (leave it out to "
                "score on this machine)"
            )
        )
    if args.concurrency is not None:
        checked_concurrency(args.concurrency)
    out = getattr(args, "out", None)  # stress writes no file
    if out and Path(out).suffix.lower() not in (".csv", ".jsonl", ".parquet"):
        raise UsageError(_("--out {path}: use a .csv, .jsonl or .parquet file name").format(path=out))
    if out and (problem := output_problem(out)):
        raise UsageError(_("--out {path}: {problem}").format(path=out, problem=problem))


def _read_inputs(args: argparse.Namespace, stderr: TextIO) -> _Inputs:
    """Read the metric folder, the cases and the labels, after checking the options; raises ``UsageError``,
    ``ValueError`` or ``DatasetError`` (exit 2) for anything that cannot be used. Warnings go to ``stderr``."""
    timeout = validate_timeout(args.timeout)
    if args.command in ("score", "stress"):
        _check_score_options(args)
    inputs = input_files(args)
    out = args.out if args.command == "score" else None
    metric = _read_metric(args.metric, (*inputs, *_old_output(out)), stderr)
    if out:
        _refuse_out_over_inputs(out, inputs, metric)
    cases, split_counts = read_cases(args, stderr)
    labels = human_cli.from_args(args, cases)  # --labels: read before any case runs; a bad label is exit 2
    return _Inputs(metric.source, cases, split_counts, labels, timeout)


def read_cases(args: argparse.Namespace, stderr: TextIO) -> tuple[Sequence[Case], Callable[[], dict[str, int]]]:
    """The cases the data options name (see :func:`~skynet_core.cli.options.add_data_options`; all of them, the
    split is chosen by :func:`cases_in_split`) and how to count them by split; the data's warnings go to
    ``stderr``. Raises ``UsageError``, ``ValueError`` or ``DatasetError`` (exit 2) for data that cannot be used."""
    cases, split_counts, warnings = _read_cases(args)
    for warning in warnings:
        print(_("warning: {text}").format(text=terminal_lines(warning)), file=stderr)
    return cases, split_counts


def cases_in_split(
    args: argparse.Namespace, cases: Sequence[Case], split_counts: Callable[[], dict[str, int]]
) -> Sequence[Case]:
    """The cases of ``--split`` when it is given (all of them otherwise); raises ``UsageError`` when it has none."""
    if not args.split:
        return cases
    chosen = (
        cases.in_split(args.split)
        if isinstance(cases, CaseLines)
        else [case for case in cases if case.split == args.split]
    )
    if not chosen:
        raise UsageError(
            _("no cases in split {split}; the splits are {splits}").format(
                split=repr(args.split), splits=", ".join(sorted(split_counts()))
            )
        )
    return chosen


def _in_split(args: argparse.Namespace, read: _Inputs, stderr: TextIO) -> Sequence[Case] | None:
    """The cases ``score`` runs: those of ``--split`` when given (``None`` after saying there are none)."""
    try:
        return cases_in_split(args, read.cases, read.split_counts)
    except UsageError as exc:
        print(_("error: {message}").format(message=exc), file=stderr)
        return None


def model_settings(args: argparse.Namespace, stderr: TextIO) -> ModelSettings | None:
    """The models' settings for this run: the app's saved ones or the environment's, with ``--max-calls``,
    ``--max-cost`` and ``--no-cache`` applied (keys stay in this process); ``None`` after saying why an
    option is out of range. With a model configured, litellm (seconds to import) starts importing now."""
    if args.max_calls is not None and not 1 <= args.max_calls <= 10_000:
        print(_("error: --max-calls must be from 1 to 10000, not {value}").format(value=args.max_calls), file=stderr)
        return None
    if args.max_cost is not None and not 0 <= args.max_cost <= 1_000_000:  # also refuses NaN
        print(
            _("error: --max-cost must be a number of US dollars, 0 or more, not {value}").format(value=args.max_cost),
            file=stderr,
        )
        return None
    settings = machine_settings()
    if args.max_calls is not None:
        settings = settings.with_changes(max_calls_per_case=args.max_calls)
    if args.max_cost is not None:
        settings = settings.with_changes(max_cost_usd=args.max_cost)
    if args.no_cache:
        settings = settings.with_changes(cache=False)
    return settings
