"""The two-line ``pages/<name>.py`` stubs (why they exist: ``ui/__init__.py``): one for every page of the router
but the default one, each only handing the request to the router, and no other file at the top of ``pages/``."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def router_paths() -> list[str]:
    """The URL paths of app.py's PAGES, read from its source (importing it would run Streamlit)."""
    tree = ast.parse((ROOT / "app.py").read_text(encoding="utf-8"))
    pages = next(
        node.value
        for node in tree.body
        if isinstance(node, ast.Assign) and any(getattr(t, "id", None) == "PAGES" for t in node.targets)
    )
    assert isinstance(pages, ast.List)
    return [ast.literal_eval(entry.elts[3]) for entry in pages.elts if isinstance(entry, ast.Tuple)]


def test_every_page_but_the_default_has_a_stub_that_only_hands_over_to_the_router():
    paths = router_paths()
    assert paths[0] == "author" and len(paths) >= 8, paths
    stubs = {path.stem for path in (ROOT / "pages").glob("*.py")} - {"__init__"}
    assert stubs == set(paths[1:])
    for name in stubs:
        body = ast.parse((ROOT / "pages" / f"{name}.py").read_text(encoding="utf-8")).body
        code = [
            ast.unparse(node) for node in body if not isinstance(node, ast.Expr | ast.Constant) or node is not body[0]
        ]
        assert code == ["from ui import studio", "studio.hand_over_to_router()"], (name, code)
