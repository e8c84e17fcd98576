"""People's marks (useful / weak) as records (kept by :class:`skynet_core.store.marks.MarkStore`), and the export of
a review as CSV or JSON Lines."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from skynet_core.runs.export import safe_csv_cell

from .grading import Grade
from .rules import Review
from .text import Pair


class MarkValue(StrEnum):
    """A person's verdict on one case's feedback."""

    USEFUL = "useful"
    WEAK = "weak"


@dataclass(frozen=True)
class Mark:
    """A mark on one case's feedback; ``marked_at`` is an ISO 8601 UTC timestamp."""

    case_id: str
    value: MarkValue
    note: str
    marked_at: str


def export_rows(
    pairs: Sequence[Pair], review: Review, marks: Mapping[str, Mark], grades: Mapping[str, Grade] | None = None
) -> list[dict[str, Any]]:
    """One flat row per case, in run order, for CSV or JSON Lines export.

    Keys: ``id``, ``split``, ``status``, ``input``, ``output``, ``expected`` (the case's values as
    they are: JSON values), ``score`` (``None`` unless ``ok``), ``scores`` (named scores),
    ``feedback``, ``error``, ``rules_broken`` (the broken rules' titles as people see them, in the
    current language, joined by "; "), ``rule_ids`` (their stable machine ids, joined by ", "; both
    empty when none or not judged), ``mark`` (``useful``, ``weak`` or empty) and ``mark_note``;
    with ``grades`` (a model review, by case id) also ``model_grade`` (1 to 5, or ``None``) and
    ``model_reason`` (the reason, or why there is no grade). :func:`rows_csv` writes structured
    values as JSON text; :func:`rows_jsonl` keeps them as JSON.
    """
    broken = review.rules_broken
    titles = {rule.name: rule.title for rule in review.rules}
    rows = []
    for case, result in pairs:
        mark = marks.get(case.id)
        names = broken.get(case.id, [])
        row: dict[str, Any] = {
            "id": case.id,
            "split": case.split,
            "status": result.status.value,
            "input": case.input,
            "output": case.output,
            "expected": case.expected,
            "score": result.score if result.ok else None,
            "scores": dict(result.scores),
            "feedback": result.feedback,
            "error": result.error,
            "rules_broken": "; ".join(titles.get(name, name) for name in names),
            "rule_ids": ", ".join(names),
            "mark": mark.value.value if mark else "",
            "mark_note": mark.note if mark else "",
        }
        if grades is not None:
            grade = grades.get(case.id)
            row["model_grade"] = grade.grade if grade else None
            row["model_reason"] = (grade.reason or grade.error) if grade else ""
        rows.append(row)
    return rows


def _csv_cell(value: Any) -> Any:
    """A CSV cell: empty for ``None``, JSON text for a list or dict, formula-neutralised text."""
    if value is None:
        return ""
    if isinstance(value, (Mapping, list, tuple)):
        value = json.dumps(value, ensure_ascii=False, default=str)
    return safe_csv_cell(value)


def rows_csv(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """Rows as UTF-8 CSV with a header from the first row's keys; ``None`` is an empty cell, a list or
    dict its JSON text, and a text that starts like a formula is neutralised (``safe_csv_cell``)."""
    if not rows:
        return b""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(rows[0]), lineterminator="\n")
    writer.writeheader()
    writer.writerows({key: _csv_cell(value) for key, value in row.items()} for row in rows)
    return buffer.getvalue().encode("utf-8")


def rows_jsonl(rows: Sequence[Mapping[str, Any]]) -> bytes:
    """Rows as UTF-8 JSON Lines, one object a line."""
    return "".join(json.dumps(row, ensure_ascii=False, default=str) + "\n" for row in rows).encode("utf-8")
