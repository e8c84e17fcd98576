"""Text from metric code and data files, shown as text: in a terminal, in Streamlit markdown, in charts.

Feedback, errors, case ids, candidate names and named-score keys come from
untrusted code and files. Wherever they are shown, they are shown literally:
no terminal escape sequence reaches a terminal, no markdown renders (an image
``![x](http://…)`` would make the viewer's browser fetch that URL, carrying case
data out of the no-network sandbox), and no single value can make a page's
rendering cost grow without bound.
"""

from __future__ import annotations

import html
import re
from typing import TYPE_CHECKING, Any

from .i18n import ngettext

if TYPE_CHECKING:
    import pandas as pd

# C0 and C1 controls and DEL, the bidirectional overrides that reorder what a reader sees, and the invisible
# characters that make two texts look alike (zero-width space, joiners and marks, soft hyphen, byte-order mark,
# line and paragraph separators).
_TERMINAL_CONTROLS = re.compile(
    "[\x00-\x1f\x7f-\x9f\xad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\x1b": "\\e"}


def _escape_control(match: re.Match[str]) -> str:
    char = match.group()
    return _NAMED.get(char) or (f"\\x{ord(char):02x}" if ord(char) < 0x100 else f"\\u{ord(char):04x}")


def terminal_text(text: str) -> str:
    """``text`` safe to print on one terminal line: control characters appear as escapes (``\\e``, ``\\x07``, ``\\n``).

    Feedback holding ``\\x1b]52;c;…\\x07`` would otherwise write the viewer's clipboard,
    ``\\x1b[2J`` clear the screen and ``\\r`` overwrite the line with something else.
    """
    return _TERMINAL_CONTROLS.sub(_escape_control, text)


def terminal_lines(text: str) -> str:
    """``text`` safe to print on a terminal, line by line: its line breaks kept, each line as :func:`terminal_text`
    makes it."""
    return "\n".join(terminal_text(line) for line in text.split("\n"))


def escape_controls(text: str, keep: str = "") -> str:
    """``text`` with its control and invisible characters escaped as :func:`terminal_text` does, except those in
    ``keep`` (a CSV cell keeps its line breaks and tabs)."""
    return _TERMINAL_CONTROLS.sub(lambda char: char.group() if char.group() in keep else _escape_control(char), text)


# The characters that start markdown, HTML, LaTeX or a Streamlit directive anywhere in a line: links and
# images need "[", HTML "<", code "`", emphasis "*_~", colours, icons and emoji ":", LaTeX "$", tables "|",
# entities "&". An escaped character is always literal in CommonMark.
_MARKDOWN_ESCAPES = str.maketrans({char: "\\" + char for char in "\\`*_[]<>$#|~:&"})
# What starts a block only at the start of a line: lists ("- ", "+ ", "1. ", "1) "), rules ("---") and
# setext headings ("===").
_LINE_START = re.compile(r"^([ \t]*)(?:(=|[-+](?=[-\s]|$))|(\d{1,9})([.)])(?=\s|$))", re.MULTILINE)
CELL_CHARS = 300
"""Most characters of one value shown in a table cell, a label or a caption; the rest is counted, not drawn."""
TEXT_CHARS = 5_000
"""Most characters of one long text (feedback, an error) drawn at once; the rest behind "show all" or a download."""


# GFM turns bare URLs and e-mail addresses into links even through escapes; an invisible word joiner
# after "scheme:", "www" and "@" keeps them plain text that reads (and copies) the same to the eye.
_AUTOLINK = re.compile(r"(?i)(?<=[a-z]):(?=\\?/)|(?<=www)(?=\\?\.)|(?<=@)")
WORD_JOINER = "\u2060"


def markdown_text(text: str) -> str:
    """``text`` for Streamlit markdown (``st.markdown``, captions, ``st.table`` cells, ``st.metric`` labels),
    shown literally: every markdown, HTML, LaTeX and Streamlit directive in it is escaped, and no URL in it
    becomes a link."""
    escaped = _AUTOLINK.sub(_join, text).translate(_MARKDOWN_ESCAPES)
    return _LINE_START.sub(_escape_line_start, escaped)


def _escape_line_start(match: re.Match[str]) -> str:
    indent, sign, number, dot = match.groups()
    return indent + ("\\" + sign if sign else number + "\\" + dot)


def _join(match: re.Match[str]) -> str:
    return match.group() + WORD_JOINER


def clip(text: str, limit: int = TEXT_CHARS) -> tuple[str, int]:
    """The first ``limit`` characters of ``text`` and how many more there are (0 when it fits)."""
    if len(text) <= limit:
        return text, 0
    return text[:limit], len(text) - limit


def more_note(hidden: int) -> str:
    """What a clipped value says about the rest: ``… (1,234 more characters)``."""
    if not hidden:
        return ""
    return ngettext("… ({count} more character)", "… ({count} more characters)", hidden).format(count=f"{hidden:,}")


def clipped(text: str, limit: int = TEXT_CHARS) -> str:
    """``text`` cut to ``limit`` characters, with the note on how many were left out."""
    shown, hidden = clip(text, limit)
    return shown + more_note(hidden)


def markdown_cell(value: Any, limit: int = CELL_CHARS) -> Any:
    """One table cell or label for markdown: text clipped to ``limit`` and escaped; other values unchanged."""
    return markdown_text(clipped(value, limit)) if isinstance(value, str) else value


def markdown_frame(frame: pd.DataFrame, limit: int = CELL_CHARS) -> pd.DataFrame:
    """``frame`` for ``st.table``, which renders markdown in cells and headers: every text cell, column name
    and index label clipped and escaped, so a value costs at most ``limit`` characters to draw."""
    shown = frame.map(lambda value: markdown_cell(value, limit))
    shown.columns = [markdown_cell(str(name), limit) for name in shown.columns]
    shown.index = [markdown_cell(str(name), limit) for name in shown.index]
    return shown


def plotly_text(text: str, limit: int = CELL_CHARS) -> str:
    """``text`` for plotly hover labels and tick labels, which understand a little HTML (``<a href>``, ``<b>``):
    clipped, with ``&``, ``<`` and ``>`` as entities so it shows literally."""
    return html.escape(clipped(text, limit), quote=False)
