"""``python -m skynet_core stress``: the stress test from the command line.

    python -m skynet_core stress METRIC --data CASES [--roles FILE.json] [--candidate NAME] [--candidate-file NAME=F]
                                 [--split S] [--cases N] [--seed S] [--families LIST] [--perturbations LIST]
                                 [--max-cost USD]
                                 [--fail-on hackable,brittle,insensitive] [--search [--rounds R]] [--json]

The cases are read as ``score`` reads them, and scored through the same scorer with the same ``llm()`` handler
(the answer cache, ``--max-calls``, ``--max-cost``, ``--no-cache``, ``--ray``). The plan (cases, outputs, model
calls at most and their estimated cost) is printed before the run, to standard error with ``--json``.

Exit status: 0; 1 when a flag named in ``--fail-on`` is set; 2 for a usage or input problem (a model missing for
``--search`` too); 130 when Ctrl+C stopped the scoring.
"""

from __future__ import annotations

import argparse
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from ..display import terminal_lines
from ..i18n import _, format_number
from .defaults import DEFAULT_ROUNDS, MAX_ROUNDS, SEARCH_CASES

if TYPE_CHECKING:
    from ..cli.inputs import _Inputs
    from ..llm import MetricLlm, ModelSettings
    from .report import StressReport
    from .verdict import Example

FLAGS = ("brittle", "insensitive", "hackable")
FAMILIES = ("preserve", "degrade", "game")


def add_parser(commands: Any) -> None:
    """Add the ``stress`` command to the CLI's subparsers (``commands``)."""
    from ..cli.options import add_budget_options, add_json_option, add_scoring_command, add_seed_option

    help_text = _("stress the metric with perturbed outputs: is it brittle, insensitive or hackable?")
    sub = add_scoring_command(commands, "stress", help_text)
    sub.add_argument(
        "--cases",
        type=_positive,
        default=None,
        metavar="N",
        help=_("stress N cases sampled with the seed (default: all; a metric that calls llm() samples fewer)"),
    )
    add_seed_option(sub, _("the seed of every random choice (default 0)"))
    sub.add_argument(
        "--families",
        type=_names(FAMILIES),
        default=None,
        metavar="LIST",
        help=_("only these families of perturbations, comma-separated: preserve, degrade, game (default: all)"),
    )
    sub.add_argument(
        "--perturbations",
        type=_perturbation_ids,
        default=None,
        metavar="LIST",
        help=_("only these perturbations, comma-separated, e.g. claims_correct,padding (default: all)"),
    )
    sub.add_argument(
        "--fail-on",
        type=_names(FLAGS),
        default=(),
        metavar="LIST",
        help=_("exit 1 when one of these flags is set, comma-separated: hackable, brittle, insensitive"),
    )
    sub.add_argument(
        "--search",
        action="store_true",
        help=_("also search for a rewrite of wrong outputs that the metric rewards (needs task and reflection models)"),
    )
    sub.add_argument(
        "--rounds",
        type=_positive,
        default=DEFAULT_ROUNDS,
        metavar="R",
        help=_("the exploit search's proposals, 1 to {top} (default {default})").format(
            top=MAX_ROUNDS, default=DEFAULT_ROUNDS
        ),
    )
    sub.add_argument(
        "--search-cases",
        type=_positive,
        default=SEARCH_CASES,
        metavar="N",
        help=_("cases whose wrong outputs the exploit search rewrites (default {default})").format(
            default=SEARCH_CASES
        ),
    )
    add_json_option(sub)
    add_budget_options(sub)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("{value} is not a whole number").format(value=repr(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("{value} is not 1 or more").format(value=value))
    return value


def _names(allowed: Sequence[str]) -> Callable[[str], tuple[str, ...]]:
    def parse(text: str) -> tuple[str, ...]:
        names = tuple(dict.fromkeys(item.strip() for item in text.split(",") if item.strip()))
        unknown = [name for name in names if name not in allowed]
        if unknown or not names:
            raise argparse.ArgumentTypeError(
                _("{value} is not among {allowed}").format(
                    value=repr(unknown[0] if unknown else text), allowed=", ".join(allowed)
                )
            )
        return names

    return parse


def _perturbation_ids(text: str) -> tuple[str, ...]:
    from .perturbations import BY_ID

    return _names(tuple(BY_ID))(text)


def run(
    args: argparse.Namespace, read: _Inputs, settings: ModelSettings, llm: MetricLlm, stdout: TextIO, stderr: TextIO
) -> int:
    """Run the ``stress`` command on what ``score`` read (``read``) with its ``llm()`` handler; the exit status."""
    from ..cli.inputs import _in_split
    from ..cli.interrupt import EXIT_INTERRUPTED, cancelled_by_ctrl_c
    from ..cli.options import EXIT_FAILED, EXIT_OK, EXIT_USAGE, UsageError, concurrency
    from ..results import JobError
    from ..scoring import RunOptions, scorer_for
    from ..scoring.runner.limit import sandbox_limit
    from ..scoring.runner.values import Cancelled
    from .perturbations import Family, chosen
    from .plan import plan_stress
    from .run import StressError, default_cases, run_stress, sample_cases
    from .verdict import Flag

    cases = _in_split(args, read, stderr)
    if cases is None:
        return EXIT_USAGE
    families = tuple(Family(name) for name in args.families) if args.families else None
    perturbations = chosen(families, args.perturbations)
    count = args.cases if args.cases is not None else default_cases(read.source, len(cases), len(perturbations))
    sample = sample_cases(cases, count, args.seed)
    try:
        search = _search_plan(args, settings)
        plan = plan_stress(
            read.source,
            sample,
            len(cases),
            perturbations,
            settings,
            default_sample=args.cases is None and len(sample) < len(cases),
            search=search,
        )
    except ValueError as exc:
        print(_("error: {message}").format(message=terminal_lines(str(exc))), file=stderr)
        return EXIT_USAGE
    told = stderr if args.json else stdout
    for line in plan.describe():
        print(line, file=told)
    told.flush()
    try:
        in_flight = concurrency(args, settings.concurrency)
    except UsageError as exc:
        print(_("error: {message}").format(message=str(exc)), file=stderr)
        return EXIT_USAGE
    sandbox_limit().raise_to(in_flight)
    cancel = threading.Event()
    bar = _Progress(stderr, plan.outputs) if not args.json and stderr.isatty() else None
    options = RunOptions(read.timeout, in_flight, llm, cancel=cancel, on_result=bar.case if bar else None)
    try:
        with cancelled_by_ctrl_c(cancel) as interrupt:
            report = run_stress(
                read.source,
                sample,
                scorer_for(args.ray),
                options,
                families=families,
                perturbations=args.perturbations,
                seed=args.seed,
                total=len(cases),
                search=search,
                on_round=bar.round if bar else None,
            )
    except Cancelled:
        print(_("interrupted (Ctrl+C): the stress test was cancelled"), file=stderr)
        return EXIT_INTERRUPTED
    except (StressError, JobError) as exc:
        print(_("error: {message}").format(message=terminal_lines(str(exc))), file=stderr)
        return EXIT_USAGE
    finally:
        if bar is not None:
            bar.close()
    if interrupt.caught and report.search is not None:
        print(_("interrupted (Ctrl+C): the exploit search stopped early"), file=stderr)
    if args.json:
        import orjson

        stdout.write(orjson.dumps(report.to_json()).decode() + "\n")
    else:
        stdout.write(format_report(report))
    failed = [Flag(name) for name in args.fail_on if report.verdict.has(Flag(name))]
    for flag in failed:
        print(
            _("error: the metric is {flag} (--fail-on {name}): {why}").format(
                flag=flag.label, name=flag.value, why=", ".join(report.verdict.why[flag])
            ),
            file=stderr,
        )
    return EXIT_FAILED if failed else EXIT_OK


def _search_plan(args: argparse.Namespace, settings: ModelSettings) -> Any:
    """The exploit search ``--search`` asks for, or ``None``; raises ``ValueError`` for people when a model is
    missing or its key is."""
    if not args.search:
        return None
    from ..engines.task import litellm_kwargs
    from ..engines.uplift.config import Models
    from .search import SearchPlan

    missing = [role for role in ("task", "reflection") if settings.config(role) is None]
    if missing or settings.task is None or settings.reflection is None:
        raise ValueError(
            _(
                "--search needs a task model (it rewrites the wrong outputs) and a reflection model (it looks for the "
                "rewrite): set {names} to a litellm model name or an OpenAI-compatible server, with the provider's "
                "key variable (e.g. OPENAI_API_KEY)"
            ).format(names=_(" and ").join(f"SKYNET_{role.upper()}_MODEL" for role in missing))
        )
    for model in (settings.task, settings.reflection):
        litellm_kwargs(model)  # a missing key is said now, before any call
    return SearchPlan(Models(settings.task, settings.reflection, settings), args.rounds, args.search_cases)


class _Progress:
    """The run's progress on a terminal: a bar of outputs scored, then the exploit search's proposal."""

    def __init__(self, stream: TextIO, total: int) -> None:
        from tqdm import tqdm

        self.bar = tqdm(total=total, unit=_("output"), file=stream, dynamic_ncols=True)
        self._lock = threading.Lock()

    def case(self, result: object) -> None:
        with self._lock:
            self.bar.update(1)

    def round(self, number: int) -> None:
        with self._lock:
            self.bar.set_description_str(_("exploit search, proposal {number}").format(number=number))

    def close(self) -> None:
        self.bar.close()


def format_report(report: StressReport) -> str:
    """The report for people: the verdict, each perturbation, the worst example of each flag, feedback under
    stress, the exploit search and what the calls cost. Texts from the metric and the data are shown literally."""
    from ..display import terminal_text
    from .verdict import percent

    lines = [
        _("Stress test: {cases} of {total} cases, seed {seed}.").format(
            cases=format_number(report.cases), total=format_number(report.total), seed=report.seed
        ),
        "",
        report.headline(),
        "",
    ]
    lines.extend(report.notes())
    lines.append(
        f"{_('family'):<9} {_('perturbation'):<17} {_('cases'):>6} {_('violate'):>8} {_('share'):>6}  "
        + _("mean change")
    )
    for item in report.perturbations:
        errors = (" " + _("({count} could not be scored)").format(count=item.errors)) if item.errors else ""
        lines.append(
            f"{item.family.value:<9} {item.id:<17} {item.n:>6} {item.violations:>8} {percent(item.rate):>6}  "
            f"{item.mean_change.describe()}{errors}"
        )
    for flag, ids in report.verdict.why.items():
        worst = next((found for name in ids if (found := report.result(name)) is not None and found.examples), None)
        if worst is not None:
            lines.append("")
            lines.append(
                _("Worst example of {flag}: {perturbation}, case {case}").format(
                    flag=flag.label, perturbation=worst.id, case=terminal_text(worst.examples[0].id)
                )
            )
            lines.extend(_example_lines(worst.examples[0], terminal_text))
    lines.append("")
    lines.append(_("Feedback under stress:"))
    for finding in report.feedback.findings:
        lines.append(
            "  "
            + _("{title}: {count} of {checked}").format(
                title=finding.title, count=format_number(finding.count), checked=format_number(finding.checked)
            )
        )
    if spent := report.spent():
        lines.append("")
        lines.append(spent)
    if report.search is not None:
        lines.append("")
        lines.extend(_search_lines(report, terminal_text))
    return "\n".join(lines) + "\n"


def _example_lines(example: Example, shown: Any) -> list[str]:
    return [
        "  "
        + _("before: {output} → {score}").format(
            output=shown(repr(example.before)), score=f"{example.score_before:.3f}"
        ),
        "  "
        + _("after:  {output} → {score}").format(output=shown(repr(example.after)), score=f"{example.score_after:.3f}"),
        "  " + _("feedback after: {feedback}").format(feedback=shown(example.feedback_after)),
    ]


def _search_lines(report: StressReport, shown: Any) -> list[str]:
    search = report.search
    assert search is not None
    lines = [
        _("Exploit search:") + " " + search.describe(),
        "  " + _("rewrite: {text}").format(text=shown(search.best)),
    ]
    if search.message():
        lines.append("  " + search.message())
    for rewrite in search.examples:
        lines.append(
            "  "
            + _("{id} ({kind}): {before} → {after}: {score_before} → {score_after}").format(
                id=shown(rewrite.id),
                kind=rewrite.kind,
                before=shown(repr(rewrite.before)),
                after=shown(repr(rewrite.after)),
                score_before=f"{rewrite.score_before:.3f}",
                score_after=f"{rewrite.score_after:.3f}",
            )
        )
    return lines
