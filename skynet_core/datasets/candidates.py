"""More candidates in files of their own, joined to the main file's cases by id."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from skynet_core.cases import Case
from skynet_core.i18n import _

from .files import _describe, _file_label, read_table
from .frames import _check_roles, _final_roles, _frame_rows, _pair, _per_candidate_rows
from .model import Dataset, DatasetError, Role, _Row
from .per_candidate import candidate_columns, guess_own_columns, shared_roles
from .roles import infer_roles, roles_from_json, roles_to_json

if TYPE_CHECKING:
    pass


@dataclass(frozen=True)
class CandidateFile:
    """One more candidate's outputs, in a file of their own, joined to the main file's cases by id.

    The file needs an id column and an output column; its observations are this
    candidate's own. Input, expected and split columns may be left out (the main
    file's are used); when present they must agree with the main file for every id.
    Columns get roles like the main file's: ``roles`` here, then the main file's roles
    for columns of the same name, then the columns named for this candidate
    (``out_large``, ``latency_large_ms``, ``cost_large_usd`` in the file of ``large``),
    then :func:`infer_roles`' guess.
    """

    name: str
    path: str
    roles: dict[str, tuple[Role, str]] | None = None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "path": self.path, "roles": roles_to_json(self.roles) if self.roles else None}

    @classmethod
    def from_json(cls, value: Any) -> CandidateFile:
        if not isinstance(value, dict) or not isinstance(value.get("path"), str):
            raise DatasetError(
                _('A candidate file is written as {{"name": ..., "path": ...}}, not {value}.').format(
                    value=_describe(value)
                )
            )
        roles = value.get("roles")
        return cls(
            name=str(value.get("name") or ""),
            path=value["path"],
            roles=roles_from_json(roles, _("the roles of {path}").format(path=value["path"])) if roles else None,
        )


def join_candidates(
    base: Dataset,
    files: Sequence[CandidateFile],
    *,
    roles: dict[str, tuple[Role, str]] | None = None,
    main_candidate: str | None = None,
) -> Dataset:
    """``base`` with each file's candidate added, its cases lined up with ``base``'s by id.

    When ``base`` has no candidate column its cases become candidate
    ``main_candidate`` (default: its file name without the extension). Every
    file must have exactly the ids of ``base``'s first candidate, each once, and
    every candidate name must be new; the added cases take their input, expected
    and split from ``base``. ``roles`` are the main file's (see :class:`CandidateFile`).
    Raises :class:`DatasetError` naming the file, the row and the id.
    """
    if not files:
        return base
    main_file = _file_label(base.source)
    cases = list(base.cases)
    candidates = list(base.candidates)
    if candidates == [""]:
        main = (main_candidate or "").strip() or Path(base.source).stem or "main"
        cases = [replace(case, candidate=main) for case in cases]
        candidates = [main]
    reference = {case.id: case for case in cases if case.candidate == candidates[0]}
    for extra in files:
        name = extra.name.strip()
        file = _file_label(extra.path)
        if not name:
            raise DatasetError(_("{file}: name the candidate whose outputs this file holds.").format(file=file))
        if name in candidates:
            raise DatasetError(
                _("{file}: the candidate name {name!r} is already used. Give each candidate its own name.").format(
                    file=file, name=name
                )
            )
        cases.extend(_candidate_cases(extra, name, reference, roles, main_file))
        candidates.append(name)
    return Dataset(
        name=base.name,
        cases=cases,
        candidates=candidates,
        source=base.source,
        splits_from_column=base.splits_from_column,
        warnings=base.warnings,
    )


def candidate_file_roles(
    columns: list[str], name: str, main_roles: Mapping[str, tuple[Role, str]] | None = None
) -> dict[str, tuple[Role, str]]:
    """Every column's role in the file of candidate ``name`` before the file's own ``roles`` (see
    :class:`CandidateFile`): the main file's roles (``main_roles``, those set by hand) for columns of the same
    name, then the columns named for this candidate, then :func:`infer_roles`' guess. Where the Data page's
    role editor of a candidate file starts, and what loading gives the columns the file's roles leave out."""
    inherited = {column: role for column, role in (main_roles or {}).items() if column in columns}
    return {**infer_roles(columns), **_own_columns(columns, name), **inherited}


def _own_columns(columns: list[str], name: str) -> dict[str, tuple[Role, str]]:
    """The columns of a candidate file named for its candidate (``out_large`` in the file of ``large``), when
    no column is the output by its name already."""
    if any(role is Role.OUTPUT for role, _field in infer_roles(columns).values()):
        return {}
    return guess_own_columns(columns, name)


def _candidate_cases(
    extra: CandidateFile,
    name: str,
    reference: dict[str, Case],
    main_roles: dict[str, tuple[Role, str]] | None,
    main_file: str,
) -> list[Case]:
    file = _file_label(extra.path)
    frame = read_table(extra.path)
    columns = list(frame.columns)
    final = _final_roles(file, columns, {**candidate_file_roles(columns, name, main_roles), **(extra.roles or {})})
    _check_roles(file, columns, final, joined_to=main_file)
    has = {role for role, _ in final.values()}
    rows, unit = _frame_rows(frame, shared_roles(final), extra.path)
    rows = _per_candidate_rows(
        frame, rows, candidate_columns(file, columns, final, joined_to=main_file), extra.path, unit
    )

    seen: dict[str, _Row] = {}
    for row in rows:
        if row.id is None:
            raise DatasetError(
                _("{where} has no id. Every row of a candidate file needs the id of the case it answers.").format(
                    where=row.where
                ),
                line=row.number,
            )
        if row.id in seen:
            raise DatasetError(
                _("{file}: id {id!r} appears twice ({where}). A candidate file has one row per case.").format(
                    file=file, id=row.id, where=_pair(unit, seen[row.id].number, row.number)
                ),
                line=row.number,
            )
        if row.id not in reference:
            raise DatasetError(
                _(
                    "{where}: id {id!r} is not a case of {main}. Every candidate needs the same case ids: "
                    "remove the row, or check that this file's ids are the ones {main} uses."
                ).format(where=row.where, id=row.id, main=main_file),
                line=row.number,
            )
        seen[row.id] = row
    missing = next((case_id for case_id in reference if case_id not in seen), None)
    if missing is not None:
        raise DatasetError(
            _(
                "{file} has no row for case {id!r} of {main} (candidate {name!r}: {seen} of "
                "{total} cases). Every candidate needs the same case ids: add the missing cases."
            ).format(file=file, id=missing, main=main_file, name=name, seen=len(seen), total=len(reference))
        )

    cases = []
    for row in rows:
        ref = reference[row.id or ""]
        for part, role in (("input", Role.INPUT), ("expected", Role.EXPECTED)):
            if role in has and getattr(row, part) != getattr(ref, part):
                raise DatasetError(
                    _(
                        "{where}: case {id!r} has a different {part} than in {main}. The candidates must "
                        "answer the same cases: check that the ids match the right rows."
                    ).format(where=row.where, id=ref.id, part=part, main=main_file),
                    line=row.number,
                )
        if Role.SPLIT in has and row.split != ref.split:
            raise DatasetError(
                _(
                    "{where}: case {id!r} is in split {split!r} here but {reference_split!r} in {main}. Give "
                    "each case one split, or drop the split column from the candidate file."
                ).format(where=row.where, id=ref.id, split=row.split, reference_split=ref.split, main=main_file),
                line=row.number,
            )
        cases.append(replace(ref, output=row.output, observation=row.observation, candidate=name, human=row.human))
    return cases
