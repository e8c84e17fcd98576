"""What the command line prints and writes: the text and JSON reports, cases streamed to the terminal and to
``--out``."""

from __future__ import annotations

import argparse
import codecs
import shutil
import tempfile
import threading
import unicodedata
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, TextIO

import orjson

from ..display import terminal_text
from ..human import cli as human_cli
from ..i18n import N_, _, ngettext
from ..results import SHOWN_CASES, CaseResult, CheckReport, StageStatus
from ..scoring.runner.memcg import enforcement as memory_limit_enforcement

if TYPE_CHECKING:
    from ..runs.export import ResultsWriter


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


def _width(text: str) -> int:
    """Columns ``text`` takes in a terminal (CJK characters take two)."""
    return sum(2 if ord(char) >= 0x1100 and unicodedata.east_asian_width(char) in "WF" else 1 for char in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    """``text`` padded to ``width`` terminal columns (left-aligned, or right-aligned)."""
    fill = " " * max(0, width - _width(text))
    return fill + text if right else text + fill


def open_out(path: str | None) -> ResultsWriter | None:
    """The ``--out`` file's writer, opened before scoring so a path that cannot be written fails at once."""
    if not path:
        return None
    from ..runs.export import open_results

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
        from ..judge.summary import judge_summary_of

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
            "memory_limit": memory_limit_enforcement(),
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
        raw = _utf8_bytes_under(self.stdout)
        if raw is not None:  # the spool's bytes as they are: not decoded to be encoded again (6 MB at 20,000 cases)
            self.stdout.flush()
            shutil.copyfileobj(self.spool, raw, SPOOL_IN_MEMORY)
        else:
            text = codecs.getincrementaldecoder("utf-8")()  # a character may straddle two reads
            while chunk := self.spool.read(SPOOL_IN_MEMORY):
                self.stdout.write(text.decode(chunk))
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


def _utf8_bytes_under(stream: TextIO) -> IO[bytes] | None:
    """The binary stream under a text stream that writes UTF-8 (standard output, as a rule), else ``None``."""
    raw = getattr(stream, "buffer", None)
    encoding = getattr(stream, "encoding", None)
    return raw if raw is not None and encoding and codecs.lookup(encoding).name == "utf-8" else None


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


def format_report(report: CheckReport, command: str, metric_name: str, out: str | None = None) -> str:
    """The report for people: stages with their verdicts, the cases, a one-line conclusion."""
    isolation = _(ISOLATION_WORDS.get(report.isolation.value, report.isolation.value))
    lines = [
        _("Contract check of {metric} (isolation: {isolation}, memory limit: {mode})").format(
            metric=metric_name, isolation=isolation, mode=memory_limit_enforcement()
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
            from ..judge.summary import judge_summary_of

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
