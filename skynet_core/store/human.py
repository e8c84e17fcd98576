"""Human scores kept in the studio's SQLite file, beside the drafts, versions and runs (the records are
:class:`~skynet_core.human.HumanScore` and :class:`~skynet_core.human.LabelImport`), and each run's agreement with
them (:class:`RunAgreements`, ``run_agreements``).

One row per ``(label set, case id, candidate, rater)``: scoring a case again replaces that rater's score.
The label set (the ``dataset`` column) is the source of the data file labelled first; a later file that keeps
its case ids is linked to it (``human_dataset_links``, see ``Workspace.human.label_set``). An import is recorded
(``human_imports``: the file, what it kept and what it left out) and its rows carry its id, so one import's
labels can be deleted together. Nothing here depends on the metric's version, so editing metric.py keeps
every score; they survive a reload and a restart like the drafts. Like the other stores, every call has a
connection of its own (WAL mode, busy timeout), so the server's threads can share one store.

A database from before imports and links gains their table and column when it is opened; its scores keep
their label set (the path of the file they were made on), so nothing is lost.
"""

from __future__ import annotations

import time
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

import orjson

from ..human.human_score import HumanScore, LabelImport, human_values
from ..human.report import Agreement
from .db import connect, open_database

_SCHEMA = """
CREATE TABLE IF NOT EXISTS human_scores (
    dataset TEXT NOT NULL,
    case_id TEXT NOT NULL,
    candidate TEXT NOT NULL,
    rater TEXT NOT NULL,
    value REAL NOT NULL,
    note TEXT NOT NULL DEFAULT '',
    labelled_at REAL NOT NULL,
    import_id INTEGER,
    PRIMARY KEY (dataset, case_id, candidate, rater)
);
CREATE TABLE IF NOT EXISTS human_imports (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset TEXT NOT NULL,
    file TEXT NOT NULL,
    imported_at REAL NOT NULL,
    kept INTEGER NOT NULL,
    unknown_rows INTEGER NOT NULL,
    unknown_sample TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS human_dataset_links (
    source TEXT PRIMARY KEY,
    label_set TEXT NOT NULL,
    linked_at REAL NOT NULL
);
"""
# Made after the migration: an older human_scores table gains import_id first.
_INDEXES = "CREATE INDEX IF NOT EXISTS human_scores_by_import ON human_scores (import_id);"
_COLUMNS = "dataset, case_id, candidate, value, rater, note, labelled_at"
_ORDER = "ORDER BY labelled_at, case_id, candidate, rater"
_IDS_AT_ONCE = 200_000  # more case ids than this: every score of the set is read and filtered instead
_UPSERT = (
    f"INSERT INTO human_scores ({_COLUMNS}, import_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?) "
    "ON CONFLICT (dataset, case_id, candidate, rater) DO UPDATE SET value = excluded.value, "
    "note = excluded.note, labelled_at = excluded.labelled_at, import_id = excluded.import_id"
)


def _score(row: tuple[str, str, str, float, str, str, float]) -> HumanScore:
    return HumanScore(*row)


class HumanScores:
    """The human scores in the studio's database in ``directory`` (the data directory when ``None``).

    Safe to share between threads; every method commits before returning.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)
        with connect(self.path) as db:
            columns = {row[1] for row in db.execute("PRAGMA table_info(human_scores)")}
            if "import_id" not in columns:
                db.execute("ALTER TABLE human_scores ADD COLUMN import_id INTEGER")
            db.executescript(_INDEXES)

    def set(self, score: HumanScore) -> HumanScore:
        """Keep ``score``, replacing the same rater's earlier score of that case's output; a score without a
        time gets the current one. Returns what was kept."""
        return self.set_many([score])[0]

    def set_many(self, scores: Iterable[HumanScore]) -> list[HumanScore]:
        """Keep several scores in one transaction: all of them or, on an error, none."""
        kept = _timed(scores)
        with connect(self.path) as db:
            db.executemany(_UPSERT, _rows(kept, None))
        return kept

    def import_scores(self, scores: Iterable[HumanScore], record: LabelImport) -> LabelImport:
        """Keep an import's scores and its record in one transaction (all or none); the record with its id."""
        kept = _timed(scores)
        with connect(self.path) as db:
            cursor = db.execute(
                "INSERT INTO human_imports (dataset, file, imported_at, kept, unknown_rows, unknown_sample) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                (
                    record.dataset,
                    record.file,
                    record.imported_at or time.time(),
                    len(kept),
                    record.unknown_rows,
                    orjson.dumps(list(record.unknown_sample)).decode(),
                ),
            )
            import_id = int(cursor.lastrowid or 0)
            db.executemany(_UPSERT, _rows(kept, import_id))
        return replace(record, id=import_id, kept=len(kept), remaining=len(kept))

    def imports(self, dataset: str) -> list[LabelImport]:
        """The imports into label set ``dataset`` that still have scores stored, newest first."""
        with connect(self.path) as db:
            rows = db.execute(
                "SELECT i.id, i.dataset, i.file, i.imported_at, i.kept, i.unknown_rows, i.unknown_sample, "
                "COUNT(s.import_id) FROM human_imports i JOIN human_scores s ON s.import_id = i.id "
                "WHERE i.dataset = ? GROUP BY i.id ORDER BY i.imported_at DESC, i.id DESC",
                (dataset,),
            ).fetchall()
        return [
            LabelImport(row[0], row[1], row[2], row[3], row[4], row[5], tuple(orjson.loads(row[6])), row[7])
            for row in rows
        ]

    def delete_import(self, import_id: int) -> int:
        """Delete the scores an import kept that are still its own (and its record); how many were deleted."""
        with connect(self.path) as db:
            deleted = db.execute("DELETE FROM human_scores WHERE import_id = ?", (import_id,)).rowcount
            db.execute("DELETE FROM human_imports WHERE id = ?", (import_id,))
        return int(deleted)

    def delete_rater(self, dataset: str, rater: str) -> int:
        """Delete every score of ``rater`` in label set ``dataset``; how many were deleted."""
        with connect(self.path) as db:
            deleted = db.execute("DELETE FROM human_scores WHERE dataset = ? AND rater = ?", (dataset, rater)).rowcount
        return int(deleted)

    def assign_candidate(self, dataset: str, candidate: str) -> int:
        """Give the scores of label set ``dataset`` that name no candidate to ``candidate`` (a score the same rater
        already gave that candidate's output is kept as it is); how many were given."""
        with connect(self.path) as db:
            moved = db.execute(
                "UPDATE OR IGNORE human_scores SET candidate = ? WHERE dataset = ? AND candidate = ''",
                (candidate, dataset),
            ).rowcount
        return int(moved)

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
            rows = db.execute(query + " " + _ORDER, params).fetchall()
        return [_score(row) for row in rows]

    def scores_of_cases(self, dataset: str, ids: Collection[str]) -> tuple[list[HumanScore], int]:
        """The scores of ``dataset`` that name one of the case ids ``ids``, oldest first, and how many others it
        holds. Only those rows are read (a store that kept a million rows for other data, as one did before an
        import kept only the data's cases, stays quick to read)."""
        with connect(self.path) as db:
            total = int(db.execute("SELECT COUNT(*) FROM human_scores WHERE dataset = ?", (dataset,)).fetchone()[0])
            if total <= len(ids) or len(ids) > _IDS_AT_ONCE:
                rows = db.execute(f"SELECT {_COLUMNS} FROM human_scores WHERE dataset = ? {_ORDER}", (dataset,))
                found = [_score(row) for row in rows if row[1] in ids]
            else:
                db.execute("CREATE TEMP TABLE IF NOT EXISTS wanted_ids (id TEXT PRIMARY KEY)")
                db.execute("DELETE FROM wanted_ids")
                db.executemany("INSERT OR IGNORE INTO wanted_ids VALUES (?)", ((case_id,) for case_id in ids))
                rows = db.execute(
                    f"SELECT {_COLUMNS} FROM human_scores WHERE dataset = ? AND case_id IN (SELECT id FROM wanted_ids) "
                    + _ORDER,
                    (dataset,),
                )
                found = [_score(row) for row in rows]
        return found, total - len(found)

    def values(self, dataset: str, candidate: str, rater: str | None = None) -> dict[str, float]:
        """The human score of each case of ``candidate``'s outputs, by case id: one rater's, or the mean of
        every rater's when ``rater`` is ``None`` (see :func:`.human_values`)."""
        return human_values(self.scores(dataset, rater=rater), candidate, rater)

    def notes(self, dataset: str, candidate: str, rater: str | None = None) -> dict[str, str]:
        """The raters' notes on each case of ``candidate``'s outputs, by case id (several raters' joined by lines)."""
        found: dict[str, list[str]] = {}
        for score in self.scores(dataset, candidate, rater):
            if score.note:
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

    # The label sets: which one a data file's scores are kept in.

    def link(self, source: str) -> str | None:
        """The label set the data file ``source`` was linked to, or ``None``."""
        with connect(self.path) as db:
            row = db.execute("SELECT label_set FROM human_dataset_links WHERE source = ?", (source,)).fetchone()
        return str(row[0]) if row else None

    def set_link(self, source: str, label_set: str) -> None:
        """Keep the scores of the data file ``source`` in ``label_set`` from now on."""
        with connect(self.path) as db:
            db.execute(
                "INSERT INTO human_dataset_links (source, label_set, linked_at) VALUES (?, ?, ?) "
                "ON CONFLICT (source) DO UPDATE SET label_set = excluded.label_set, linked_at = excluded.linked_at",
                (source, label_set, time.time()),
            )

    def has_scores(self, dataset: str) -> bool:
        with connect(self.path) as db:
            return db.execute("SELECT 1 FROM human_scores WHERE dataset = ? LIMIT 1", (dataset,)).fetchone() is not None

    def last_row(self) -> int:
        """The newest score row's number: it grows whenever a case gains a score (to tell that nothing was added)."""
        with connect(self.path) as db:
            return int(db.execute("SELECT COALESCE(MAX(rowid), 0) FROM human_scores").fetchone()[0])

    def label_sets(self) -> dict[str, int]:
        """Every label set with scores, and how many scores it holds."""
        with connect(self.path) as db:
            rows = db.execute("SELECT dataset, COUNT(*) FROM human_scores GROUP BY dataset").fetchall()
        return {str(name): int(count) for name, count in rows}

    def case_ids(self, dataset: str) -> frozenset[str]:
        """The case ids label set ``dataset`` has scores of."""
        with connect(self.path) as db:
            rows = db.execute("SELECT DISTINCT case_id FROM human_scores WHERE dataset = ?", (dataset,)).fetchall()
        return frozenset(str(row[0]) for row in rows)


def _timed(scores: Iterable[HumanScore]) -> list[HumanScore]:
    now = time.time()
    return [score if score.labelled_at else replace(score, labelled_at=now) for score in scores]


def _rows(scores: Sequence[HumanScore], import_id: int | None) -> list[tuple[object, ...]]:
    return [
        (s.dataset, s.case_id, s.candidate, float(s.value), s.rater, s.note, s.labelled_at, import_id) for s in scores
    ]


_AGREEMENTS_SCHEMA = """
CREATE TABLE IF NOT EXISTS run_agreements (
    run_id INTEGER PRIMARY KEY,
    agreement TEXT NOT NULL,
    computed_at REAL NOT NULL
);
"""


class RunAgreements:
    """The agreement kept beside each scored run, in the studio's database in ``directory``."""

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _AGREEMENTS_SCHEMA)

    def save(self, run_id: int, agreement: Agreement) -> None:
        """Keep ``agreement`` as run ``run_id``'s (replacing an earlier one), and drop those of runs that are gone."""
        with connect(self.path) as db:
            db.execute(
                "INSERT INTO run_agreements (run_id, agreement, computed_at) VALUES (?, ?, ?) "
                "ON CONFLICT (run_id) DO UPDATE SET agreement = excluded.agreement, computed_at = excluded.computed_at",
                (run_id, orjson.dumps(agreement.to_record()).decode(), time.time()),
            )
            has_runs = db.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'scored_runs'"
            ).fetchone()
            if has_runs:
                db.execute("DELETE FROM run_agreements WHERE run_id NOT IN (SELECT id FROM scored_runs)")

    def get(self, run_id: int) -> Agreement | None:
        """Run ``run_id``'s agreement, or ``None`` when it has none (no human scores when it was scored)."""
        return self.of_runs([run_id]).get(run_id)

    def of_runs(self, run_ids: Iterable[int]) -> dict[int, Agreement]:
        """The agreement of each of ``run_ids`` that has one (for the list of runs: one query)."""
        wanted = list(dict.fromkeys(run_ids))
        if not wanted:
            return {}
        marks = ", ".join("?" * len(wanted))
        with connect(self.path) as db:
            rows = db.execute(
                f"SELECT run_id, agreement FROM run_agreements WHERE run_id IN ({marks})", wanted
            ).fetchall()
        return {int(run_id): Agreement.from_record(orjson.loads(text)) for run_id, text in rows}
