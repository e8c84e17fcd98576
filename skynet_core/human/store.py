"""Human scores kept in the studio's SQLite file, beside the drafts, versions and runs.

One row per ``(dataset, case id, candidate, rater)``: scoring a case again replaces that rater's
score. Nothing here depends on the metric's version, so editing metric.py keeps every score; they
survive a reload and a restart like the drafts. Like the other stores, every call opens its own
short connection (WAL mode, busy timeout), so the server's threads can share one store.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import replace
from pathlib import Path

from skynet_core.store import connect, open_database

from .human_score import HumanScore, human_values

_SCHEMA = """
CREATE TABLE IF NOT EXISTS human_scores (
    dataset TEXT NOT NULL,
    case_id TEXT NOT NULL,
    candidate TEXT NOT NULL,
    rater TEXT NOT NULL,
    value REAL NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    labelled_at REAL NOT NULL,
    PRIMARY KEY (dataset, case_id, candidate, rater)
);
"""
_COLUMNS = "dataset, case_id, candidate, value, rater, note, labelled_at"


def _score(row: tuple[str, str, str, float, str, str, float]) -> HumanScore:
    return HumanScore(*row)


class HumanScores:
    """The human scores in the studio's database in ``directory`` (the data directory when ``None``).

    Safe to share between threads; every method commits before returning.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)

    def set(self, score: HumanScore) -> HumanScore:
        """Keep ``score``, replacing the same rater's earlier score of that case's output; a score without a
        time gets the current one. Returns what was kept."""
        return self.set_many([score])[0]

    def set_many(self, scores: Iterable[HumanScore]) -> list[HumanScore]:
        """Keep several scores in one transaction (an import): all of them or, on an error, none."""
        now = time.time()
        kept = [score if score.labelled_at else replace(score, labelled_at=now) for score in scores]
        with connect(self.path) as db:
            db.executemany(
                f"INSERT INTO human_scores ({_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT (dataset, case_id, candidate, rater) DO UPDATE SET value = excluded.value, "
                "note = excluded.note, labelled_at = excluded.labelled_at",
                [(s.dataset, s.case_id, s.candidate, float(s.value), s.rater, s.note, s.labelled_at) for s in kept],
            )
        return kept

    def clear(self, dataset: str, case_id: str, candidate: str, rater: str) -> None:
        """Remove one rater's score of one case's output; nothing happens when there is none."""
        with connect(self.path) as db:
            db.execute(
                "DELETE FROM human_scores WHERE dataset = ? AND case_id = ? AND candidate = ? AND rater = ?",
                (dataset, case_id, candidate, rater),
            )

    def scores(self, dataset: str, candidate: str | None = None, rater: str | None = None) -> list[HumanScore]:
        """The scores of ``dataset`` (of one candidate's outputs and one rater when given), oldest first."""
        query = f"SELECT {_COLUMNS} FROM human_scores WHERE dataset = ?"
        params: list[str] = [dataset]
        if candidate is not None:
            query += " AND candidate = ?"
            params.append(candidate)
        if rater is not None:
            query += " AND rater = ?"
            params.append(rater)
        with connect(self.path) as db:
            rows = db.execute(query + " ORDER BY labelled_at, case_id, candidate, rater", params).fetchall()
        return [_score(row) for row in rows]

    def values(self, dataset: str, candidate: str, rater: str | None = None) -> dict[str, float]:
        """The human score of each case of ``candidate``'s outputs, by case id: one rater's, or the mean of
        every rater's when ``rater`` is ``None`` (see :func:`.human_values`)."""
        return human_values(self.scores(dataset, rater=rater), candidate, rater)

    def notes(self, dataset: str, candidate: str, rater: str | None = None) -> dict[str, str]:
        """The raters' notes on each case of ``candidate``'s outputs, by case id (several raters' joined by lines)."""
        found: dict[str, list[str]] = {}
        for score in self.scores(dataset, rater=rater):
            if score.note and score.candidate in (candidate, ""):
                found.setdefault(score.case_id, []).append(score.note)
        return {case_id: "\n".join(notes) for case_id, notes in found.items()}

    def raters(self, dataset: str) -> list[str]:
        """Who scored cases of ``dataset``, most scores first."""
        with connect(self.path) as db:
            rows = db.execute(
                "SELECT rater FROM human_scores WHERE dataset = ? GROUP BY rater ORDER BY COUNT(*) DESC, rater",
                (dataset,),
            ).fetchall()
        return [row[0] for row in rows]
