"""docs/architecture.md's diagram of which package imports which is the tree's: every arrow is a real import and
every real import between packages is an arrow.

A package node is ``skynet_core.<name>`` for each subpackage and top-level module of the core, and ``pages``,
``ui``, ``app`` and ``serve`` for the UI. Imports inside functions count; those under ``if TYPE_CHECKING:`` do not
(they never run).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "architecture.md"
UI_TOP = ("pages", "ui", "app", "serve")


def node_of(parts: list[str]) -> str:
    """The package node of a dotted module name: ``skynet_core.scoring.runner.run`` is ``skynet_core.scoring``."""
    if parts[0] == "skynet_core":
        return "skynet_core" if len(parts) == 1 else f"skynet_core.{parts[1]}"
    return parts[0]


def is_core_module(name: str) -> bool:
    return (ROOT / "skynet_core" / name).is_dir() or (ROOT / "skynet_core" / f"{name}.py").is_file()


def type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def imports(statements: list[ast.stmt]) -> Iterator[ast.Import | ast.ImportFrom]:
    """Every import statement that can run: at any depth of statements (an import is a statement, so expressions
    are not visited), but not the body of ``if TYPE_CHECKING:``."""
    for statement in statements:
        if isinstance(statement, ast.Import | ast.ImportFrom):
            yield statement
            continue
        if not (isinstance(statement, ast.If) and type_checking(statement.test)):
            yield from imports(getattr(statement, "body", []))
        for field in ("orelse", "finalbody"):
            yield from imports(getattr(statement, field, []))
        for handler in getattr(statement, "handlers", []):
            yield from imports(handler.body)
        for case in getattr(statement, "cases", []):
            yield from imports(case.body)


def imported_modules(path: Path) -> Iterator[list[str]]:
    """The dotted names (as parts) that ``path`` imports, relative imports resolved."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    package = parts[:-1]  # a package's __init__ resolves relative imports against the package itself
    for found in imports(ast.parse(path.read_text(encoding="utf-8"), filename=str(path)).body):
        if isinstance(found, ast.Import):
            yield from (alias.name.split(".") for alias in found.names)
            continue
        if found.level:
            base = package[: len(package) - (found.level - 1)]
            module = base + (found.module.split(".") if found.module else [])
        else:
            module = (found.module or "").split(".")
        if module == ["skynet_core"]:  # from skynet_core import scoring: the name may be a package
            for alias in found.names:
                yield module + [alias.name] if is_core_module(alias.name) else module
        else:
            yield module


def real_edges() -> set[tuple[str, str]]:
    files = [path for top in ("skynet_core", "pages", "ui") for path in (ROOT / top).rglob("*.py")]
    files += [ROOT / "app.py", ROOT / "serve.py"]
    edges: set[tuple[str, str]] = set()
    for path in files:
        source = node_of(list(path.relative_to(ROOT).with_suffix("").parts))
        for module in imported_modules(path):
            if module[0] != "skynet_core" and module[0] not in UI_TOP:
                continue  # the standard library and third-party packages
            target = node_of(module)
            if target != source:
                edges.add((source, target))
    return edges


def mermaid_block() -> str:
    found = re.findall(r"```mermaid\n(.*?)```", DOC.read_text(encoding="utf-8"), flags=re.S)
    assert len(found) == 1, f"docs/architecture.md should hold one ```mermaid block, found {len(found)}"
    return found[0]


def drawn() -> tuple[dict[str, str], set[tuple[str, str]]]:
    """The diagram's nodes (id -> package label) and its edges, as package labels."""
    block = mermaid_block()
    nodes = dict(re.findall(r'^\s*(\w+)\["([^"]+)"\]\s*$', block, flags=re.M))
    edges: set[tuple[str, str]] = set()
    for source, targets in re.findall(r"^\s*(\w+)\s*-->\s*(.+?)\s*$", block, flags=re.M):
        for target in targets.split("&"):
            target = target.strip()
            assert source in nodes and target in nodes, f"the arrow {source} --> {target} names an undeclared node"
            edges.add((nodes[source], nodes[target]))
    return nodes, edges


def exists(node: str) -> bool:
    parts = node.split(".")
    if parts[0] == "skynet_core":
        return len(parts) == 2 and is_core_module(parts[1])
    return (ROOT / parts[0]).is_dir() or (ROOT / f"{parts[0]}.py").is_file()


def test_every_node_of_the_diagram_exists() -> None:
    nodes, _ = drawn()
    missing = sorted(node for node in nodes.values() if not exists(node))
    assert not missing, f"docs/architecture.md's diagram names packages that do not exist: {missing}"


def test_the_diagram_draws_exactly_the_imports_between_packages() -> None:
    _, edges = drawn()
    real = real_edges()
    missing = sorted(real - edges)
    extra = sorted(edges - real)
    lines = [f"missing arrow: {a} --> {b} (a module of {a} imports {b})" for a, b in missing]
    lines += [f"extra arrow: {a} --> {b} (no module of {a} imports {b})" for a, b in extra]
    assert not lines, "docs/architecture.md's diagram is not the tree's imports:\n" + "\n".join(lines)


def test_the_imports_are_read_inside_functions_and_not_under_type_checking() -> None:
    code = (
        "from typing import TYPE_CHECKING\n"
        "if TYPE_CHECKING:\n    from skynet_core import store\nelse:\n    import skynet_core.paths\n"
        "def f():\n    from skynet_core.scoring.runner import run\n"
    )
    found = [node_of(m.split(".")) for m in _names(code)]
    assert found == ["typing", "skynet_core.paths", "skynet_core.scoring"]


def _names(code: str) -> list[str]:
    names = []
    for found in imports(ast.parse(code).body):
        if isinstance(found, ast.Import):
            names += [alias.name for alias in found.names]
        else:
            names.append(found.module or "")
    return names
