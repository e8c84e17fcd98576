"""People's marks on feedback kept in SQLite (``feedback_marks``; the records are :mod:`skynet_core.feedback.marks`)."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

from ..feedback.marks import Mark, MarkValue
from .db import connect


class MarkStore:
    """People's marks on feedback, in a SQLite file at ``path``.

    One mark per (dataset name, metric hash, case id): marking again replaces it, so a
    changed metric (a new hash) starts unmarked and the old marks stay with the old
    version. Every call has a connection of its own while it runs, so several Streamlit
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
