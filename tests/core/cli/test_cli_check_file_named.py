"""The command line's check names the metric file it was given (not a temporary copy)."""

from __future__ import annotations

import io
import json
from pathlib import Path

from skynet_core.cli import run


def test_the_cli_check_names_the_metric_file_it_was_given(tmp_path: Path) -> None:
    metric = tmp_path / "metric_bug.py"
    metric.write_text("def score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n")
    data = tmp_path / "cases.jsonl"
    data.write_text(json.dumps({"id": "a", "input": {}, "output": "x", "expected": None}) + "\n")
    out = io.StringIO()
    assert run(["check", str(metric), "--data", str(data)], stdout=out, stderr=io.StringIO()) == 0
    assert "metric_bug.py compiles and imports" in out.getvalue()
    assert "metric.py" not in out.getvalue()
    out = io.StringIO()
    run(["check", str(tmp_path / "metric_bug.py"), "--data", str(data), "--json"], stdout=out, stderr=io.StringIO())
    load = json.loads(out.getvalue())["stages"][0]
    assert load["message"] == "metric_bug.py compiles and imports"
