"""The review's table and one case: the columns, the rows, a case's label, its flags' suggestions."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from skynet_core.cases import Case
from skynet_core.i18n import _, ngettext
from skynet_core.results import CaseResult
from skynet_core.reward.lines import localized_feedback

from ...feedback.grading import Grade
from ...feedback.marks import Mark, MarkValue
from ...feedback.rules import Flag, Review
from ...feedback.text import Pair, _fmt

CASE_IDS_SHOWN = 8


def fmt(value: float | None) -> str:
    """A score for people: "1.0", "0.25", "0.333"; "–" when there is none."""
    return "–" if value is None else _fmt(value)


def pair_up(cases: Sequence[Case], results: Sequence[CaseResult]) -> tuple[list[Pair], int]:
    """The run's results paired with the dataset's cases by id, in run order, and how many results have no case."""
    by_id = {case.id: case for case in cases}
    pairs = [(by_id[result.id], result) for result in results if result.id in by_id]
    return pairs, len(results) - len(pairs)


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
            "feedback": localized_feedback(res.feedback),
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
