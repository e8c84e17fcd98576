"""Two runs side by side: which pair Compare opens on, and the cases paired with their change."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import pandas as pd

from ...runs import RunKey, RunSummary, SavedRun
from ...runs.export import score_names
from ...runs.history import Comparison, compare_runs


def status_change(old: str, new: str) -> str:
    return "" if old == new else f"{old} → {new}"


def default_pair(summaries: Sequence[RunSummary]) -> tuple[int, int] | None:
    """The runs Compare opens on, as (A, B) ids: the two latest runs of one candidate on one dataset (the
    same split when there are such), so that they have every case in common; the two newest runs when no
    candidate has two; ``None`` with fewer than two runs. ``summaries`` are newest first (``RunStore.list``)."""
    if len(summaries) < 2:
        return None
    for same in (_same_cases, _same_candidate):
        for index, newer in enumerate(summaries):
            older = next((other for other in summaries[index + 1 :] if same(newer.key, other.key)), None)
            if older is not None:
                return older.id, newer.id
    return summaries[1].id, summaries[0].id


def _same_candidate(a: RunKey, b: RunKey) -> bool:
    return (a.dataset, a.candidate) == (b.dataset, b.candidate)


def _same_cases(a: RunKey, b: RunKey) -> bool:
    return _same_candidate(a, b) and a.split == b.split


def compare(old: SavedRun, new: SavedRun, *, by_id: bool = False) -> Comparison:
    """History's comparison of two runs (means, improved, worsened…) with :func:`compare_frame`'s table;
    ``by_id`` pairs the cases by id alone (two candidates' runs on the same cases)."""
    return dataclasses.replace(
        compare_runs(old.results, new.results, by_id=by_id), table=compare_frame(old, new, by_id=by_id)
    )


def compare_frame(old: SavedRun, new: SavedRun, *, by_id: bool = False) -> pd.DataFrame:
    """Cases of both runs paired by (candidate, id), or by id with ``by_id``: History's comparison table
    (``old_score``, ``new_score``, ``delta`` = B − A when both scored ok…) plus ``status_change``
    ("ok → error") and B's named scores as ``score.<name>`` (so the named-score filter reads run B)."""
    table = compare_runs(old.results, new.results, by_id=by_id).table
    table.insert(
        5, "status_change", [status_change(a, b) for a, b in zip(table["old_status"], table["new_status"], strict=True)]
    )
    after = {(result.candidate, result.id): result for result in new.results}
    for name in score_names(new.results):
        values = [
            after[(candidate, case)].scores.get(name)
            for candidate, case in zip(table["candidate"], table["id"], strict=True)
        ]
        table[f"score.{name}"] = pd.to_numeric(pd.Series(values, index=table.index, dtype=object), errors="coerce")
    first = ["id", "old_score", "new_score", "delta", "status_change", "old_status", "new_status"]
    return table[[*first, *(column for column in table.columns if column not in first)]]
