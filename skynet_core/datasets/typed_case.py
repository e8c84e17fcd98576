"""One case typed as JSON on the Author page: read, checked, and saved to the user's own cases file."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from ..cases import Case
from ..i18n import _

USER_CASES_FILE = "my-cases.jsonl"
"""The user dataset "Save as a case" appends to, in the workspace's uploads folder."""


class CaseJsonError(ValueError):
    """A field of a typed case is not valid JSON, or not the shape the field needs (``field`` names it)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


def case_json(value: Any) -> str:
    """A case field as the JSON the try-one-case panel pre-fills (indented, keys in their order)."""
    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode()


def parse_case(case_id: str, input_text: str, output_text: str, expected_text: str, *, split: str = "train") -> Case:
    """A case from the three JSON texts. ``input`` must be an object; ``output`` any JSON value;
    ``expected`` an object, ``null`` or empty (no expected value). Raises :class:`CaseJsonError`."""

    def load(name: str, text: str) -> Any:
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError as exc:
            raise CaseJsonError(name, str(exc)) from None

    if not input_text.strip():
        raise CaseJsonError("input", _("empty"))
    value = load("input", input_text)
    if not isinstance(value, dict):
        raise CaseJsonError("input", _("a JSON object is needed, not {type}").format(type=type(value).__name__))
    if not output_text.strip():
        raise CaseJsonError("output", _("empty"))
    output = load("output", output_text)
    expected = load("expected", expected_text) if expected_text.strip() else None
    if expected is not None and not isinstance(expected, dict):
        raise CaseJsonError(
            "expected", _("a JSON object or null is needed, not {type}").format(type=type(expected).__name__)
        )
    return Case(str(case_id or "typed-case"), value, output, expected, split)


def save_user_case(folder: Path, case: Case) -> Path:
    """Append ``case`` to the user dataset in ``folder`` (one JSON line, loadable on the Data page);
    an id already in the file gets a suffix so that ids stay unique. Returns the file."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / USER_CASES_FILE
    taken = set()
    if path.exists():
        for line in path.read_bytes().splitlines():
            try:
                taken.add(str(orjson.loads(line).get("id")))
            except (orjson.JSONDecodeError, AttributeError):
                continue
    case_id, n = case.id, 2
    while case_id in taken:
        case_id, n = f"{case.id}-{n}", n + 1
    row = {"id": case_id, "split": case.split, "input": case.input, "output": case.output, "expected": case.expected}
    with path.open("ab") as handle:
        handle.write(orjson.dumps(row) + b"\n")
    return path
