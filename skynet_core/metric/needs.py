"""What metric.py needs from the folder around it: the helper modules it imports and the files it names.

Read from the source with ``ast`` (never run), for a metric file kept in a busy folder (a project's
root, ``/tmp``): only these files come along with it, instead of the whole folder (issue 23). A
helper module is one the Python files import (``import helpers``, ``from checks import rules``,
``from . import x`` inside a helper package), followed transitively; a data file is one a Python
file names by a literal string (``open("labels.json")``, ``Path(__file__).parent / "data"``); a
literal that names a folder brings that folder's files. Names built at run time (``f"{x}.json"``)
cannot be seen: such a metric belongs in a folder of its own.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from .pysource import parse as parse_source

MAIN_FILE = "metric.py"


@dataclass(frozen=True)
class FolderView:
    """How :func:`needed_files` sees a folder: whether a relative name is a file or a folder that may be
    taken, the text of a Python file, and the files of a folder (one level)."""

    is_file: Callable[[str], bool]
    is_folder: Callable[[str], bool]
    read: Callable[[str], str]
    files_in: Callable[[str], list[str]]


def _tree(text: str) -> ast.Module | None:
    try:
        return parse_source(text)
    except (SyntaxError, ValueError):
        return None  # the load stage reports it; what it would need cannot be known


def string_literals(text: str) -> set[str]:
    """Every string constant of the Python source ``text`` (empty when it does not parse)."""
    tree = _tree(text)
    if tree is None:
        return set()
    return {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant) and isinstance(node.value, str)}


def imported_modules(text: str, name: str) -> set[str]:
    """The dotted modules the file ``name`` (relative to the folder) imports, relative imports resolved."""
    tree = _tree(text)
    if tree is None:
        return set()
    package = list(PurePosixPath(name).parent.parts)
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                if node.level - 1 > len(package):
                    continue
                base = package[: len(package) - (node.level - 1)]
            else:
                base = []
            module = [*base, *(node.module.split(".") if node.module else [])]
            if module:
                found.add(".".join(module))
            # ``from checks import rules`` may import the module checks/rules.py.
            found.update(".".join([*module, alias.name]) for alias in node.names if alias.name != "*")
    return found


def module_files(module: str) -> list[str]:
    """The files of a metric folder that could hold ``module`` (``a``: ``a.py`` or ``a/__init__.py``;
    ``a.b``: also ``a/b.py``); a metric folder has one level of folders."""
    parts = module.split(".")
    names = [f"{parts[0]}.py", f"{parts[0]}/__init__.py"]
    if len(parts) > 1:
        names.append(f"{parts[0]}/{parts[1]}.py")
    return names


def needed_files(main_text: str, view: FolderView, *, main: str = MAIN_FILE) -> list[str]:
    """The relative names of the files metric.py (``main_text``) needs, besides itself, in the order found."""
    taken: dict[str, None] = {}
    todo: list[tuple[str, str]] = [(main, main_text)]
    while todo:
        name, text = todo.pop()
        wanted = [file for module in imported_modules(text, name) for file in module_files(module)]
        wanted += _named(string_literals(text), view)
        for file in wanted:
            if file == main or file in taken or not view.is_file(file):
                continue
            taken[file] = None
            if file.endswith(".py"):
                todo.append((file, view.read(file)))
            # A package's modules import from its __init__, which Python runs first.
            package_init = f"{PurePosixPath(file).parent}/__init__.py"
            if "/" in file and package_init not in taken and view.is_file(package_init):
                taken[package_init] = None
                todo.append((package_init, view.read(package_init)))
    return list(taken)


def _named(literals: Iterable[str], view: FolderView) -> list[str]:
    """The files the literals name: a relative file name, a folder (its files), or a module name for
    ``importlib.import_module("helpers")``."""
    names: list[str] = []
    for literal in sorted(literals):
        text = literal.strip().removeprefix("./")
        if not text or len(text) > 200 or "\n" in text or text.startswith(("/", ".")) or ".." in text:
            continue
        if view.is_folder(text):
            names += view.files_in(text)
        else:
            names.append(text)
            if text.isidentifier():
                names.append(f"{text}.py")
    return names
