"""Export for engines: the folder runs as written, with the metric sandboxed by the vendored runner."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skynet_core.cases import Case
from skynet_core.engines.export import export_for_engine, requirements
from skynet_core.metric.source import MetricSource
from tests.engine_stub import HINT, METRIC, SEED, TICKETS, stub_server

CASES = [
    Case(id=t["id"], input=t["input"], output="", expected=t["expected"], split="train" if index < 2 else "val")
    for index, t in enumerate(TICKETS)
]


def run_export(python: str, folder: Path, script: str, url: str, timeout: float = 240) -> dict:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("SKYNET_", "PYTHON", "OPENAI_", "VIRTUAL_ENV"))
    }
    env.update(SKYNET_TASK_API_BASE=url, SKYNET_REFLECTION_API_BASE=url)
    done = subprocess.run(
        [python, script, "--max-metric-calls", "16", "--minibatch", "2"],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout[done.stdout.rindex('{\n  "best_instruction"') :])  # after the engine's log


def test_export_lists_the_engine_the_runner_and_what_the_metric_imports() -> None:
    source = MetricSource(
        {
            "metric.py": "import json\nimport numpy as np\nfrom helpers import x\nimport nosuchpkg\n"
            "from skynet import llm\n",
            "helpers.py": "import orjson\nx = 1\n",
        }
    )
    text = requirements(source, "dspy")
    assert "dspy==3.4.1" in text and "litellm==" in text and "numpy==" in text and "orjson==" in text
    assert "# nosuchpkg is imported by metric/ but not installed here (install nosuchpkg)" in text


def test_export_refuses_an_unknown_engine_with_the_choices() -> None:
    with pytest.raises(ValueError, match="choose gepa or dspy"):
        export_for_engine(METRIC, "auto", CASES)


def test_cli_export_writes_the_folder_with_the_bundled_example_instruction(tmp_path: Path) -> None:
    from skynet_core.cli import run
    from skynet_core.datasets import EXAMPLE_PATH

    metric = EXAMPLE_PATH.parent / "metrics" / "exact_match.py"
    code = run(["export", str(metric), "--engine", "gepa", "--out", str(tmp_path), "--data", str(EXAMPLE_PATH)])
    assert code == 0
    assert '"label"' in (tmp_path / "instruction.txt").read_text()
    assert len((tmp_path / "cases.jsonl").read_text().splitlines()) == 72  # one line per case id
    assert (tmp_path / "metric" / "metric.py").read_text() == metric.read_text()
    assert (tmp_path / "run_gepa.py").is_file() and "gepa==0.1.4" in (tmp_path / "requirements.txt").read_text()


def test_export_runs_in_a_fresh_virtualenv_with_only_its_requirements(tmp_path: Path) -> None:
    """The one slow test: a new virtualenv (no system site packages) filled from the folder's requirements.txt
    alone, then the folder's script run against a scripted model: GEPA or DSPy GEPA, with the metric sandboxed by
    the runner the folder carries, finds the instruction that scores best. uv fills them (the dev tools pin it; pip
    took minutes here for DSPy's tree); the folder's README says pip, which reads the same file.

    GEPA's folder runs first; DSPy's requirements hold every line of GEPA's (checked here: else it gets a new
    virtualenv too), so its folder runs in the same virtualenv once that is filled from its own requirements.txt,
    which then holds exactly what a new one filled from that file would (and the packages both need are not
    compiled to bytecode twice)."""
    uv = Path(sys.executable).with_name("uv")
    if not uv.is_file():
        pytest.skip("uv is not installed: scripts/setup.sh --dev installs it")
    installed: set[str] = set()  # the requirement lines the virtualenv was filled from
    venv = tmp_path / "venv"
    with stub_server() as server:
        for engine in ("gepa", "dspy"):
            folder = export_for_engine(MetricSource({"metric.py": METRIC}), engine, CASES, instruction=SEED)
            folder = folder.write_to(tmp_path / engine)
            assert (folder / "skynet_core" / "scoring" / "runner" / "run.py").is_file()
            assert (folder / "metric" / "metric.py").is_file()
            wanted = {
                line.strip()
                for line in (folder / "requirements.txt").read_text().splitlines()
                if line.strip() and not line.startswith("#")
            }
            if not installed <= wanted:  # it would hold a package this folder does not ask for: a new one
                venv = tmp_path / f"venv-{engine}"
            if not installed or venv.name != "venv":
                subprocess.run([str(uv), "venv", "-q", "--python", sys.executable, str(venv)], check=True, timeout=120)
            python = str(venv / "bin" / "python")
            filled = subprocess.run(
                [str(uv), "pip", "install", "-q", "--python", python, "-r", "requirements.txt"],
                cwd=folder,
                capture_output=True,
                text=True,
                timeout=600,
            )
            if filled.returncode != 0 and "error sending request" in filled.stderr.lower():
                pytest.skip(f"the package registry is unreachable: {filled.stderr[-300:]}")
            assert filled.returncode == 0, filled.stderr[-2000:]
            installed = wanted
            report = run_export(python, folder, f"run_{engine}.py", server.url)
            assert HINT in report["best_instruction"], engine
            assert report["objective_pareto_front"] == {"format": 1.0, "label": 1.0}, engine
            assert report["metric_calls"] > 0, engine
            assert (folder / "best_instruction.txt").read_text().strip() == report["best_instruction"], engine


def test_cli_export_for_dspy_without_data_says_to_give_it(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from skynet_core.cli import run

    (tmp_path / "metric.py").write_text(METRIC)
    assert run(["export", str(tmp_path / "metric.py"), "--engine", "dspy", "--out", str(tmp_path / "out")]) == 2
    assert "--data" in capsys.readouterr().err
