"""The command line's human scores: ``score METRIC --data CASES --labels LABELS [--threshold T]
[--min-kappa K] [--min-spearman R] [--rater NAME]``.

:func:`add_arguments` adds the options to ``score``; :func:`from_args` reads the labels before any
case runs (a bad label is a :class:`~.human_score.LabelError`, a ``ValueError``: exit 2); the
:class:`LabelStep` it returns takes each result as it streams by (keeping only the labelled ones),
and at the end gives the ``"agreement"`` JSON, the text lines and the gates that failed (exit 1).
"""

from __future__ import annotations

import argparse
import math
from functools import cached_property
from typing import TYPE_CHECKING, Any

from skynet_core.i18n import _

if TYPE_CHECKING:
    from collections.abc import Sequence

    from skynet_core.cases import Case
    from skynet_core.results import CaseResult

    from .estimate import Estimate
    from .files import LabelFile
    from .pairing import PairingBuilder
    from .report import Agreement

GATES = (("min_kappa", "kappa", "--min-kappa"), ("min_spearman", "spearman", "--min-spearman"))


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the human-score options to the ``score`` command's parser."""
    group = parser.add_argument_group(_("human scores"))
    group.add_argument(
        "--labels",
        metavar="LABELS",
        help=_("human scores (.csv or .jsonl: id, human as a number or pass/fail, optional candidate, note, rater)"),
    )
    group.add_argument(
        "--threshold",
        type=float,
        default=None,  # report.DEFAULT_THRESHOLD (0.5) once labels are read: that module is not every score's
        metavar="T",
        help=_("the pass threshold of Cohen's kappa and the confusion counts (default 0.5)"),
    )
    group.add_argument(
        "--min-kappa", type=float, default=None, metavar="K", help=_("exit 1 when Cohen's kappa is below K")
    )
    group.add_argument(
        "--min-spearman", type=float, default=None, metavar="R", help=_("exit 1 when Spearman's rho is below R")
    )
    group.add_argument(
        "--rater",
        default=None,
        metavar="NAME",
        help=_("use only this rater's scores (default: the mean of every rater's)"),
    )


def from_args(args: argparse.Namespace, cases: Sequence[Case]) -> LabelStep | None:
    """The step for ``--labels`` (``None`` without it); raises ``ValueError`` for bad options or labels.

    The labels file is streamed against ``cases`` (the candidate scored, every split): only the rows of those
    cases are kept, a row without a candidate being the candidate scored; the others are counted."""
    path = getattr(args, "labels", None)
    gates = {option: getattr(args, attribute, None) for attribute, _figure, option in GATES}
    if not path:
        given = [option for option, value in gates.items() if value is not None]
        if given:
            raise ValueError(_("{option} needs --labels: the human scores to agree with.").format(option=given[0]))
        return None
    if args.threshold is not None and not math.isfinite(args.threshold):
        raise ValueError(_("--threshold must be a finite number, not {value}").format(value=args.threshold))
    for option, value in gates.items():
        if value is not None and not -1 <= value <= 1:
            raise ValueError(_("{option} must be from -1 to 1, not {value}").format(option=option, value=value))
    # Here, not with the module: every ``score`` builds the parser, few read labels.
    from .files import KnownCases, read_labels
    from .report import DEFAULT_THRESHOLD
    from .settings import default_rater

    candidate = args.candidate or (cases[0].candidate if len(cases) else "")
    ids = getattr(cases, "ids", None) or [case.id for case in cases]
    known = KnownCases(frozenset(ids), (candidate,))
    found = read_labels(path, dataset=str(args.data), rater=default_rater(), candidate=candidate, known=known)
    return LabelStep(found, args, DEFAULT_THRESHOLD if args.threshold is None else args.threshold)


class LabelStep:
    """The agreement of one streamed ``score`` run with the labels of a file."""

    def __init__(self, found: LabelFile, args: argparse.Namespace, threshold: float) -> None:
        self.found, self.args, self.threshold = found, args, threshold
        self.builder: PairingBuilder | None = None

    def _builder(self, candidate: str) -> PairingBuilder:
        if self.builder is None:
            from .human_score import human_values
            from .pairing import PairingBuilder

            self.builder = PairingBuilder(human_values(self.found.scores, candidate, self.args.rater))
        return self.builder

    def add(self, result: CaseResult) -> None:
        """Take one case's result (the run's candidate is the first result's)."""
        self._builder(result.candidate).add(result)

    @cached_property
    def agreement(self) -> Agreement:
        from .statistics import measure_agreement

        pairing = self._builder(self.args.candidate or "").build(self.found.unknown_sample, self.found.unknown_rows)
        return measure_agreement(pairing, threshold=self.threshold)

    def to_json(self) -> dict[str, Any]:
        """The ``"agreement"`` object of ``--json`` and of ``--json-lines``' last line."""
        return self.agreement.to_json()

    def text(self) -> str:
        """The figures for people, after the text report (case ids from the data: control characters escaped)."""
        from skynet_core.display import terminal_text

        from .text import agreement_lines

        return "\n" + "\n".join(terminal_text(line) for line in agreement_lines(self.agreement)) + "\n"

    def failed_gates(self) -> list[str]:
        """One sentence per failed gate (``--min-kappa``, ``--min-spearman``): the figure, its value and interval;
        on fewer than :data:`.report.MIN_LABELLED` labelled cases, one sentence that says so (every gate fails)."""
        from .report import MIN_LABELLED
        from .text import estimate_text, figure_label

        given = [option for attribute, _figure, option in GATES if getattr(self.args, attribute, None) is not None]
        n = self.agreement.n
        if given and n < MIN_LABELLED:
            return [
                _(
                    "agreement gate failed: only {n} labelled cases were scored, and {options} needs at least "
                    "{minimum} labelled cases; label more cases"
                ).format(n=n, options=" / ".join(given), minimum=MIN_LABELLED)
            ]
        failed = []
        for attribute, figure, option in GATES:
            minimum = getattr(self.args, attribute, None)
            if minimum is None:
                continue
            found: Estimate = self.agreement.figure(figure)
            if found.value is not None and found.value >= minimum:
                continue
            failed.append(
                _("agreement gate failed: {figure} is {value}, below {option} {minimum:g}").format(
                    figure=figure_label(figure), value=estimate_text(found), option=option, minimum=minimum
                )
            )
        return failed
