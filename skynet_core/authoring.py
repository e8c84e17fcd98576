"""What the Author page decides, without drawing it: which cases the live check runs and why, one case
typed as JSON, where a wrong return value is fixed, how a scoring run's numbers read, and which
example the editor holds.

Streamlit-free and unit tested (tests/test_authoring.py); ``pages/author.py`` and its panels draw it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import orjson

from .cases import Case
from .contract import SAMPLE_SIZE
from .i18n import N_, _, ngettext
from .metric_source import MAIN_FILE
from .provenance import Provenance
from .results import CaseResult, CheckReport
from .score_lines import return_line as return_line  # where a wrong return value is fixed

SETTING_CHECK_PINS = "check.pins"
"""Store key: {dataset source: [case id, ...]}, the cases pinned for the live check, per dataset."""
USER_CASES_FILE = "my-cases.jsonl"
"""The user dataset "Save as a case" appends to, in the workspace's uploads folder."""
MAX_PINS = 20

SAMPLED = N_("sampled")
PINNED = N_("pinned")


# --- the cases the live check runs ------------------------------------------------------------


@dataclass(frozen=True)
class CheckCases:
    """The cases the live check runs, and why: ``pinned`` (the user's pins, in pin order) or the
    planner's deterministic sample. ``dropped`` are pinned ids the current cases no longer have."""

    cases: list[Case]
    pinned: bool
    dropped: list[str] = field(default_factory=list)

    @property
    def reason(self) -> str:
        """``"pinned"`` or ``"sampled"`` (untranslated; ``_()`` it where shown)."""
        return PINNED if self.pinned else SAMPLED

    @property
    def ids(self) -> list[str]:
        return [case.id for case in self.cases]


def check_cases(
    cases: Sequence[Case], pins: Iterable[str], sample: Callable[[], list[Case]] | None = None
) -> CheckCases:
    """The cases the live check uses: the pinned ones that the current ``cases`` still hold (in pin
    order), else the planner's sample (contract Part B rule 7; ``sample`` gives it when the caller keeps
    it, e.g. :meth:`DatasetInUse.check_sample`). Pins whose ids vanished are listed in ``dropped``; when
    every pin vanished, the sample is used again."""
    from .datasets import sample_for_check

    wanted = list(dict.fromkeys(pins))
    if wanted:
        wanted_ids = set(wanted)
        by_id = {case.id: case for case in cases if case.id in wanted_ids}  # one pass, no index of every case
    else:
        by_id = {}
    kept = [by_id[case_id] for case_id in wanted if case_id in by_id]
    dropped = [case_id for case_id in wanted if case_id not in by_id]
    if kept:
        return CheckCases(kept, True, dropped)
    return CheckCases(sample() if sample else sample_for_check(cases, SAMPLE_SIZE), False, dropped)


def pins_for(stored: Any, dataset: str) -> list[str]:
    """The pinned ids of ``dataset`` from the stored setting (anything malformed reads as no pins)."""
    if not isinstance(stored, Mapping):
        return []
    ids = stored.get(dataset)
    return [str(item) for item in ids if isinstance(item, str | int)] if isinstance(ids, list) else []


def with_pins(stored: Any, dataset: str, ids: Iterable[str]) -> dict[str, list[str]]:
    """The stored setting with ``dataset``'s pins replaced by ``ids`` (at most :data:`MAX_PINS`, no repeats)."""
    value = {str(key): list(items) for key, items in stored.items()} if isinstance(stored, Mapping) else {}
    chosen = list(dict.fromkeys(str(item) for item in ids))[:MAX_PINS]
    if chosen:
        value[dataset] = chosen
    else:
        value.pop(dataset, None)
    return value


# --- one case typed as JSON ---------------------------------------------------------------------


class CaseJsonError(ValueError):
    """A field of a typed case is not valid JSON, or not the shape the field needs (``field`` names it)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


def case_json(value: Any) -> str:
    """A case field as the JSON the try-one-case panel pre-fills (indented, keys in their order)."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def parse_case(case_id: str, input_text: str, output_text: str, expected_text: str, *, split: str = "train") -> Case:
    """A case from the three JSON texts. ``input`` must be an object; ``output`` any JSON value;
    ``expected`` an object, ``null`` or empty (no expected value). Raises :class:`CaseJsonError`."""

    def load(name: str, text: str) -> Any:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise CaseJsonError(name, str(exc)) from None

    if not input_text.strip():
        raise CaseJsonError("input", _("empty"))
    value = load("input", input_text)
    if not isinstance(value, dict):
        raise CaseJsonError("input", _("a JSON object is needed, not {type}").format(type=type(value).__name__))
    if not output_text.strip():
        raise CaseJsonError("output", _("empty"))
    output = load("output", output_text)
    expected = load("expected", expected_text) if expected_text.strip() else None
    if expected is not None and not isinstance(expected, dict):
        raise CaseJsonError(
            "expected", _("a JSON object or null is needed, not {type}").format(type=type(expected).__name__)
        )
    return Case(str(case_id or "typed-case"), value, output, expected, split)


def save_user_case(folder: Path, case: Case) -> Path:
    """Append ``case`` to the user dataset in ``folder`` (one JSON line, loadable on the Data page);
    an id already in the file gets a suffix so that ids stay unique. Returns the file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / USER_CASES_FILE
    taken = set()
    if path.exists():
        for line in path.read_bytes().splitlines():
            try:
                taken.add(str(orjson.loads(line).get("id")))
            except (orjson.JSONDecodeError, AttributeError):
                continue
    case_id, n = case.id, 2
    while case_id in taken:
        case_id, n = f"{case.id}-{n}", n + 1
    row = {"id": case_id, "split": case.split, "input": case.input, "output": case.output, "expected": case.expected}
    with path.open("ab") as handle:
        handle.write(orjson.dumps(row) + b"\n")
    return path


# --- a scoring run's numbers --------------------------------------------------------------------


@dataclass(frozen=True)
class RunNumbers:
    """The headline numbers of a set of results: the mean over ok cases and the share that did not score."""

    total: int
    ok: int
    mean: float | None
    by_status: dict[str, int]

    @property
    def failed(self) -> int:
        return self.total - self.ok

    @property
    def failed_share(self) -> float:
        return self.failed / self.total if self.total else 0.0


def run_numbers(results: Sequence[CaseResult]) -> RunNumbers:
    ok = [r.score for r in results if r.ok and r.score is not None]
    by_status: dict[str, int] = {}
    for result in results:
        by_status[result.status.value] = by_status.get(result.status.value, 0) + 1
    return RunNumbers(len(results), len(ok), sum(ok) / len(ok) if ok else None, by_status)


def side_information(result: CaseResult) -> dict[str, Any] | None:
    """The side information the metric returned, or ``None`` when it returned none (a case that did not score)."""
    if not result.ok:
        return None
    return {"feedback": result.feedback, "scores": result.scores, **result.extra}


def error_headline(error: str, limit: int = 160) -> str:
    """An error's first line, clipped for a table cell (the whole text is shown elsewhere, once)."""
    first = error.strip().splitlines()[0] if error.strip() else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


# --- the verdict: the check's, or what the last scoring run found ----------------------------------


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


# --- the example picker ------------------------------------------------------------------------


def example_shown(text: str, examples: Mapping[str, str]) -> str | None:
    """The example whose text the editor holds, or ``None`` when it holds other code."""
    stripped = text.strip()
    return next((title for title, source in examples.items() if source.strip() == stripped), None)


def python_completions() -> list[dict[str, Any]]:
    """The editor's completion list: Python 3's keywords and builtins only (Ace's own Python list
    includes Python 2 names such as ``raw_input``)."""
    import builtins
    import keyword

    words = [(word, "keyword") for word in [*keyword.kwlist, *keyword.softkwlist] if word.isidentifier()]
    words += [(name, "builtin") for name in dir(builtins) if not name.startswith("_")]
    return [{"caption": word, "value": word, "meta": meta, "score": 1} for word, meta in words]
