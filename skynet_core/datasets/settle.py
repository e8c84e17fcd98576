"""From the rows of a file to a Dataset: ids settled, candidates lined up case by case, splits from a column or
the planner."""

from __future__ import annotations

from skynet_core.cases import Case
from skynet_core.i18n import _

from .model import Dataset, DatasetError, _Row
from .splits import assign_splits
from .twins import nfc_twins, warning_of


def _at(unit: str, number: int) -> str:
    """Where in the file a line or row is, for messages: "line 3" / "row 3"."""
    return (_("line {number}") if unit == "line" else _("row {number}")).format(number=number)


def _pair(unit: str, first: int, second: int) -> str:
    """Two lines or rows, for messages: "lines 1 and 3" / "rows 1 and 3"."""
    return (_("lines {first} and {second}") if unit == "line" else _("rows {first} and {second}")).format(
        first=first, second=second
    )


def _dataset(rows: list[_Row], *, name: str, source: str, file: str, unit: str) -> Dataset:
    """Settle ids, candidates and splits, checking that candidates line up."""
    with_candidate = [row for row in rows if row.candidate is not None]
    if with_candidate and len(with_candidate) < len(rows):
        row = next(row for row in rows if row.candidate is None)
        raise DatasetError(
            (
                _("{where} has no candidate, but other lines do. Give every line a candidate, or none.")
                if unit == "line"
                else _("{where} has no candidate, but other rows do. Give every row a candidate, or none.")
            ).format(where=row.where),
            line=row.number,
        )
    ids, first_seen = _case_ids(rows, file=file, unit=unit, numbered_per_candidate=bool(with_candidate))
    candidates = list(dict.fromkeys(row.candidate or "" for row in rows))
    reference = candidates[0]
    reference_rows = {case_id: row for (candidate, case_id), row in first_seen.items() if candidate == reference}
    _check_candidates_agree(candidates, first_seen, reference_rows, file=file, unit=unit)
    splits, from_column = _splits(rows, ids, reference_rows, file=file, unit=unit)

    cases = [
        Case(
            id=case_id,
            input=row.input,
            output=row.output,
            expected=row.expected,
            split=splits[case_id],
            observation=row.observation,
            candidate=row.candidate or "",
            human=row.human,
        )
        for row, case_id in zip(rows, ids, strict=True)
    ]
    twins = nfc_twins(((case_id, row.number) for case_id, row in reference_rows.items()), lambda n: _at(unit, n))
    return Dataset(
        name=name,
        cases=cases,
        candidates=candidates,
        source=source,
        splits_from_column=from_column,
        warnings=warning_of(file, twins),
    )


def _case_ids(
    rows: list[_Row], *, file: str, unit: str, numbered_per_candidate: bool
) -> tuple[list[str], dict[tuple[str, str], _Row]]:
    """Each row's case id (its id column, else its place in the file, counted per candidate when rows have
    candidates), and the first row of each (candidate, id); refuses an id given twice, or a number that
    clashes with a given id."""
    positions: dict[str, int] = {}
    first_seen: dict[tuple[str, str], _Row] = {}
    ids: list[str] = []
    for row in rows:
        candidate = row.candidate or ""
        positions[candidate] = positions.get(candidate, 0) + 1
        case_id = row.id or str(positions[candidate] if numbered_per_candidate else row.number)
        earlier = first_seen.get((candidate, case_id))
        if earlier is not None and (row.id is None or earlier.id is None):
            unnamed, named = (row, earlier) if row.id is None else (earlier, row)
            raise DatasetError(
                _(
                    "{file}: {missing} has no id, so it is numbered {id!r} by its place in the file, but {given} "
                    "gives {id!r} as its id. Give every case an id, or none."
                ).format(file=file, missing=_at(unit, unnamed.number), id=case_id, given=_at(unit, named.number)),
                line=unnamed.number,
            )
        if earlier is not None:
            where = _pair(unit, earlier.number, row.number)
            raise DatasetError(
                (
                    _(
                        "{file}: id {id!r} appears twice for candidate {candidate!r} ({where}). "
                        "Give every case its own id."
                    )
                    if candidate
                    else _("{file}: id {id!r} appears twice ({where}). Give every case its own id.")
                ).format(file=file, id=case_id, candidate=candidate, where=where),
                line=row.number,
            )
        first_seen[candidate, case_id] = row
        ids.append(case_id)

    return ids, first_seen


def _check_candidates_agree(
    candidates: list[str],
    first_seen: dict[tuple[str, str], _Row],
    reference_rows: dict[str, _Row],
    *,
    file: str,
    unit: str,
) -> None:
    """Every candidate has the first candidate's case ids, with the same input and expected value."""
    reference = candidates[0]
    for candidate in candidates[1:]:
        own = {case_id: row for (name_, case_id), row in first_seen.items() if name_ == candidate}
        missing = next((case_id for case_id in reference_rows if case_id not in own), None)
        extra = next((case_id for case_id in own if case_id not in reference_rows), None)
        if missing is not None or extra is not None:
            lacking, having = (candidate, reference) if missing is not None else (reference, candidate)
            odd_id = missing if missing is not None else extra
            assert odd_id is not None
            found = (reference_rows if missing is not None else own)[odd_id]
            raise DatasetError(
                _(
                    "{file}: candidate {lacking!r} has no case with id {id!r}, which candidate {having!r} has "
                    "({where}). Every candidate needs the same case ids: add the missing case, or give "
                    "the cases an id column so they line up by id rather than by order."
                ).format(file=file, lacking=lacking, id=odd_id, having=having, where=_at(unit, found.number)),
                line=found.number,
            )
        for case_id, row in own.items():
            ref = reference_rows[case_id]
            for part in ("input", "expected"):
                if getattr(row, part) != getattr(ref, part):
                    raise DatasetError(
                        _(
                            "{file}: case {id!r} has a different {part} for candidate {candidate!r} ({where}) than "
                            "for {reference!r} ({reference_where}). The candidates must answer the "
                            "same cases: check that ids match the right rows."
                        ).format(
                            file=file,
                            id=case_id,
                            part=part,
                            candidate=candidate,
                            where=_at(unit, row.number),
                            reference=reference,
                            reference_where=_at(unit, ref.number),
                        ),
                        line=row.number,
                    )


def _splits(
    rows: list[_Row], ids: list[str], reference_rows: dict[str, _Row], *, file: str, unit: str
) -> tuple[dict[str, str], bool]:
    """Each case id's split, and whether they come from a split column (else the planner assigns them)."""
    if not any(row.split is not None for row in rows):
        return assign_splits(list(reference_rows)), False
    without = next((row for row in rows if row.split is None), None)
    if without is not None:
        raise DatasetError(
            (
                _(
                    "{where} has no split, but other lines do. Give every line a split (train, val or "
                    "test), or remove all splits to let the planner assign them."
                )
                if unit == "line"
                else _(
                    "{where} has no split, but other rows do. Give every row a split (train, val or "
                    "test), or remove all splits to let the planner assign them."
                )
            ).format(where=without.where),
            line=without.number,
        )
    for row, case_id in zip(rows, ids, strict=True):
        ref = reference_rows[case_id]
        if row.split != ref.split:
            raise DatasetError(
                _(
                    "{file}: case {id!r} is in split {split!r} at {where} but {reference_split!r} at "
                    "{reference_where}. Give each case id one split for all candidates."
                ).format(
                    file=file,
                    id=case_id,
                    split=row.split,
                    where=_at(unit, row.number),
                    reference_split=ref.split,
                    reference_where=_at(unit, ref.number),
                ),
                line=row.number,
            )
    return {case_id: row.split or "" for row, case_id in zip(rows, ids, strict=True)}, True
