"""No import circle inside skynet_core: the graph of its imports has no cycle.

Imports inside functions count: a lazy import keeps a heavy library (litellm, ray, scipy) off the start-up
path, but it is still a dependency, and a circle hidden in a function is a circle (two modules that cannot be
understood, moved or tested one without the other). Imports under ``if TYPE_CHECKING:`` never run and only
name types, so they are left out.
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "skynet_core"


def _module_name(root: Path, path: Path) -> str:
    parts = [root.name, *path.relative_to(root).with_suffix("").parts]
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def _imports(body: list[ast.stmt]) -> list[ast.Import | ast.ImportFrom]:
    """Every import a module may run: at any depth (functions, classes, blocks), except under ``TYPE_CHECKING``."""
    found: list[ast.Import | ast.ImportFrom] = []
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            found.append(node)
        elif isinstance(node, ast.If) and _is_type_checking(node.test):
            found += _imports(node.orelse)
        else:
            for field in ("body", "orelse", "finalbody", "handlers"):
                for child in getattr(node, field, None) or ():
                    found += _imports(child.body if isinstance(child, ast.ExceptHandler) else [child])
    return found


def import_graph(root: Path) -> dict[str, set[str]]:
    """Each module of the package at ``root`` and the modules of the same package it imports."""
    paths = {_module_name(root, path): path for path in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in paths.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in _imports(ast.parse(path.read_text(encoding="utf-8")).body):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                base = package.split(".")
                if node.level:
                    base = base[: len(base) - (node.level - 1)]
                    module = ".".join([*base, node.module] if node.module else base)
                else:
                    module = node.module or ""
                # ``from package import submodule`` imports the submodule; a plain name, the module.
                targets = [
                    f"{module}.{alias.name}" if f"{module}.{alias.name}" in paths else module for alias in node.names
                ]
            edges |= {target for target in targets if target in paths and target != name}
        graph[name] = edges
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as the modules along it (the first repeated at the end), or ``None``."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                return [*path[path.index(target) :], target]
            if target not in state and (cycle := visit(target)):
                return cycle
        path.pop()
        state[node] = 2
        return None

    for start in sorted(graph):
        if start not in state and (cycle := visit(start)):
            return cycle
    return None


def test_skynet_core_has_no_import_circle():
    graph = import_graph(CORE)
    assert "skynet_core.metric.contract" in graph and graph["skynet_core.metric.contract"], "the graph was not built"
    cycle = find_cycle(graph)
    assert cycle is None, "import circle in skynet_core: " + " -> ".join(cycle or [])


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "pkg"
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_circle_through_relative_and_package_imports_is_found(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from .sub import b\n",
            "sub/__init__.py": "",
            "sub/b.py": "try:\n    from ..c import thing\nexcept ImportError:\n    pass\n",
            "c.py": "import pkg.a\nthing = 1\n",
        },
    )
    assert find_cycle(import_graph(root)) == ["pkg.a", "pkg.sub.b", "pkg.c", "pkg.a"]


def test_an_import_inside_a_function_counts_and_a_type_checking_one_does_not(tmp_path):
    root = _package(
        tmp_path,
        {
            "__init__.py": "",
            "a.py": "from .b import x\n",
            "b.py": (
                "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .c import z\n"
                "x = 1\ndef later():\n    from .a import y\n    return y\n"
            ),
            "c.py": "import pkg.b\nz = 1\n",
        },
    )
    assert import_graph(root)["pkg.b"] == {"pkg.a"}
    assert find_cycle(import_graph(root)) == ["pkg.a", "pkg.b", "pkg.a"]
