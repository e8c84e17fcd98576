"""Third-party packages for metrics (contract rule 13): what a metric imports, the exact install
command when one is missing, and the metric packages folder that makes it work without touching
the studio's environment. The package is a tiny hand-made wheel: no network."""

from __future__ import annotations

import base64
import hashlib
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import zipfile
from pathlib import Path

import pytest

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.metric.contract import check_metric
from skynet_core.metric.folder import read_metric
from skynet_core.metric.packages import (
    PACKAGES_ENV,
    distribution_for,
    install_command,
    missing_command,
    package_report,
    package_rows,
    packages_dir,
    third_party_imports,
)
from skynet_core.metric.source import MetricSource
from skynet_core.results import StageName, StageStatus
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner import WorkerPool
from tests.case_factory import make_cases

ROOT = Path(__file__).resolve().parents[3]
FUZZY = """import json
from collections import Counter

import rapidfuzz.fuzz
from skynet import llm


def score(input, output, expected=None):
    similarity = rapidfuzz.fuzz.ratio(output, expected["label"]) / 100
    return similarity, {"feedback": f"{similarity:.2f} similar to {expected['label']!r}."}
"""
FAKE_FUZZ = """import difflib


def ratio(a, b):
    return 100 * difflib.SequenceMatcher(None, a, b).ratio()
"""


def build_wheel(folder: Path) -> Path:
    """A minimal pure-Python wheel of a package named rapidfuzz (what pip would download)."""
    files = {
        "rapidfuzz/__init__.py": '__version__ = "0.0.1"\n',
        "rapidfuzz/fuzz.py": FAKE_FUZZ,
        "rapidfuzz-0.0.1.dist-info/METADATA": "Metadata-Version: 2.1\nName: rapidfuzz\nVersion: 0.0.1\n",
        "rapidfuzz-0.0.1.dist-info/WHEEL": "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\n"
        "Tag: py3-none-any\n",
        "rapidfuzz-0.0.1.dist-info/top_level.txt": "rapidfuzz\n",
    }
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(text.encode())}")
    record.append("rapidfuzz-0.0.1.dist-info/RECORD,,")
    wheel = folder / "rapidfuzz-0.0.1-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
        archive.writestr("rapidfuzz-0.0.1.dist-info/RECORD", "\n".join(record) + "\n")
    return wheel


@pytest.fixture
def packages(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "metric-packages"
    monkeypatch.setenv(PACKAGES_ENV, str(folder))
    return folder


@pytest.fixture
def fresh_pool(packages: Path):
    pool = WorkerPool(spares=1)  # started after the packages folder was chosen
    yield pool
    pool.close()


def studio_site_packages() -> list[str]:
    return sorted(os.listdir(sysconfig.get_paths()["purelib"]))


def test_imports_leave_out_the_stdlib_the_helpers_and_skynet():
    source = MetricSource(
        {
            "metric.py": FUZZY + "import yaml\nfrom sklearn.metrics import f1_score\nfrom . import x\n",
            "helpers.py": "import os\nimport sympy\nimport helpers\n",
        }
    )
    uses = third_party_imports(source)
    assert [(use.module, use.file) for use in uses] == [
        ("rapidfuzz", "metric.py"),
        ("yaml", "metric.py"),
        ("sklearn", "metric.py"),
        ("sympy", "helpers.py"),
    ]
    assert uses[0].line == 4


def test_import_names_map_to_what_to_install():
    assert distribution_for("sklearn") == "scikit-learn"
    assert distribution_for("yaml") == "PyYAML"
    assert distribution_for("rouge_score.rouge_scorer") == "rouge-score"
    assert distribution_for("rapidfuzz") == "rapidfuzz"


def test_the_packages_folder_defaults_to_the_data_dir(monkeypatch, tmp_path):
    monkeypatch.delenv(PACKAGES_ENV, raising=False)
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    assert packages_dir() == tmp_path / "packages"


def test_the_install_command_is_exact(packages):
    command = install_command(["rapidfuzz"])
    assert command.endswith(f"-m pip install --target {packages} rapidfuzz")
    assert command.startswith(".venv/bin/python " if Path(".venv/bin/python").exists() else sys.executable)


def test_a_missing_package_names_the_install_command_and_installing_it_makes_the_metric_pass(
    packages, fresh_pool, tmp_path
):
    before = studio_site_packages()
    report = check_metric(FUZZY, make_cases(3), RunOptions(timeout_s=30, pool=fresh_pool, stop_on_timeout=True))
    load = report.stage(StageName.LOAD)
    assert load.status is StageStatus.FAILED and load.line == 4
    assert "No module named 'rapidfuzz'" in load.message
    command = install_command(["rapidfuzz"])
    assert command in load.message

    # What the command does, from a local wheel instead of PyPI: the same pip, the same --target.
    wheel = build_wheel(tmp_path)
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--target",
            str(packages),
            "--no-index",
            "--no-deps",
            "--disable-pip-version-check",
            "--no-cache-dir",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr

    report = check_metric(FUZZY, make_cases(3), RunOptions(timeout_s=30, pool=fresh_pool, stop_on_timeout=True))
    assert report.ok, report.first_failure
    assert [case.score for case in report.cases] == [1.0, 1.0, 1.0]
    assert studio_site_packages() == before
    assert importlib.util.find_spec("rapidfuzz") is None


def test_the_package_report_says_where_each_module_is_found_and_its_version(packages, tmp_path):
    source = MetricSource.of("import orjson\nimport rapidfuzz\nimport no_such_package_here\n")
    before = {status.module: status for status in package_report(source)}
    assert before["orjson"].where == "studio" and before["orjson"].version
    assert not before["rapidfuzz"].found and not before["no_such_package_here"].found
    assert missing_command(package_report(source)) == install_command(["rapidfuzz", "no_such_package_here"])

    with zipfile.ZipFile(build_wheel(tmp_path)) as archive:
        archive.extractall(packages)
    after = {status.module: status for status in package_report(source)}
    assert (after["rapidfuzz"].where, after["rapidfuzz"].version) == ("packages", "0.0.1")
    row = next(row for row in package_rows(list(after.values())) if row["module"] == "rapidfuzz")
    assert row == {
        "module": "rapidfuzz",
        "package": "rapidfuzz",
        "found in": "the metric packages folder",
        "version": "0.0.1",
        "imported at": "metric.py line 2",
    }


def test_a_package_the_studio_has_wins_over_the_packages_folder(packages, fresh_pool):
    (packages / "orjson").mkdir(parents=True)
    (packages / "orjson" / "__init__.py").write_text("raise ImportError('the shadow was imported')\n")
    source = "import orjson\n\ndef score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n"
    assert check_metric(source, make_cases(1), RunOptions(timeout_s=30, pool=fresh_pool, stop_on_timeout=True)).ok


def test_the_cli_check_prints_the_install_command(tmp_path):
    folder = tmp_path / "pk"
    (tmp_path / "metric.py").write_text(FUZZY)
    data = tmp_path / "cases.jsonl"
    data.write_text(
        json.dumps({"id": "a", "input": {"m": "x"}, "output": "billing", "expected": {"label": "billing"}}) + "\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "skynet_core", "check", str(tmp_path / "metric.py"), "--data", str(data)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, PACKAGES_ENV: str(folder)},
    )
    assert done.returncode == 1
    assert f"-m pip install --target {folder} rapidfuzz" in done.stdout
    assert "[metric.py line 4]" in done.stdout


@pytest.mark.parametrize("name", list(EXAMPLE_METRICS))
def test_the_bundled_examples_use_no_third_party_package(name):
    source = read_metric(EXAMPLE_METRICS[name])
    assert third_party_imports(source) == []


def test_a_package_imported_inside_score_gets_the_same_hint(packages, fresh_pool):
    source = "def score(input, output, expected=None):\n    import rapidfuzz\n    return 1.0, {'feedback': ''}\n"
    stage = check_metric(source, make_cases(1), RunOptions(timeout_s=30, pool=fresh_pool, stop_on_timeout=True)).stage(
        StageName.RETURN_VALUE
    )
    assert stage.status is StageStatus.FAILED and stage.line == 2
    assert install_command(["rapidfuzz"]) in stage.message


def test_the_printed_command_itself_installs_the_real_package(packages, fresh_pool):
    """The command exactly as the load stage prints it, run by a shell against the package index
    pip is configured with; skipped where no index can be reached."""
    before = studio_site_packages()
    message = (
        check_metric(FUZZY, make_cases(1), RunOptions(timeout_s=30, pool=fresh_pool, stop_on_timeout=True))
        .stage(StageName.LOAD)
        .message
    )
    command = install_command(["rapidfuzz"])
    assert command in message
    done = subprocess.run(command, shell=True, capture_output=True, text=True, timeout=280, cwd=Path.cwd())
    if done.returncode != 0:
        pytest.skip(f"pip could not install rapidfuzz here: {done.stderr.strip().splitlines()[-1:]}")
    report = check_metric(FUZZY, make_cases(3), RunOptions(timeout_s=30, pool=fresh_pool, stop_on_timeout=True))
    assert report.ok, report.first_failure
    assert [case.score for case in report.cases] == [1.0, 1.0, 1.0]
    status = {status.module: status for status in package_report(MetricSource.of(FUZZY))}["rapidfuzz"]
    assert status.where == "packages" and status.version
    assert studio_site_packages() == before
    assert importlib.util.find_spec("rapidfuzz") is None
