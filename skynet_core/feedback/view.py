"""What the Feedback review page shows, decided here so the page only draws.

Everything returns plain values (texts in the current language, rows, ids): which cases the
filters keep, the rows of the flagged-cases table, the labels of the "Show" box and of each case,
the threshold fields and their defaults, the suggestions worth saying once, the model-review
summary and the export's file names.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from skynet_core.cases import Case
from skynet_core.i18n import _, format_number, ngettext
from skynet_core.results import CaseResult

from .grading import Grade
from .marks import Mark, MarkValue
from .rules import Flag, Review, Thresholds, rules
from .text import Pair, _fmt

SHOW_FLAGGED, SHOW_ALL = "flagged", "all"
MARK_ANY, MARK_NONE = "any", "none"
MARK_CHOICES: tuple[str, ...] = (MARK_ANY, MARK_NONE, MarkValue.USEFUL.value, MarkValue.WEAK.value)
CASE_IDS_SHOWN = 8
MAX_GRADED = 100


def fmt(value: float | None) -> str:
    """A score for people: "1.0", "0.25", "0.333"; "–" when there is none."""
    return "–" if value is None else _fmt(value)


def pair_up(cases: Sequence[Case], results: Sequence[CaseResult]) -> tuple[list[Pair], int]:
    """The run's results paired with the dataset's cases by id, in run order, and how many results have no case."""
    by_id = {case.id: case for case in cases}
    pairs = [(by_id[result.id], result) for result in results if result.id in by_id]
    return pairs, len(results) - len(pairs)


# --- the filters -------------------------------------------------------------------------------


def show_labels(result: Review) -> dict[str, str]:
    """The "Show" box's choices (flagged, each rule by name, all) and their labels with today's counts."""
    labels = {
        SHOW_FLAGGED: _("Every flagged case ({count})").format(count=len(result.flagged_ids)),
        **{
            rule.name: _("{rule} ({count})").format(rule=rule.title, count=result.counts[rule.name])
            for rule in result.rules
        },
        SHOW_ALL: _("Every judged case, flagged or not ({count})").format(count=len(result.case_ids)),
    }
    return labels


def show_key(result: Review, prefix: str = "feedback.show") -> str:
    """A widget key that changes with the counts, so the box shows the new counts after a rescore or a
    threshold change (issue 10, fix 7); the choice itself is kept apart and carried over."""
    counts = (len(result.flagged_ids), len(result.case_ids), *result.counts.values())
    return f"{prefix}.{'.'.join(str(count) for count in counts)}"


def mark_labels() -> dict[str, str]:
    return {
        MARK_ANY: _("Any mark"),
        MARK_NONE: _("Not marked"),
        MarkValue.USEFUL.value: _("Marked useful"),
        MarkValue.WEAK.value: _("Marked weak"),
    }


@dataclass(frozen=True)
class CaseFilter:
    """Which judged cases the table lists.

    ``show``: ``flagged``, ``all`` or a rule's name; ``mark``: one of :data:`MARK_CHOICES`;
    ``score_range``: inclusive ``(low, high)`` or ``None`` for any score; ``text``: words the
    feedback (or the case id) must contain, case-insensitive; blank for any.
    """

    show: str = SHOW_FLAGGED
    mark: str = MARK_ANY
    score_range: tuple[float, float] | None = None
    text: str = ""


def filter_ids(result: Review, pairs: Sequence[Pair], marks: Mapping[str, Mark], chosen: CaseFilter) -> list[str]:
    """The judged case ids the filter keeps, in run order."""
    if chosen.show == SHOW_FLAGGED:
        ids = result.flagged_ids
    elif chosen.show == SHOW_ALL:
        ids = list(result.case_ids)
    else:
        ids = [case_id for case_id in result.case_ids if chosen.show in result.rules_broken[case_id]]
    by_id = {case.id: res for case, res in pairs}
    words = chosen.text.casefold().split()
    kept = []
    for case_id in ids:
        res, mark = by_id[case_id], marks.get(case_id)
        if chosen.mark == MARK_NONE and mark is not None:
            continue
        if chosen.mark not in (MARK_ANY, MARK_NONE) and (mark is None or mark.value.value != chosen.mark):
            continue
        if chosen.score_range is not None and res.score is not None:
            low, high = chosen.score_range
            if not low - 1e-9 <= res.score <= high + 1e-9:
                continue
        haystack = f"{case_id}\n{res.feedback}".casefold()
        if any(word not in haystack for word in words):
            continue
        kept.append(case_id)
    return kept


def score_span(result: Review, pairs: Sequence[Pair]) -> tuple[float, float] | None:
    """The lowest and highest score of the judged cases, for a range filter; ``None`` when they are all equal."""
    judged = set(result.case_ids)
    scores = [res.score for case, res in pairs if case.id in judged and res.score is not None]
    if not scores or min(scores) == max(scores):
        return None
    return min(scores), max(scores)


def no_match_note(chosen: CaseFilter) -> str:
    if chosen.show == SHOW_ALL and chosen == CaseFilter(show=SHOW_ALL):
        return _("No case was judged.")
    return _("No case matches these filters. Choose “Every judged case” and clear the others to see every case.")


# --- the table and the case ----------------------------------------------------------------------


def mark_text(mark: Mark | None) -> str:
    if mark is None:
        return ""
    return _("useful") if mark.value is MarkValue.USEFUL else _("weak")


def grade_text(grade: Grade | None) -> str:
    if grade is None:
        return ""
    return _("{grade}/5").format(grade=grade.grade) if grade.grade is not None else _("no grade")


def table_columns(with_grades: bool) -> dict[str, str]:
    """The table's columns: machine key → header in the current language."""
    columns = {
        "id": _("id"),
        "split": _("split"),
        "score": _("score"),
        "mark": _("mark"),
        "grade": _("model grade"),
        "feedback": _("feedback"),
        "rules": _("rules broken"),
    }
    if not with_grades:
        del columns["grade"]
    return columns


def table_rows(
    ids: Sequence[str],
    pairs: Sequence[Pair],
    result: Review,
    marks: Mapping[str, Mark],
    grades: Mapping[str, Grade],
) -> list[dict[str, Any]]:
    """One row per id, keyed by the headers of :func:`table_columns`."""
    titles = {rule.name: rule.title for rule in result.rules}
    columns = table_columns(bool(grades))
    by_id = {case.id: res for case, res in pairs}
    rows = []
    for case_id in ids:
        res = by_id[case_id]
        values = {
            "id": case_id,
            "split": res.split,
            "score": res.score,
            "mark": mark_text(marks.get(case_id)),
            "grade": grade_text(grades.get(case_id)),
            "rules": "; ".join(titles[name] for name in result.rules_broken.get(case_id, [])),
            "feedback": res.feedback,
        }
        rows.append({header: values[key] for key, header in columns.items()})
    return rows


def table_key(run_id: int | str, ids: Sequence[str]) -> str:
    """The table's widget key: a new table (and no stale row selection) whenever the filters change its rows."""
    digest = hashlib.sha256("\n".join(ids).encode()).hexdigest()[:12]
    return f"feedback.table.{run_id}.{digest}"


def case_label(case_id: str, score: float | None, broken: int) -> str:
    """A case in the picker: "TCK-1 · score 0.0 · 2 rules broken"."""
    if broken:
        return ngettext(
            "{case} · score {score} · {count} rule broken", "{case} · score {score} · {count} rules broken", broken
        ).format(case=case_id, score=fmt(score), count=broken)
    return _("{case} · score {score} · no rule broken").format(case=case_id, score=fmt(score))


def suggestions(flags: Sequence[Flag]) -> list[str]:
    """What the feedback should add, each said once: rules often wrap the same case-specific advice in
    their own words, so a suggestion contained in a longer one is dropped."""
    unique = list(dict.fromkeys(flag.suggestion for flag in flags))
    return [text for text in unique if not any(text != other and text in other for other in unique)]


def case_ids_text(case_ids: Sequence[str], limit: int = CASE_IDS_SHOWN) -> str:
    """Up to ``limit`` case ids, then "and N more"."""
    shown = ", ".join(case_ids[:limit])
    if len(case_ids) > limit:
        return _("{cases} and {count} more").format(cases=shown, count=len(case_ids) - limit)
    return shown


# --- thresholds --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ThresholdField:
    """One number field of the thresholds editor."""

    setting: str
    label: str
    help: str
    whole: bool
    top: float | None


def threshold_fields() -> list[ThresholdField]:
    """The thresholds editor's fields, in the rules' order, labelled in the current language."""
    defaults = Thresholds()
    return [
        ThresholdField(
            rule.setting,
            _("{rule}: {unit}").format(rule=rule.title, unit=rule.unit),
            rule.explanation,
            isinstance(getattr(defaults, rule.setting), int),
            1.0 if rule.setting in Thresholds.FRACTIONS else None,
        )
        for rule in rules(defaults)
    ]


def threshold_values(thresholds: Thresholds) -> dict[str, float]:
    """Every threshold by setting name (``Thresholds()`` gives the defaults a reset restores)."""
    return {item.name: getattr(thresholds, item.name) for item in fields(thresholds)}


def thresholds_from(values: Mapping[str, Any]) -> tuple[Thresholds | None, str]:
    """Thresholds from the fields' values, or ``None`` and why they are refused (in the current language)."""
    names = {field.setting: field.label for field in threshold_fields()}
    for setting, value in values.items():
        label = names.get(setting, setting)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value != value:
            return None, _("“{field}” must be a number.").format(field=label)
        if value < 0:
            return None, _("“{field}” cannot be negative; {value} was given.").format(field=label, value=value)
        if setting in Thresholds.FRACTIONS and value > 1:
            return None, _("“{field}” is a fraction between 0 and 1; {value} is outside it.").format(
                field=label, value=value
            )
    try:
        return Thresholds(**values), ""
    except (TypeError, ValueError) as exc:
        return None, str(exc)


# --- model review and export -------------------------------------------------------------------


def to_grade(result: Review, pairs: Sequence[Pair], limit: int = MAX_GRADED) -> tuple[list[Pair], bool]:
    """The flagged cases a model review grades (the first ``limit``), and whether some were left out."""
    flagged = set(result.flagged_ids)
    chosen = [(case, res) for case, res in pairs if case.id in flagged]
    return chosen[:limit], len(chosen) > limit


def grade_summary(grades: Mapping[str, Grade]) -> tuple[str, str]:
    """(what the grades say, what the failed calls say); either is empty when there is nothing to say."""
    graded = [grade.grade for grade in grades.values() if grade.grade is not None]
    failed = [grade for grade in grades.values() if grade.grade is None]
    said = ""
    if graded:
        said = ngettext(
            "Graded {count} feedback text: mean {mean} of 5. The grades are in the table and beside each case's rules.",
            "Graded {count} feedback texts: mean {mean} of 5. The grades are in the table and beside each case's "
            "rules.",
            len(graded),
        ).format(count=len(graded), mean=format_number(sum(graded) / len(graded), 1))
    problem = ""
    if failed:
        problem = ngettext(
            "{count} without a grade; the last said: {error}",
            "{count} without a grade; the last said: {error}",
            len(failed),
        ).format(count=len(failed), error=failed[-1].error)
    return said, problem


def export_stem(run_id: int | str) -> str:
    return f"feedback-review-run-{run_id}"


def export_note(with_grades: bool) -> str:
    if with_grades:
        return _(
            "Every case of the run with its input, output, expected value, score, feedback, the rules it broke "
            "(titles and ids), your mark and note, and the model's grade."
        )
    return _(
        "Every case of the run with its input, output, expected value, score, feedback, the rules it broke "
        "(titles and ids), and your mark and note."
    )
