"""Where in metric.py ``score`` is defined and returns: the lines a message about the signature or a wrongly
shaped return value points at. Read from the text, never by running it.

Both the contract check and the Author page need these lines; they live here so that neither imports the other.
"""

from __future__ import annotations

import ast

from .pysource import parse as parse_source

__all__ = ["def_line", "fix_line", "return_line"]


def _score_def(source: str) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """``def score`` (else ``def metric``, a name from other frameworks) at module level, or ``None``."""
    try:
        tree = parse_source(source)
    except SyntaxError:
        return None
    found = [node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return next((node for node in found if node.name == "score"), None) or next(
        (node for node in found if node.name == "metric"), None
    )


def def_line(source: str) -> int | None:
    """The line of ``def score`` (or of ``def metric``, a name from other frameworks)."""
    node = _score_def(source)
    return node.lineno if node is not None else None


def return_line(source: str) -> int | None:
    """The line of ``score``'s obvious ``return``: its only ``return`` with a value (nested functions
    aside), else its last statement when that is a ``return``. ``None`` when there is none or it cannot parse."""
    try:
        tree = parse_source(source)
    except SyntaxError:
        return None
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)]
    func = next((node for node in found if node.name == "score"), None)
    if func is None:
        return None
    returns: list[ast.Return] = []
    stack: list[ast.AST] = list(func.body)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        if isinstance(node, ast.Return) and node.value is not None:
            returns.append(node)
        stack.extend(ast.iter_child_nodes(node))
    if len(returns) == 1:
        return returns[0].lineno
    last = func.body[-1]
    return last.lineno if isinstance(last, ast.Return) and last.value is not None else None


def fix_line(source: str) -> int | None:
    """The line of score's one ``return`` with a value, else of ``def score``: where a wrongly shaped
    return value is fixed."""
    node = _score_def(source)
    if node is None:
        return None
    return return_line(source) or node.lineno
