"""One output column per candidate: a table such as an A/B export (``id, text, label, out_small, out_large,
latency_small_ms, latency_large_ms, cost_small_usd, cost_large_usd``) holds several candidates' answers
to the same cases side by side.

Such columns have the roles ``candidate_output``, ``candidate_latency_ms`` and ``candidate_cost_usd``,
whose field is the candidate's name. Each row then becomes one case per candidate: the same id, input,
expected and split, that candidate's output, and its own latency and cost (the shared ``observation``
columns where it has none). The rules (:func:`candidate_columns`):

- every per-candidate column names its candidate, and a candidate has one output column and at most
  one latency and one cost column;
- a latency or cost column's candidate has an output column (in a main file);
- per-candidate outputs replace the single output: no column has the ``output`` role then, and no
  ``candidate`` column names the candidate of each row;
- a candidate file holds one candidate's outputs, so at most one per-candidate output column: it is
  the output of the candidate the file was added as.

:func:`guess_candidate_columns` reads the roles from common names (``out_small``, ``latency_large_ms``,
``small_cost``; in a candidate file, the columns named for its own candidate:
:func:`guess_own_columns`), and :func:`candidate_warnings` flags candidates that are the same
answers twice.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import orjson

from skynet_core.i18n import _

from .model import Dataset, DatasetError, Role

PER_CANDIDATE_ROLES: dict[Role, str] = {
    Role.CANDIDATE_OUTPUT: "output",
    Role.CANDIDATE_LATENCY: "latency_ms",
    Role.CANDIDATE_COST: "cost_usd",
}
"""The per-candidate roles and what each column holds for its candidate."""

_SEP = r"[\s_\-]+"
_OUTPUT_WORDS = r"(?:out|output|outputs|response|prediction|completion|generation)"
_GUESSES: dict[Role, tuple[re.Pattern[str], ...]] = {
    Role.CANDIDATE_OUTPUT: (
        re.compile(rf"{_OUTPUT_WORDS}{_SEP}(?P<name>.+)", re.I),
        re.compile(rf"(?P<name>.+?){_SEP}{_OUTPUT_WORDS}", re.I),
    ),
    Role.CANDIDATE_LATENCY: (
        re.compile(rf"latency{_SEP}ms{_SEP}(?P<name>.+)", re.I),
        re.compile(rf"latency{_SEP}(?P<name>.+?)(?:{_SEP}ms)?", re.I),
        re.compile(rf"(?P<name>.+?){_SEP}latency(?:{_SEP}ms)?", re.I),
    ),
    Role.CANDIDATE_COST: (
        re.compile(rf"cost{_SEP}usd{_SEP}(?P<name>.+)", re.I),
        re.compile(rf"cost{_SEP}(?P<name>.+?)(?:{_SEP}usd)?", re.I),
        re.compile(rf"(?P<name>.+?){_SEP}cost(?:{_SEP}usd)?", re.I),
    ),
}


@dataclass(frozen=True)
class CandidateColumns:
    """One candidate's columns in a table with one output column per candidate (``None``: no such column)."""

    name: str
    output: str
    latency_ms: str | None = None
    cost_usd: str | None = None


def candidate_name_of(column: str, role: Role) -> str:
    """The candidate a per-candidate column's name says (``out_large`` → ``large``), else the column's name."""
    name = str(column).strip()
    for pattern in _GUESSES.get(role, ()):
        found = pattern.fullmatch(name)
        if found and found.group("name").strip(" _-"):
            return found.group("name").strip(" _-")
    return name


def guess_candidate_columns(columns: Sequence[str]) -> dict[str, tuple[Role, str]]:
    """The per-candidate roles common names suggest: two or more output columns such as ``out_small`` and
    ``out_large`` (one alone has nothing to be told apart from), then the latency and cost columns of
    those candidates (``latency_large_ms``, ``cost_large_usd``, ``small_cost``...). Empty when there are
    fewer than two."""
    outputs: dict[str, str] = {}
    for column in columns:
        name = _guess(column, Role.CANDIDATE_OUTPUT)
        if name is not None and name.lower() not in {known.lower() for known in outputs.values()}:
            outputs[str(column)] = name
    if len(outputs) < 2:
        return {}
    guessed: dict[str, tuple[Role, str]] = {column: (Role.CANDIDATE_OUTPUT, name) for column, name in outputs.items()}
    by_lower = {name.lower(): name for name in outputs.values()}
    for role in (Role.CANDIDATE_LATENCY, Role.CANDIDATE_COST):
        for column in columns:
            name = _guess(column, role)
            if str(column) not in guessed and name is not None and name.lower() in by_lower:
                guessed[str(column)] = (role, by_lower[name.lower()])
    return guessed


def guess_own_columns(columns: Sequence[str], candidate: str) -> dict[str, tuple[Role, str]]:
    """The per-candidate roles of a candidate file's columns named for its own candidate: added as ``large``, a
    file's ``out_large``, ``latency_large_ms`` and ``cost_large_usd`` are that candidate's output, latency and
    cost. Empty when no output column is so named."""
    wanted = candidate.strip().lower()
    guessed: dict[str, tuple[Role, str]] = {}
    for role in PER_CANDIDATE_ROLES:
        for column in columns:
            name = _guess(column, role)
            if str(column) not in guessed and name is not None and name.lower() == wanted:
                guessed[str(column)] = (role, candidate.strip())
                break
    return guessed if any(role is Role.CANDIDATE_OUTPUT for role, _name in guessed.values()) else {}


def _guess(column: str, role: Role) -> str | None:
    text = str(column).strip()
    if "." in text:
        return None  # a dot is the prefix convention (output.field): never a candidate's name
    for pattern in _GUESSES[role]:
        found = pattern.fullmatch(text)
        if found and found.group("name").strip(" _-"):
            return found.group("name").strip(" _-")
    return None


def shared_roles(roles: Mapping[str, tuple[Role, str]]) -> dict[str, tuple[Role, str]]:
    """``roles`` with the per-candidate columns ignored: the columns every candidate's case shares."""
    return {
        column: (Role.IGNORED, "") if role in PER_CANDIDATE_ROLES else (role, field)
        for column, (role, field) in roles.items()
    }


def candidate_columns(
    file: str, columns: Sequence[str], roles: Mapping[str, tuple[Role, str]], *, joined_to: str | None = None
) -> list[CandidateColumns]:
    """The per-candidate columns of a table, by candidate in the order of their output columns, checked
    against the rules in the module docstring ([] when no column has a per-candidate role). Raises
    :class:`DatasetError`.

    ``joined_to`` names the main file when ``file`` is a candidate file: every per-candidate column is then
    the file's own candidate's (named when the file was added, so the name is ``""``), and its output
    column is ``""`` when the plain ``output`` role holds it."""
    outputs: dict[str, str] = {}
    measured: dict[tuple[str, str], str] = {}
    for column in columns:
        role, name = roles[column]
        if role not in PER_CANDIDATE_ROLES:
            continue
        what = PER_CANDIDATE_ROLES[role]
        name = name.strip()
        if not name:
            raise DatasetError(
                _(
                    "{file}: column {column!r} is the {what} of a candidate but names none. Type the candidate's "
                    "name in its field (e.g. large)."
                ).format(file=file, column=column, what=what),
                column=column,
            )
        if joined_to is not None and role is Role.CANDIDATE_OUTPUT and outputs:
            raise DatasetError(
                _(
                    "{file}: columns {first!r} and {second!r} are the outputs of two candidates, but a candidate "
                    "file holds one candidate's outputs. Keep one of them, or use this file as the main file."
                ).format(file=file, first=outputs[""], second=column),
                column=column,
            )
        key = (name if joined_to is None else "", what)
        earlier = outputs.get(key[0]) if role is Role.CANDIDATE_OUTPUT else measured.get(key)
        if earlier is not None:
            raise DatasetError(
                _(
                    "{file}: columns {first!r} and {second!r} are both the {what} of candidate {name!r}. Give one "
                    "of them another candidate's name, or ignore it."
                ).format(file=file, first=earlier, second=column, what=what, name=name),
                column=column,
            )
        if role is Role.CANDIDATE_OUTPUT:
            outputs[key[0]] = column
        else:
            measured[key] = column
    if not outputs and not measured:
        return []
    _refuse_mixed(file, columns, roles, outputs, joined_to)
    if joined_to is not None:
        return [
            CandidateColumns("", outputs.get("", ""), measured.get(("", "latency_ms")), measured.get(("", "cost_usd")))
        ]
    orphan = next(((name, what) for name, what in measured if name not in outputs), None)
    if orphan is not None:
        raise DatasetError(
            _(
                "{file}: column {column!r} is the {what} of candidate {name!r}, but no column is its output. "
                "Give that candidate's output column the role “output of a candidate” with the same name."
            ).format(file=file, column=measured[orphan], what=orphan[1], name=orphan[0]),
            column=measured[orphan],
        )
    return [
        CandidateColumns(name, column, measured.get((name, "latency_ms")), measured.get((name, "cost_usd")))
        for name, column in outputs.items()
    ]


def _refuse_mixed(
    file: str,
    columns: Sequence[str],
    roles: Mapping[str, tuple[Role, str]],
    outputs: dict[str, str],
    joined_to: str | None,
) -> None:
    if not outputs:
        return
    first_name, first_column = next(iter(outputs.items()))
    whole = next((column for column in columns if roles[column][0] is Role.OUTPUT), None)
    if whole is not None:
        raise DatasetError(
            _(
                "{file}: column {column!r} is the output, and {other!r} the output of candidate {name!r}. Use one "
                "output column for a single candidate, or one per candidate, not both."
            ).format(file=file, column=whole, other=first_column, name=roles[first_column][1].strip()),
            column=whole,
        )
    named = next((column for column in columns if roles[column][0] is Role.CANDIDATE), None)
    if named is not None and joined_to is None:
        raise DatasetError(
            _(
                "{file}: column {column!r} names each row's candidate, and {other!r} is the output of candidate "
                "{name!r}. Use either a candidate column (one row per candidate) or one output column per "
                "candidate, and ignore the other."
            ).format(file=file, column=named, other=first_column, name=first_name),
            column=named,
        )


def candidate_warnings(data: Dataset) -> list[str]:
    """Warnings about candidates that answer every case identically: most often the same file added twice, or
    one column given to two candidates. Empty when every candidate differs (or there is one)."""
    if len(data.candidates) < 2:
        return []
    digests: dict[str, hashlib._Hash] = {name: hashlib.sha256() for name in data.candidates}
    ordered = sorted(data.cases, key=lambda case: case.id)
    for case in ordered:
        digest = digests.get(case.candidate)
        if digest is not None:
            digest.update(orjson.dumps([case.id, case.output], default=repr, option=orjson.OPT_NON_STR_KEYS))
    seen: dict[str, str] = {}
    warnings = []
    for name in data.candidates:
        key = digests[name].hexdigest()
        if key in seen:
            warnings.append(
                _(
                    "Candidates {first!r} and {second!r} have identical outputs on every case: was the same file "
                    "or column given to both? Scoring them cannot tell them apart."
                ).format(first=seen[key], second=name)
            )
        else:
            seen[key] = name
    return warnings
