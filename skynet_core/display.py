"""Text from metric code and data files, shown as text: in a terminal, in Streamlit markdown, in charts.

Feedback, errors, case ids, candidate names and named-score keys come from
untrusted code and files. Wherever they are shown, they are shown literally:
no terminal escape sequence reaches a terminal, no markdown renders (an image
``![x](http://…)`` would make the viewer's browser fetch that URL, carrying case
data out of the no-network sandbox), and no single value can make a page's
rendering cost grow without bound.
"""

from __future__ import annotations

import re

# C0 and C1 controls and DEL, plus the bidirectional overrides that reorder what a reader sees.
_TERMINAL_CONTROLS = re.compile("[\x00-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
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
