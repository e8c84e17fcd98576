"""Issue 21 item 15: parsing Python is serialized behind one lock in the server's threads (CPython 3.11 before
3.11.8 crashes two concurrent ``ast.parse`` calls with "AST constructor recursion depth mismatch")."""

from __future__ import annotations

import ast
import re
import threading
import time
from pathlib import Path

import pytest

from skynet_core.metric import pysource

ROOT = Path(__file__).resolve().parents[3]
APP_CODE = [*sorted((ROOT / "skynet_core").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py"))]
APP_CODE += [*sorted((ROOT / "ui").rglob("*.py")), ROOT / "app.py", ROOT / "serve.py"]
# Code that runs in the sandbox or outside the studio (the exported engine programs) is not the server's.
OUTSIDE = ("skynet_core/scoring/sandbox/", "skynet_core/engines/templates/", "skynet_core/examples/")


def test_no_module_of_the_server_parses_python_but_through_pysource():
    direct = re.compile(r"\bast\.parse\(|\bast\.literal_eval\((?!node)|PyCF_ONLY_AST")
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in APP_CODE
        if path.name != "pysource.py" and not path.relative_to(ROOT).as_posix().startswith(OUTSIDE)
        for number, line in enumerate(path.read_text().splitlines(), start=1)
        if direct.search(line)
    ]
    assert found == []


@pytest.mark.skipif(not pysource.AFFECTED, reason="this Python parses safely from several threads")
def test_every_parse_in_the_process_waits_for_the_one_before(monkeypatch):
    """Third-party code (litellm's literal_eval, Streamlit's st.help) calls ast.parse itself: it is serialized too."""
    inside, most = 0, 0
    count = threading.Lock()

    def slow_parse(*args, **kwargs):
        nonlocal inside, most
        with count:
            inside += 1
            most = max(most, inside)
        time.sleep(0.02)
        with count:
            inside -= 1
        return (
            ast.Module(body=[ast.Expr(ast.Constant(1))], type_ignores=[])
            if kwargs.get("mode") != "eval"
            else (ast.Expression(ast.Constant(1)))
        )

    monkeypatch.setattr(pysource, "_original_parse", slow_parse)
    calls = [lambda: ast.literal_eval("1"), lambda: ast.parse("x = 1"), lambda: pysource.parse("x = 1")]
    threads = [threading.Thread(target=calls[index % 3]) for index in range(9)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert most == 1
