"""The command line imports litellm (seconds of CPU) only for a metric that may ask a model.

With a model configured (``SKYNET_METRIC_MODEL``), ``score`` of a metric that names no ``llm`` imported litellm in
the background anyway: a core's worth of CPU for as long as the run lasted, up to the import's 5 s, taken from the
run's own sandboxes. A stand-in litellm on ``PYTHONPATH`` says whether it was imported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]

PLAIN = (
    "import time\n\ndef score(input, output, expected=None):\n    time.sleep(0.5)\n    return 1.0, {'feedback': 'ok'}\n"
)
# Names llm (so it may ask) without calling it: the stand-in has no completion to give.
JUDGE = PLAIN.replace("import time", "import time\nfrom skynet import llm  # asked only for some cases")


@pytest.mark.parametrize(("metric", "imported"), [(PLAIN, False), (JUDGE, True)], ids=["plain", "judge"])
def test_litellm_is_imported_only_for_a_metric_that_names_llm(tmp_path: Path, metric: str, imported: bool) -> None:
    stand_in = tmp_path / "site" / "litellm"
    stand_in.mkdir(parents=True)
    marker = tmp_path / "imported"
    (stand_in / "__init__.py").write_text(f"open({str(marker)!r}, 'w').close()\ntelemetry = True\n")
    folder = tmp_path / "metric"
    folder.mkdir()
    (folder / "metric.py").write_text(metric)
    cases = tmp_path / "cases.jsonl"
    cases.write_text(json.dumps({"id": "a", "input": {"question": "q"}, "output": "x"}) + "\n")
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(tmp_path),
        "PYTHONPATH": f"{tmp_path / 'site'}:{ROOT}",
        "SKYNET_DATA_DIR": str(tmp_path / "data"),
        "SKYNET_METRIC_MODEL": "openai/judge",
        "SKYNET_METRIC_API_BASE": "http://127.0.0.1:9",
    }
    command = [sys.executable, "-m", "skynet_core", "score", str(folder / "metric.py"), "--data", str(cases)]
    done = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr
    assert marker.exists() is imported
