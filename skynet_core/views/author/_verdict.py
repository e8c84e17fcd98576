"""The Author page's one verdict: the contract check's, or what the last scoring run of the same code found."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Protocol

from ...i18n import _, ngettext
from ...metric.source import MAIN_FILE
from ...provenance import Provenance
from ...results import CaseResult, CheckReport
from ._numbers import error_headline


class ScoredRun(Protocol):
    """What a verdict reads of a scoring run: what made it and its results (a saved run, or a finished job's
    results as :class:`ScoredResults`)."""

    @property
    def provenance(self) -> Provenance | None: ...

    @property
    def results(self) -> Sequence[CaseResult]: ...


@dataclass(frozen=True)
class ScoredResults:
    """A scoring job's results with the provenance it was made with (a :class:`ScoredRun`)."""

    provenance: Provenance | None
    results: Sequence[CaseResult]


@dataclass(frozen=True)
class Verdict:
    """The Author page's one verdict on the draft.

    The contract check's, unless the check passed and the latest scoring run of exactly what is current
    (metric, data, candidate, split, model: ``from_run``) had cases that failed: then the verdict fails
    and names the line most of them fail at. ``line`` is in ``file`` (``None``: no line is known);
    ``failed`` of ``total`` cases failed in what the verdict read. ``message`` is one sentence for people.
    """

    ok: bool
    message: str
    line: int | None = None
    file: str = MAIN_FILE
    failed: int = 0
    total: int = 0
    from_run: bool = False

    @property
    def marked_line(self) -> int | None:
        """The metric.py line the editor marks (a helper file's line is named, not marked)."""
        return self.line if self.file == MAIN_FILE else None


def contract_verdict(report: CheckReport, current: Provenance, run: ScoredRun | None = None) -> Verdict:
    """The verdict on ``report`` (the check of what is ``current``) with what ``run`` found, when ``run``
    was made from exactly what is current: "11 of 40 cases fail at metric.py line 12: KeyError: 'label'"."""
    failure = report.first_failure
    if failure is not None:
        where = _("{file} line {line}").format(file=failure.file, line=failure.line) if failure.line else ""
        message = (
            _("The metric breaks the contract at {stage} ({where}).").format(stage=failure.label, where=where)
            if where
            else _("The metric breaks the contract at {stage}.").format(stage=failure.label)
        )
        first = (failure.message or "").splitlines()
        return Verdict(
            False,
            f"{message} {first[0]}" if first else message,
            failure.line,
            failure.file,
            len([case for case in report.cases if not case.ok]),
            len(report.cases),
        )
    if run is None or run.provenance is None or run.provenance.changes(current):
        return Verdict(True, _("The metric meets the contract."), total=len(report.cases))
    results = list(run.results)
    failed = [result for result in results if not result.ok]
    if not failed:
        return Verdict(
            True,
            ngettext(
                "The metric meets the contract, and the {total} case of the last run scored.",
                "The metric meets the contract, and all {total} cases of the last run scored.",
                len(results),
            ).format(total=len(results)),
            total=len(results),
            from_run=True,
        )
    return _run_failure(failed, len(results))


def _run_failure(failed: list[CaseResult], total: int) -> Verdict:
    """The verdict of a run with failed cases: the place most of them fail at (the first such in case order)."""
    places: dict[tuple[str, int | None], list[CaseResult]] = {}
    for result in failed:
        places.setdefault((result.file, result.line), []).append(result)
    (file, line), there = max(places.items(), key=lambda item: len(item[1]))
    error = error_headline(there[0].error) or there[0].status.value
    if line is not None:
        message = ngettext(
            "{failed} of {total} cases fails at {file} line {line}: {error}",
            "{failed} of {total} cases fail at {file} line {line}: {error}",
            len(there),
        ).format(failed=len(there), total=total, file=file, line=line, error=error)
    else:
        message = ngettext(
            "{failed} of {total} cases fails: {error}",
            "{failed} of {total} cases fail: {error}",
            len(there),
        ).format(failed=len(there), total=total, error=error)
    if len(failed) > len(there):
        message += " " + ngettext(
            "({more} more fails elsewhere.)", "({more} more fail elsewhere.)", len(failed) - len(there)
        ).format(more=len(failed) - len(there))
    return Verdict(False, message, line, file, len(failed), total, from_run=True)
