"""Reading metric.py's text as Python syntax, without running it.

``ast.parse`` builds Python objects from the parser's tree with a counter that
CPython 3.11 before 3.11.8 shares between threads (gh-106905): two threads
parsing at once can fail with "AST constructor recursion depth mismatch" (six
sessions on the Author page crashed so). The server parses metric.py from page
scripts and job threads at the same time, so every parse in this project goes
through :func:`parse`, and on an affected Python ``ast.parse`` itself is
replaced, once this module is imported, by the same call behind the same lock:
that also serializes ``ast.literal_eval`` (which calls it) and the parses of
libraries running in the server's threads (litellm, Streamlit's ``st.help``).
(Streamlit's "magic" also parses page scripts; `.streamlit/config.toml` turns it off.)

Source nested deeper than the server's recursion limit (a 3,000-term ``1+1+…``
compiles in the sandbox but not in a page's deep stack) raises
:class:`SourceTooDeep`, a SyntaxError, so every caller fails soft with a message.
"""

from __future__ import annotations

import ast
import sys
import threading
from typing import Any

from skynet_core.i18n import _

_lock = threading.RLock()
_original_parse = ast.parse
AFFECTED = sys.version_info < (3, 11, 8)  # gh-106905, fixed in 3.11.8 and 3.12


def _serialized_parse(*args: Any, **kwargs: Any) -> Any:
    """``ast.parse``, one thread at a time."""
    with _lock:
        return _original_parse(*args, **kwargs)


if AFFECTED and ast.parse is not _serialized_parse:
    ast.parse = _serialized_parse


class SourceTooDeep(SyntaxError):
    """metric.py nests expressions or blocks too deeply for the server to read it."""


def parse(source: str) -> ast.Module:
    """``ast.parse(source)``, one thread at a time; raises SyntaxError like it, also for too-deep source."""
    with _lock:
        try:
            return _original_parse(source)
        except (RecursionError, MemoryError):
            pass
    lines = source.splitlines() or [""]
    # The deepest nesting is almost always on the longest line (a long chain of operators or brackets).
    longest = max(range(len(lines)), key=lambda index: len(lines[index])) + 1
    raise SourceTooDeep(
        _(
            "an expression or block is nested too deeply for the server to read (more than about 1,000 levels, "
            "e.g. a very long chain of +); split it into smaller expressions"
        ),
        ("metric.py", longest, 1, None),
    )
