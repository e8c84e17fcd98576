"""Reading metric.py's text as Python syntax, without running it.

``ast.parse`` builds Python objects from the parser's tree with a counter that
CPython 3.11 before 3.11.8 shares between threads (gh-106905): two threads
parsing at once can fail with "AST constructor recursion depth mismatch". The
server parses metric.py from page scripts and job threads at the same time, so
every parse in this project goes through this one lock. (Streamlit's "magic"
also parses page scripts; `.streamlit/config.toml` turns it off.)
"""

from __future__ import annotations

import ast
import threading

_lock = threading.Lock()


def parse(source: str) -> ast.Module:
    """``ast.parse(source)``, one thread at a time; raises SyntaxError like it."""
    with _lock:
        return ast.parse(source)
