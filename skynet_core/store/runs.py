"""Scored runs kept in SQLite (``scored_runs``; the records are :mod:`skynet_core.runs.saved`).

The table lives in the studio's database file in the data directory (see :mod:`skynet_core.store`), beside the
drafts and versions. Like :class:`~skynet_core.store.Store`, a :class:`RunStore` has a connection of its own per call
(WAL mode, busy timeout), so the server's threads can share one. Only the newest
:data:`~skynet_core.runs.saved.KEEP_RUNS` runs of each dataset and candidate are kept.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from dataclasses import fields
from pathlib import Path
from typing import Any

import orjson

from ..cases import Case
from ..heap import built_frozen
from ..metric.source import MetricSource
from ..provenance import Provenance
from ..results import CaseResult
from ..runs.saved import KEEP_RUNS, RunKey, RunSummary, SavedRun, case_from_json, case_to_json, summarize
from .db import connect, open_database

PIECE = 10_000
"""A run's results and cases are encoded and read this many at a time: each piece is one short call that holds
the GIL (orjson over a run's 900,000 cases at once held it for 0.6 s, and reading such a run back for 5 s, the
server answering nothing, health checks included)."""
BETWEEN_PIECES = b",\n"
"""What joins the pieces of a kept array: orjson writes no raw newline, so this is found only between pieces, and
the whole is still one JSON array (a run kept before pieces is read as one piece)."""
DECODED_RESULTS = 1_000_000
"""The most results of runs this process holds read back (runs never change once kept): a page that shows the
newest run reads it once, not at every script run (900,000 results took 27 s to read)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS scored_runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    dataset TEXT NOT NULL,
    dataset_name TEXT NOT NULL,
    candidate TEXT NOT NULL,
    split TEXT,
    metric_hash TEXT NOT NULL,
    metric_source TEXT NOT NULL,
    created_at REAL NOT NULL,
    case_count INTEGER NOT NULL,
    results BLOB NOT NULL,
    provenance TEXT
);
CREATE INDEX IF NOT EXISTS scored_runs_newest ON scored_runs (dataset, candidate, created_at);
"""

_ADDED = {"provenance": "TEXT", "cases": "BLOB", "summary": "TEXT"}
_LISTED = (
    "SELECT id, dataset, candidate, split, metric_hash, dataset_name, created_at, case_count, summary, provenance, "
    "metric_source, cases IS NOT NULL FROM scored_runs ORDER BY created_at DESC, id DESC"
)
_RESULT_FIELDS = frozenset(item.name for item in fields(CaseResult)) | {"llm_calls"}  # the calls' trace


def _array(items: Sequence[Any], piece: Callable[[Sequence[Any]], bytes]) -> bytes:
    """``items`` as one JSON array of pieces (see :data:`BETWEEN_PIECES`), each ``piece(items)`` of at most
    :data:`PIECE` of them (their JSON, comma-joined, without brackets)."""
    parts = [b"["]
    for start in range(0, len(items), PIECE):
        if start:
            parts.append(BETWEEN_PIECES)
        parts.append(piece(items[start : start + PIECE]))
    parts.append(b"]")
    return b"".join(parts)


def _cases_piece(cases: Sequence[Case]) -> bytes:
    return orjson.dumps([case_to_json(case) for case in cases], option=orjson.OPT_NON_STR_KEYS)[1:-1]


BLOB_CHUNK = 4 << 20
"""How much of a kept array one call writes or reads (see :func:`_write`, :func:`_read`)."""


def _write(db: sqlite3.Connection, column: str, run_id: int, data: bytes) -> None:
    """``data`` into ``column`` of the run ``run_id``, made ``len(data)`` bytes long (``zeroblob``), a chunk at a
    time (SQLite's incremental blob I/O, which lets other threads run while it writes)."""
    view = memoryview(data)
    with db.blobopen("scored_runs", column, run_id) as blob:
        for start in range(0, len(view), BLOB_CHUNK):
            blob.write(view[start : start + BLOB_CHUNK])


def _read(db: sqlite3.Connection, column: str, run_id: int) -> bytes | bytearray | str:
    """``column`` of the run ``run_id``, read a chunk at a time; a value kept as text (by hand, or an old
    version) is read as it is."""
    try:
        blob = db.blobopen("scored_runs", column, run_id, readonly=True)
    except sqlite3.OperationalError:  # not a blob
        value = db.execute(f"SELECT {column} FROM scored_runs WHERE id = ?", (run_id,)).fetchone()[0]
        return value if isinstance(value, bytes | str) else b"[]"
    with blob:
        data = bytearray()
        while chunk := blob.read(BLOB_CHUNK):
            data += chunk
    return data


def _items(blob: bytes | bytearray | str) -> Iterator[Any]:
    """The items of a kept JSON array, read a piece at a time (a run kept before pieces: one piece)."""
    data = blob.encode("utf-8") if isinstance(blob, str) else blob
    start, end = 1, len(data) - 1  # inside the brackets
    while start < end:
        cut = data.find(BETWEEN_PIECES, start, end)
        stop = end if cut < 0 else cut
        yield from orjson.loads(b"[" + data[start:stop] + b"]")
        start = stop + len(BETWEEN_PIECES)


def _provenance(
    made_by: str | None, source: str, dataset: str, name: str, candidate: str, split: str | None
) -> Provenance:
    provenance = Provenance.from_json(orjson.loads(made_by)) if made_by else None
    if provenance is None:  # a run saved before provenance was kept: what its key and text tell
        metric = MetricSource.of(source).digest if source else ""
        provenance = Provenance(metric, dataset, name, candidate, split)
    return provenance


def _result(data: dict[str, Any]) -> CaseResult:
    # Keys a newer or older version wrote but CaseResult no longer has are dropped, not fatal.
    return CaseResult.from_json({name: value for name, value in data.items() if name in _RESULT_FIELDS})


class RunStore:
    """Scored runs in the studio's SQLite file in ``directory`` (the data directory when ``None``).

    Safe to share between threads; every method commits before returning.
    """

    def __init__(self, directory: str | Path | None = None) -> None:
        self.directory, self.path = open_database(directory, _SCHEMA)
        self._lock = threading.Lock()
        self._held: OrderedDict[int, SavedRun] = OrderedDict()  # runs read back, least recently read first
        with connect(self.path) as db:
            present = {row[1] for row in db.execute("PRAGMA table_info(scored_runs)")}
            for name, kind in _ADDED.items():
                if name not in present:
                    db.execute(f"ALTER TABLE scored_runs ADD COLUMN {name} {kind}")

    def _connect(self) -> AbstractContextManager[sqlite3.Connection]:
        return connect(self.path)

    def save(
        self,
        key: RunKey,
        results: Sequence[CaseResult],
        *,
        metric_source: str = "",
        provenance: Provenance | None = None,
        cases: Sequence[Case] | None = None,
    ) -> int:
        """Keep a finished run (and the ``cases`` it scored, when given) and return its id; the oldest runs
        beyond :data:`KEEP_RUNS` are dropped."""
        # Encoded straight from the dataclasses: a list of to_json() dicts first held the GIL for 40 s at 300,000
        # results (the server answered nothing meanwhile), each dict tracked by the garbage collector.
        blob = _array(results, lambda piece: b",".join(result.to_json_bytes(trace=True) for result in piece))
        made_by = orjson.dumps(provenance.to_json()).decode() if provenance is not None else None
        kept_cases = _array(cases, _cases_piece) if cases is not None else None
        summary = orjson.dumps(summarize(results)).decode()
        with self._connect() as db:
            cursor = db.execute(
                "INSERT INTO scored_runs (dataset, dataset_name, candidate, split, metric_hash, metric_source, "
                "created_at, case_count, results, provenance, cases, summary) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, zeroblob(?), ?, CASE WHEN ? THEN zeroblob(?) END, ?)",
                (
                    key.dataset,
                    key.dataset_name,
                    key.candidate,
                    key.split,
                    key.metric_hash,
                    metric_source,
                    time.time(),
                    len(results),
                    len(blob),
                    made_by,
                    kept_cases is not None,
                    len(kept_cases or b""),
                    summary,
                ),
            )
            run_id = int(cursor.lastrowid or 0)
            # Written into the space made for them a few megabytes at a time: binding them whole copied hundreds of
            # megabytes while holding the GIL.
            _write(db, "results", run_id, blob)
            if kept_cases is not None:
                _write(db, "cases", run_id, kept_cases)
            db.execute(
                "DELETE FROM scored_runs WHERE dataset = ? AND candidate = ? AND id NOT IN "
                "(SELECT id FROM scored_runs WHERE dataset = ? AND candidate = ? "
                "ORDER BY created_at DESC, id DESC LIMIT ?)",
                (key.dataset, key.candidate, key.dataset, key.candidate, KEEP_RUNS),
            )
        return run_id

    def latest(self, dataset: str, candidate: str | None = None) -> SavedRun | None:
        """The newest run of ``dataset`` (its source) and ``candidate`` (any candidate when ``None``), or ``None``."""
        query = "SELECT id FROM scored_runs WHERE dataset = ?"
        params: list[Any] = [dataset]
        if candidate is not None:
            query += " AND candidate = ?"
            params.append(candidate)
        with self._connect() as db:
            row = db.execute(query + " ORDER BY created_at DESC, id DESC LIMIT 1", params).fetchone()
        return None if row is None else self.get(int(row[0]))

    def get(self, run_id: int) -> SavedRun | None:
        """The run ``run_id`` with its results (and the cases it scored, when kept), or ``None``. Read back once
        while this process holds it (:data:`DECODED_RESULTS`): callers share it and must not change it."""
        with self._connect() as db:
            if db.execute("SELECT 1 FROM scored_runs WHERE id = ?", (run_id,)).fetchone() is None:
                return None
            with self._lock:
                held = self._held.get(run_id)
                if held is not None:
                    self._held.move_to_end(run_id)
                    return held
            row = db.execute(
                "SELECT id, dataset, candidate, split, metric_hash, dataset_name, created_at, metric_source, "
                "provenance, cases IS NOT NULL FROM scored_runs WHERE id = ?",
                (run_id,),
            ).fetchone()
            if row is None:
                return None
            run_id, dataset, candidate, split, hashed, name, created_at, source, made_by, has_cases = row
            blob, kept = _read(db, "results", run_id), _read(db, "cases", run_id) if has_cases else None
        with built_frozen():  # millions of objects: no collection scans them while they are built, nor after
            run = SavedRun(
                id=run_id,
                key=RunKey(dataset, candidate, split, hashed, name),
                created_at=created_at,
                results=[_result(item) for item in _items(blob)],
                metric_source=source,
                provenance=_provenance(made_by, source, dataset, name, candidate, split),
                cases=[case_from_json(item) for item in _items(kept)] if kept else None,
            )
        self._hold(run)
        return run

    def _hold(self, run: SavedRun) -> None:
        if len(run.results) > DECODED_RESULTS:
            return
        with self._lock:
            self._held[run.id] = run
            while sum(len(held.results) for held in self._held.values()) > DECODED_RESULTS:
                self._held.popitem(last=False)

    def list(self) -> list[RunSummary]:
        """Every saved run, newest first, without its results (a run saved before summaries were kept
        is read once to make its summary)."""
        with self._connect() as db:
            rows = db.execute(_LISTED).fetchall()
        found = []
        for run_id, dataset, candidate, split, hashed, name, created_at, count, summary, made_by, source, has in rows:
            if summary:
                made = orjson.loads(summary)
            else:
                run = self.get(run_id)
                made = summarize(run.results if run else [])
            found.append(
                RunSummary(
                    id=run_id,
                    key=RunKey(dataset, candidate, split, hashed, name),
                    created_at=created_at,
                    case_count=count,
                    mean=made.get("mean"),
                    statuses=dict(made.get("statuses") or {}),
                    score_names=tuple(made.get("score_names") or ()),
                    provenance=_provenance(made_by, source, dataset, name, candidate, split),
                    has_cases=bool(has),
                )
            )
        return found
