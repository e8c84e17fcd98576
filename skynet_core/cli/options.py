"""The command line's options several commands share (the metric and the data, where it scores, the budget of
``llm()`` calls, the seed, ``--json``) and how they are read (:func:`concurrency`), its exit statuses, its language
(``--lang``, read first) and the parser class that speaks it. The commands' parser is ``cli.parser``."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

from ..i18n import LANGUAGES, _, from_environment, resolve
from ..metric.contract import DEFAULT_TIMEOUT_S

EXIT_OK, EXIT_FAILED, EXIT_USAGE = 0, 1, 2


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


class UsageError(Exception):
    """A problem with the arguments or the input files (exit status 2)."""


class _Formatter(argparse.HelpFormatter):
    def add_usage(self, usage: Any, actions: Any, groups: Any, prefix: str | None = None) -> None:
        super().add_usage(usage, actions, groups, _("usage: ") if prefix is None else prefix)


class Parser(argparse.ArgumentParser):
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


def add_scoring_command(commands: Any, name: str, help_text: str) -> argparse.ArgumentParser:
    """The parser of the command ``name`` that scores the metric on cases (``align``, ``stress``), added to the
    subparsers ``commands`` with the metric, the data and where it scores (the command adds its own options)."""
    sub: argparse.ArgumentParser = commands.add_parser(name, help=help_text, description=help_text)
    add_metric_options(sub)
    add_data_options(sub)
    add_place_options(sub)
    return sub


def add_metric_options(sub: argparse.ArgumentParser) -> None:
    """The metric and its timeout, defined once for ``check``, ``score``, ``align`` and ``stress``."""
    sub.add_argument("metric", metavar="METRIC.py", help=_("the metric file, or the folder that holds metric.py"))
    sub.add_argument(
        "--timeout",
        type=float,
        default=DEFAULT_TIMEOUT_S,
        metavar="S",
        help=_("the metric timeout: seconds per call of score, 1 to 600 (default 60)"),
    )


def add_data_options(sub: argparse.ArgumentParser, *, split: bool = True) -> None:
    """The options that say which cases a command reads, defined once for ``check``, ``score`` and ``uplift``:
    ``--data``, ``--candidate``, ``--roles``, ``--candidate-file`` and (with ``split``) ``--split``."""
    sub.add_argument("--data", required=True, metavar="CASES", help=_("cases: .jsonl, .csv or .parquet"))
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
    if split:
        sub.add_argument("--split", default=None, help=_("use only the cases of this split (train, val or test)"))


def add_place_options(sub: argparse.ArgumentParser) -> None:
    """Where ``score`` and ``stress`` score, and how many cases at once."""
    sub.add_argument(
        "--concurrency",
        type=int,
        default=None,
        metavar="N",
        help=_("cases in flight at once, 1 to 64 (default: the app's setting, 8 unless changed)"),
    )
    sub.add_argument(
        "--ray",
        metavar="ADDRESS",
        default=None,
        help=_("score on the Ray cluster at ADDRESS (host:port of its head; needs the ray extra)"),
    )


def concurrency(args: argparse.Namespace, default: int) -> int:
    """The cases in flight at once: ``--concurrency``, else ``default`` (the settings'); raises ``UsageError`` when
    it is not from 1 to 64."""
    return checked_concurrency(args.concurrency if args.concurrency is not None else default)


def checked_concurrency(value: int) -> int:
    """``value`` as a count of cases in flight; raises ``UsageError`` when it is not from 1 to 64."""
    if not 1 <= value <= 64:
        raise UsageError(_("--concurrency must be from 1 to 64, not {value}").format(value=value))
    return value


def add_seed_option(sub: argparse.ArgumentParser, help_text: str) -> None:
    """``--seed S`` (default 0); ``help_text`` says what it fixes."""
    sub.add_argument("--seed", type=int, default=0, metavar="S", help=help_text)


def add_json_option(sub: argparse.ArgumentParser) -> None:
    """``--json``: one JSON object on standard output instead of text."""
    sub.add_argument("--json", action="store_true", help=_("print one JSON object instead of text"))


def add_max_cost_option(sub: argparse.ArgumentParser, help_text: str) -> None:
    """``--max-cost USD``: what the run's model calls may cost; ``help_text`` says what the command does then."""
    sub.add_argument("--max-cost", type=float, default=None, metavar="USD", help=help_text)


def add_budget_options(sub: argparse.ArgumentParser) -> None:
    """What the metric's ``llm()`` calls may use: calls per case, the run's budget, and the answer cache."""
    sub.add_argument(
        "--max-calls",
        type=int,
        default=None,
        metavar="N",
        help=_("llm() calls one case may make, 1 to 10000 (default: the app's setting, 50 unless changed)"),
    )
    add_max_cost_option(
        sub,
        _("the most this run's llm() calls may cost, in US dollars (default: the app's setting, no budget unless set)"),
    )
    sub.add_argument(
        "--no-cache",
        action="store_true",
        help=_("ask the model for every llm() call instead of reusing the answers cached in the data directory"),
    )
