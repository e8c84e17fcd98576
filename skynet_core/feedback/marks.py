"""People's marks (useful / weak) kept in SQLite, and the export of a review as CSV or JSON Lines."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from enum import StrEnum
from pathlib import Path
from typing import Any

from skynet_core.runs.export import safe_csv_cell
from skynet_core.store import connect

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


class MarkStore:
    """People's marks on feedback, in a SQLite file at ``path``.

    One mark per (dataset name, metric hash, case id): marking again replaces it, so a
    changed metric (a new hash) starts unmarked and the old marks stay with the old
    version. Every call opens its own short-lived connection, so several Streamlit
    sessions (threads) can share one store; WAL mode lets readers run beside a writer and
    a busy timeout makes a rare clash wait instead of fail. ``path`` must be a file
    (``:memory:`` would not persist between calls); its folder is created if needed.
    """

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with connect(self.path) as conn:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(
                """CREATE TABLE IF NOT EXISTS feedback_marks (
                    dataset TEXT NOT NULL,
                    metric_hash TEXT NOT NULL,
                    case_id TEXT NOT NULL,
                    mark TEXT NOT NULL CHECK (mark IN ('useful', 'weak')),
                    note TEXT NOT NULL DEFAULT '',
                    marked_at TEXT NOT NULL,
                    PRIMARY KEY (dataset, metric_hash, case_id)
                )"""
            )

    def set_mark(self, dataset: str, metric_hash: str, case_id: str, value: MarkValue | str, note: str = "") -> Mark:
        """Mark a case's feedback ``useful`` or ``weak`` (replacing any earlier mark) and return the mark."""
        try:
            verdict = MarkValue(value)
        except ValueError:
            raise ValueError(f"A mark is 'useful' or 'weak', not {value!r}.") from None
        mark = Mark(case_id, verdict, note, datetime.now(UTC).isoformat(timespec="seconds"))
        with connect(self.path) as conn:
            conn.execute(
                """INSERT INTO feedback_marks (dataset, metric_hash, case_id, mark, note, marked_at)
                   VALUES (?, ?, ?, ?, ?, ?)
                   ON CONFLICT (dataset, metric_hash, case_id)
                   DO UPDATE SET mark = excluded.mark, note = excluded.note, marked_at = excluded.marked_at""",
                (dataset, metric_hash, case_id, verdict.value, note, mark.marked_at),
            )
        return mark

    def clear_mark(self, dataset: str, metric_hash: str, case_id: str) -> None:
        """Remove a case's mark; nothing happens when it has none."""
        with connect(self.path) as conn:
            conn.execute(
                "DELETE FROM feedback_marks WHERE dataset = ? AND metric_hash = ? AND case_id = ?",
                (dataset, metric_hash, case_id),
            )

    def marks_for(self, dataset: str, metric_hash: str) -> dict[str, Mark]:
        """Every mark for one dataset and metric version, by case id."""
        with connect(self.path) as conn:
            rows = conn.execute(
                "SELECT case_id, mark, note, marked_at FROM feedback_marks WHERE dataset = ? AND metric_hash = ?",
                (dataset, metric_hash),
            ).fetchall()
        return {case_id: Mark(case_id, MarkValue(value), note, marked_at) for case_id, value, note, marked_at in rows}


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
