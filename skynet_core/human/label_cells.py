"""The text cells of the studio's labels CSV: guarded and escaped on export, restored exactly on import.

A spreadsheet runs a cell that starts like a formula, and a terminal runs the escape sequences a text may
hold; every CSV the studio writes shows such text as text (:func:`skynet_core.runs.export.safe_csv_cell`). A labels
export must also read back as it was, so its rows are marked (the ``escaped`` column, :data:`ESCAPED`) and
their cells written in a form with one reading:

- a backslash is doubled, then each control or invisible character (but a line break or a tab, which CSV
  quotes) is written as the terminal shows it: ``\\e``, ``\\r``, ``\\x07``, ``\\u200b``;
- then a ``'`` goes before a cell that starts like a formula (``= + - @``, a tab, a carriage return), and
  before one that starts with ``'`` itself, so a leading ``'`` of a marked row is always the guard.

:func:`restore` undoes both; a row without the mark (a file written by hand) is read as written.
"""

from __future__ import annotations

import re

from skynet_core.display import escape_controls
from skynet_core.runs.export import FORMULA_STARTS

ESCAPED = "escaped"
"""The column that marks a row the studio wrote (its value :data:`MARK`): its text cells are escaped."""
MARK = "1"
_GUARDED = (*FORMULA_STARTS, "'")
_CODES = re.compile(r"\\(?:x([0-9a-fA-F]{2})|u([0-9a-fA-F]{4})|(.))", re.DOTALL)
_NAMED = {"\\": "\\", "e": "\x1b", "r": "\r", "n": "\n", "t": "\t"}


def escaped(text: str) -> str:
    """``text`` as a marked row's cell: backslashes doubled, controls escaped, a formula or a ``'`` guarded."""
    cell = escape_controls(text.replace("\\", "\\\\"), keep="\n\t")
    return "'" + cell if cell.startswith(_GUARDED) else cell


def restore(cell: str) -> str:
    """The text a marked row's cell was written from (:func:`escaped` undone)."""
    return _CODES.sub(_decode, cell[1:] if cell.startswith("'") else cell)


def _decode(match: re.Match[str]) -> str:
    byte, unit, named = match.groups()
    if byte or unit:
        return chr(int(byte or unit, 16))
    return _NAMED.get(named, match.group())
