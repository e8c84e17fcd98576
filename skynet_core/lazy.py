"""The one way a package face imports its names on first use (PEP 562), so that ``python -m skynet_core`` pays
only for what its command needs (the faces of ``datasets``, ``engines``, ``engines.uplift`` and ``human``; the
others are plain re-exports).

A lazy face reads like a plain one: its names are imported under ``if TYPE_CHECKING:`` (what a reader and the
type checker see) and listed once more in ``__all__``; one line hands its module ``__getattr__`` here::

    if TYPE_CHECKING:
        from .model import Dataset, DatasetError

    __getattr__ = lazy_face(__name__, __file__)
    __all__ = ["Dataset", "DatasetError"]

The first name asked for reads the face's ``TYPE_CHECKING`` imports from its own file (once per face) to find
the submodule each name lives in; the name is then kept in the package, so the next use is a plain lookup.
"""

from __future__ import annotations

import ast
import importlib
import sys
from collections.abc import Callable
from pathlib import Path


def face_homes(init_file: str | Path) -> dict[str, str]:
    """Each name a face imports under ``if TYPE_CHECKING:`` -> the submodule (relative to the face) it lives in."""
    from .metric.pysource import parse  # the one thread-safe parse (see pysource); only on a face's first miss

    tree = parse(Path(init_file).read_text(encoding="utf-8"))
    homes: dict[str, str] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                if isinstance(statement, ast.ImportFrom) and statement.level == 1 and statement.module:
                    for alias in statement.names:
                        homes[alias.asname or alias.name] = statement.module
    return homes


def lazy_face(package: str, init_file: str) -> Callable[[str], object]:
    """The module ``__getattr__`` of the face ``package`` (whose ``__init__.py`` is ``init_file``): a name imported
    under ``TYPE_CHECKING`` there, from its submodule; a submodule not imported yet (``package.name``); else
    :class:`AttributeError`, as for any missing attribute."""
    homes: dict[str, str] = {}

    def __getattr__(name: str) -> object:  # noqa: N807 - the module hook's own name
        if not homes:
            homes.update(face_homes(init_file))
        home = homes.get(name)
        if home is None:
            try:
                return importlib.import_module(f"{package}.{name}")
            except ModuleNotFoundError as exc:
                if exc.name != f"{package}.{name}":
                    raise
                raise AttributeError(f"module {package!r} has no attribute {name!r}") from None
        value = getattr(importlib.import_module(f"{package}.{home}"), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
