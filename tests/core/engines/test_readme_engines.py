"""docs/engines.md's "Using your metric with GEPA and DSPy" snippets run as written, against a stub model server."""

from __future__ import annotations

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


@pytest.mark.parametrize("index, engine", [(0, "gepa"), (1, "dspy")])
def test_readme_snippet_improves_the_instruction(index: int, engine: str, tmp_path: Path) -> None:
    pytest.importorskip(engine, reason=f"{engine} is a test requirement")
    (tmp_path / "metric").mkdir()
    (tmp_path / "metric" / "metric.py").write_text(METRIC)
    (tmp_path / "instruction.txt").write_text(SEED)
    (tmp_path / "cases.jsonl").write_text("".join(json.dumps(ticket) + "\n" for ticket in TICKETS))
    (tmp_path / "snippet.py").write_text(snippets()[index])
    env = {key: value for key, value in os.environ.items() if not key.startswith(("SKYNET_", "OPENAI_"))}
    with stub_server() as server:
        env.update(
            PYTHONPATH=str(ROOT),
            SKYNET_TASK_API_BASE=server.url,
            SKYNET_REFLECTION_API_BASE=server.url,
            DSPY_CACHEDIR=str(tmp_path / "dspy-cache"),
        )
        done = subprocess.run(
            [sys.executable, "snippet.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=240
        )
    assert done.returncode == 0, done.stderr[-3000:]
    assert HINT in done.stdout
    assert "'label': 1.0" in done.stdout
