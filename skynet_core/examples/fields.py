"""Which fields a metric reads, whether the data in use has them, and a mapping to the data's own fields.

An example metric written for the support tickets reads ``input['subject']``, ``input['message']`` and
``expected['label']``; loaded onto other data it fails on every case with ``KeyError: 'label'``.
:func:`fields_read` finds the keys ``score`` reads of its input and expected parameters (subscripts and
``.get`` with a literal key, by the parameters' own names), :func:`fit_fields` checks them against the
cases in use and proposes, for each missing one, a field of the data nobody reads yet (a known synonym
first: ``label`` ↔ ``sentiment``, ``message`` ↔ ``text``; then a close spelling), and
:func:`apply_field_mapping` rewrites the metric's keys to the chosen ones, leaving everything else as
written.
"""

from __future__ import annotations

import ast
import difflib
import functools
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from skynet_core.cases import Case
from skynet_core.i18n import _
from skynet_core.metric.pysource import parse

PARTS = ("input", "expected")
SAMPLED_CASES = 200
"""The cases whose fields :func:`fit_fields` reads (the fields of a dataset are those of its first cases)."""

# Names that often mean the same thing in evaluation sets: a missing field is mapped to one of its group first.
SYNONYMS: tuple[frozenset[str], ...] = (
    frozenset({"label", "sentiment", "category", "class", "gold", "answer", "target", "intent", "topic", "verdict"}),
    frozenset({"message", "text", "body", "content", "review", "comment", "prompt", "question", "query", "ticket"}),
    frozenset({"subject", "title", "headline", "summary"}),
    frozenset({"fields", "keys", "required"}),
)

FieldMapping = dict[tuple[str, str], str | None]


@dataclass(frozen=True)
class FieldNeeds:
    """The keys a metric reads of its ``input`` and of its ``expected`` value, in the order they appear."""

    input: tuple[str, ...] = ()
    expected: tuple[str, ...] = ()

    def of(self, part: str) -> tuple[str, ...]:
        return self.input if part == "input" else self.expected


@dataclass(frozen=True)
class FieldFit:
    """How a metric's fields fit the cases in use. ``missing`` maps ``"input"`` / ``"expected"`` to the keys the
    cases lack; ``mapping`` maps each missing ``(part, key)`` to the data's field proposed instead (``None``:
    nothing fits); ``present`` the data's fields by part; ``message`` says it for people (``""`` when it fits)."""

    missing: dict[str, tuple[str, ...]] = field(default_factory=dict)
    mapping: FieldMapping = field(default_factory=dict)
    present: dict[str, tuple[str, ...]] = field(default_factory=dict)
    message: str = ""

    @property
    def ok(self) -> bool:
        return not self.missing


def _score_params(tree: ast.Module) -> tuple[ast.FunctionDef | None, dict[str, str]]:
    """``score`` and its parameters' names → ``"input"`` / ``"expected"`` (the first and third parameters)."""
    func = next((node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "score"), None)
    if func is None:
        return None, {}
    names = [arg.arg for arg in [*func.args.posonlyargs, *func.args.args]]
    roles = {}
    if names:
        roles[names[0]] = "input"
    if len(names) >= 3:
        roles[names[2]] = "expected"
    return func, roles


def _reads(source: str) -> Iterator[tuple[str, str, ast.Constant]]:
    """Every ``(part, key, key's node)`` score reads with a literal key, in source order."""
    try:
        tree = parse(source)
    except SyntaxError:
        return
    func, params = _score_params(tree)
    if func is None:
        return
    found: list[tuple[str, str, ast.Constant]] = []
    for node in ast.walk(func):
        target: ast.expr | None = None
        key: ast.expr | None = None
        if isinstance(node, ast.Subscript):
            target, key = node.value, node.slice
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "get"
            and node.args
        ):
            target, key = node.func.value, node.args[0]
        if (
            isinstance(target, ast.Name)
            and target.id in params
            and isinstance(key, ast.Constant)
            and isinstance(key.value, str)
        ):
            found.append((params[target.id], key.value, key))
    yield from sorted(found, key=lambda item: (item[2].lineno, item[2].col_offset))


def fields_read(source: str) -> FieldNeeds:
    """The keys metric.py's ``score`` reads of its input and expected parameters (none when it cannot parse)."""
    keys: dict[str, dict[str, None]] = {part: {} for part in PARTS}
    for part, key, _node in _reads(source):
        keys[part].setdefault(key, None)
    return FieldNeeds(tuple(keys["input"]), tuple(keys["expected"]))


@functools.cache
def file_fields(path: str) -> FieldNeeds:
    """The fields the metric file at ``path`` reads, read from its code once per process."""
    with open(path, encoding="utf-8") as handle:
        return fields_read(handle.read())


def data_fields(cases: Sequence[Case]) -> dict[str, tuple[str, ...]]:
    """The input and expected fields of the cases (their first :data:`SAMPLED_CASES`), in order of appearance."""
    found: dict[str, dict[str, None]] = {part: {} for part in PARTS}
    for case in cases[:SAMPLED_CASES]:
        for part, value in (("input", case.input), ("expected", case.expected)):
            if isinstance(value, Mapping):
                for key in value:
                    found[part].setdefault(str(key), None)
    return {part: tuple(keys) for part, keys in found.items()}


def _propose(missing: Sequence[str], spare: list[str]) -> dict[str, str | None]:
    """A spare data field for each missing key: a synonym first, then a close spelling; each used once."""
    chosen: dict[str, str | None] = dict.fromkeys(missing)
    free = list(spare)
    for key in missing:
        group = next((names for names in SYNONYMS if key.lower() in names), frozenset())
        match = next((name for name in free if name.lower() in group), None)
        if match is not None:
            chosen[key] = match
            free.remove(match)
    for key in missing:
        if chosen[key] is None:
            close = difflib.get_close_matches(key, free, n=1, cutoff=0.6)
            if close:
                chosen[key] = close[0]
                free.remove(close[0])
    return chosen


def fit_fields(needs: FieldNeeds, cases: Sequence[Case]) -> FieldFit:
    """Check ``needs`` against the cases in use and propose a mapping for what is missing."""
    present = data_fields(cases)
    missing: dict[str, tuple[str, ...]] = {}
    mapping: FieldMapping = {}
    for part in PARTS:
        lacking = tuple(key for key in needs.of(part) if key not in present[part])
        if not lacking:
            continue
        missing[part] = lacking
        spare = [name for name in present[part] if name not in needs.of(part)]
        for key, match in _propose(lacking, spare).items():
            mapping[part, key] = match
    if not missing:
        return FieldFit(present=present)
    return FieldFit(missing, mapping, present, _message(missing, mapping, present))


def _shown(part: str, key: str) -> str:
    return f"{part}[{key!r}]"


def _message(missing: dict[str, tuple[str, ...]], mapping: FieldMapping, present: dict[str, tuple[str, ...]]) -> str:
    reads = ", ".join(_shown(part, key) for part, keys in missing.items() for key in keys)
    has = ", ".join(_shown(part, key) for part in PARTS for key in present[part]) or _("no fields")
    message = _("metric.py reads {fields}, which the cases in use do not have (they have {present}).").format(
        fields=reads, present=has
    )
    pairs = [
        _shown(part, key) + " → " + _shown(part, match)
        if match
        else _("{field}: no field to map it to").format(field=_shown(part, key))
        for (part, key), match in mapping.items()
    ]
    return message + " " + _("Map them to the data's fields: {pairs}.").format(pairs="; ".join(pairs))


def apply_field_mapping(source: str, mapping: Mapping[tuple[str, str], str | None]) -> str:
    """``source`` with each key ``score`` reads rewritten as ``mapping`` says (``(part, key)`` → new key; a key
    mapped to ``None`` or not in ``mapping`` stays). Only the key literals change, in their own quotes."""
    lines = source.splitlines(keepends=True)
    edits: dict[int, list[tuple[int, int, str]]] = {}
    for part, key, node in _reads(source):
        new = mapping.get((part, key))
        if not new or node.end_lineno != node.lineno or node.end_col_offset is None:
            continue
        edits.setdefault(node.lineno - 1, []).append((node.col_offset, node.end_col_offset, new))
    for index, changes in edits.items():
        encoded = lines[index].encode("utf-8")  # ast offsets count UTF-8 bytes
        for start, end, new in sorted(changes, reverse=True):
            old = encoded[start:end].decode("utf-8")
            quote = old[0] if old[:1] in ("'", '"') and old[-1:] == old[:1] else ""
            text = f"{quote}{new}{quote}" if quote and quote not in new and "\\" not in new else repr(new)
            encoded = encoded[:start] + text.encode("utf-8") + encoded[end:]
        lines[index] = encoded.decode("utf-8")
    return "".join(lines)
