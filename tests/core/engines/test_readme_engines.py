"""docs/engines.md's "Using your metric with GEPA and DSPy" snippets run as written, against a stub model server."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.engine_stub import HINT, METRIC, SEED, TICKETS, stub_server

ROOT = Path(__file__).resolve().parents[3]
SECTION = "## Using your metric with GEPA and DSPy"


def snippets() -> list[str]:
    text = (ROOT / "docs" / "engines.md").read_text(encoding="utf-8")
    section = text.split(SECTION, 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.S)


def test_the_section_has_a_gepa_and_a_dspy_snippet() -> None:
    found = snippets()
    assert len(found) == 2 and "optimize_anything" in found[0] and "dspy.GEPA" in found[1]


# Runs each snippet given (a folder holding snippet.py and its files) as ``python snippet.py`` would, from that
# folder, one after the other in this one Python: its output in the folder's stdout.txt, and "exit N" in exit.txt.
RUNNER = """
import contextlib, os, runpy, sys, traceback
for folder in sys.argv[1:]:
    os.chdir(folder)
    code = 0
    with open("stdout.txt", "w") as out, open("stderr.txt", "w") as err:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                runpy.run_path("snippet.py", run_name="__main__")
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
            except BaseException:
                traceback.print_exc()
                code = 1
    with open("exit.txt", "w") as said:
        said.write(f"exit {code}")
"""


@pytest.fixture(scope="module")
def snippet_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each snippet whose engine is installed, run against the stub server in a folder of its own (its metric,
    instruction and cases): both in one fresh Python, one after the other, so that litellm, which both import, is
    imported once (seconds of CPU). Each snippet runs as its own ``__main__`` with its own globals, so one that
    lacks an import still fails. The folder of each engine."""
    folders = {}
    for index, engine in enumerate(("gepa", "dspy")):
        if importlib.util.find_spec(engine) is None:
            continue
        folder = tmp_path_factory.mktemp(engine)
        (folder / "metric").mkdir()
        (folder / "metric" / "metric.py").write_text(METRIC)
        (folder / "instruction.txt").write_text(SEED)
        (folder / "cases.jsonl").write_text("".join(json.dumps(ticket) + "\n" for ticket in TICKETS))
        (folder / "snippet.py").write_text(snippets()[index])
        folders[engine] = folder
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SKYNET_", "OPENAI_"))}
    with stub_server() as server:
        env.update(
            PYTHONPATH=str(ROOT),
            SKYNET_TASK_API_BASE=server.url,
            SKYNET_REFLECTION_API_BASE=server.url,
            DSPY_CACHEDIR=str(tmp_path_factory.mktemp("dspy-cache")),
        )
        subprocess.run(
            [sys.executable, "-c", RUNNER, *map(str, folders.values())],
            cwd=tmp_path_factory.getbasetemp(),
            env=env,
            capture_output=True,
            text=True,
            timeout=480,
        )
    return folders


@pytest.mark.parametrize("engine", ["gepa", "dspy"])
def test_readme_snippet_improves_the_instruction(engine: str, snippet_runs: dict[str, Path]) -> None:
    pytest.importorskip(engine, reason=f"{engine} is a test requirement")
    folder = snippet_runs[engine]
    said, stdout, stderr = (
        (folder / name).read_text() if (folder / name).is_file() else ""
        for name in ("exit.txt", "stdout.txt", "stderr.txt")
    )
    assert said == "exit 0", stderr[-3000:]
    assert HINT in stdout
    assert "'label': 1.0" in stdout
