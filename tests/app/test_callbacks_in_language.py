"""Every widget callback of the UI runs in the page's language (issue 23, "Chinese left in English").

Streamlit runs a callback in a fresh script thread before the page sets the session's language, so a callback
made without :func:`skynet_core.i18n.with_language` speaks the default language: its messages, and the jobs it
starts. The scan finds every ``on_click`` / ``on_change`` / ``on_select`` given a function in ``pages/``,
``ui/widgets/`` and the entry modules, and fails on any not made by ``with_language(...)``.
"""

from __future__ import annotations

import ast

from tests.app.harness import ROOT

CALLBACKS = {"on_click", "on_change", "on_select"}


def unbound_callbacks() -> list[str]:
    files = [*sorted((ROOT / "pages").rglob("*.py")), *sorted((ROOT / "ui").rglob("*.py"))]
    files += [ROOT / "app.py"]
    found = []
    for path in files:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            for keyword in node.keywords:
                value = keyword.value
                if keyword.arg not in CALLBACKS or isinstance(value, ast.Constant):
                    continue  # "ignore", "rerun", None: no code of ours runs
                bound = isinstance(value, ast.Call) and getattr(value.func, "id", "") == "with_language"
                if not bound:
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno} {keyword.arg}={ast.unparse(value)[:60]}")
    return found


def test_every_callback_runs_in_the_pages_language() -> None:
    found = unbound_callbacks()
    assert not found, "\n".join(found)
