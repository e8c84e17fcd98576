"""The command line's parser: its commands (``check``, ``score``, ``export``, and the parsers ``uplift``,
``align`` and ``stress`` add), in the run's language."""

from __future__ import annotations

import argparse
from typing import Any

from ..human import cli as human_cli
from ..i18n import _
from .options import Parser, add_budget_options, add_data_options, add_metric_options, add_place_options


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="python -m skynet_core",
        description=_("The command line: the same contract check and scoring as the app, without a browser."),
    )
    commands = parser.add_subparsers(dest="command", required=True, parser_class=Parser, title=_("commands"))
    for name, help_text in (
        ("check", _("run the contract check on 3 sampled cases")),
        ("score", _("score every case of the dataset")),
    ):
        sub = commands.add_parser(name, help=help_text, description=help_text)
        add_metric_options(sub)
        add_data_options(sub, split=name == "score")
        _add_output_and_budget_options(sub)
        if name == "score":
            sub.add_argument("--out", metavar="FILE", help=_("write per-case results to FILE (.csv, .jsonl, .parquet)"))
            add_place_options(sub)
            human_cli.add_arguments(sub)
    _add_export_parser(commands)
    from ..engines.uplift.cli import add_parser as add_uplift_parser
    from ..stress.cli import add_parser as add_stress_parser
    from .align import add_parser as add_align_parser

    add_uplift_parser(commands)
    add_align_parser(commands)
    add_stress_parser(commands)
    return parser


def _add_output_and_budget_options(sub: argparse.ArgumentParser) -> None:
    """``check``'s and ``score``'s options for what is printed and what the metric's ``llm()`` calls may use."""
    output = sub.add_mutually_exclusive_group()
    output.add_argument("--json", action="store_true", help=_("print one JSON object instead of text"))
    output.add_argument(
        "--json-lines",
        action="store_true",
        help=_("print each case's JSON object on its own line as it comes, then the report's"),
    )
    add_budget_options(sub)
    sub.add_argument(
        "--trace",
        action="store_true",
        help="with --json, --json-lines or a .jsonl --out: each case's llm() calls (what was sent, the "
        "answer or error, tokens, latency, cost, retries) under llm_calls",
    )


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
