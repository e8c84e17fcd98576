"""skynet_core never imports streamlit: not in its source, and not through anything it imports."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "skynet_core"
# Run only inside a metric's sandbox, with the sandbox's own import path.
SANDBOX_ONLY = ("scoring/sandbox/child.py", "scoring/sandbox/child_channel.py", "examples/metrics/")


def modules() -> list[str]:
    names = []
    for path in sorted(CORE.rglob("*.py")):
        relative = path.relative_to(CORE).as_posix()
        if relative.startswith(SANDBOX_ONLY) or relative.endswith("__main__.py"):
            continue
        parts = ["skynet_core", *path.relative_to(CORE).with_suffix("").parts]
        names.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return names


def test_no_module_of_skynet_core_names_streamlit():
    offenders = []
    for path in CORE.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names]
                if isinstance(node, ast.Import)
                else ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            )
            if any(name == "streamlit" or name.startswith("streamlit.") for name in names):
                offenders.append(f"{path.relative_to(CORE)}:{node.lineno}")
    assert offenders == []


def test_importing_every_module_of_skynet_core_loads_no_streamlit():
    script = (
        f"import importlib, sys\nfor name in {modules()!r}:\n    importlib.import_module(name)\n"
        "print(sorted(m for m in sys.modules if m == 'streamlit' or m.startswith('streamlit.')))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=CORE.parent)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
