"""A metric is a folder (contract rule 13): helper modules and data files beside metric.py, read-only,
with errors that name the helper's file and line; through the API and the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from skynet_core.cases import Case
from skynet_core.metric.contract import check_metric
from skynet_core.metric.folder import read_metric
from skynet_core.metric.source import MetricSource, MetricSourceError
from skynet_core.results import CaseResult, Isolation, StageName, StageStatus
from skynet_core.scoring import RunOptions
from skynet_core.scoring.runner.run import score_cases
from tests.case_factory import make_cases
from tests.core.command_line import cli_completed as cli

ROOT = Path(__file__).resolve().parents[3]
METRIC = """import json
from pathlib import Path

from grading_helpers import grade

LABELS = json.loads(Path("labels.json").read_text())


def score(input, output, expected=None):
    return grade(output, expected, LABELS)
"""
HELPERS = """def grade(output, expected, labels):
    if output not in labels:
        raise ValueError(f"unknown label {output!r}")
    if expected is None:
        return 0.5, {"feedback": "No expected label."}
    ok = output == expected["label"]
    return (1.0 if ok else 0.0), {"feedback": "Correct." if ok else f"Expected {expected['label']!r}."}
"""


def folder() -> MetricSource:
    return MetricSource(
        {"metric.py": METRIC, "grading_helpers.py": HELPERS, "labels.json": json.dumps(["billing", "other"])}
    )


def test_a_metric_folder_imports_its_helper_and_reads_its_data_file(pool):
    report = check_metric(folder(), make_cases(3), RunOptions(timeout_s=30, pool=pool, stop_on_timeout=True))
    assert report.ok, report.first_failure
    assert [case.score for case in report.cases] == [1.0, 1.0, 1.0]


def test_an_error_inside_the_helper_names_the_helper_file_and_line(pool):
    run = score_cases(
        folder(), [Case(id="bad", input={}, output="spam", expected=None)], RunOptions(timeout_s=30, pool=pool)
    )
    result = run.results[0]
    assert (result.file, result.line) == ("grading_helpers.py", 3)
    assert "(grading_helpers.py line 3)" in result.error.splitlines()[0]
    assert 'File "metric.py", line 10, in score' in result.error
    assert 'File "grading_helpers.py", line 3, in grade' in result.error
    assert result.to_json()["file"] == "grading_helpers.py"
    assert CaseResult.from_json(result.to_json()) == result


def test_an_old_saved_result_without_a_file_still_reads_as_metric_py():
    data = CaseResult(id="a", line=3).to_json()
    del data["file"]
    assert CaseResult.from_json(data).file == "metric.py"


def test_a_syntax_error_in_a_helper_fails_load_at_the_helper_line(pool):
    source = folder().with_file("grading_helpers.py", "def grade(output, expected, labels):\n    return (\n")
    load = check_metric(source, make_cases(3), RunOptions(timeout_s=30, pool=pool, stop_on_timeout=True)).stage(
        StageName.LOAD
    )
    assert load.status is StageStatus.FAILED
    assert load.file == "grading_helpers.py" and load.line is not None
    assert "grading_helpers.py line" in load.message


def test_a_hang_inside_the_helper_names_the_helper_line(pool):
    source = folder().with_file(
        "grading_helpers.py", "def grade(output, expected, labels):\n    while True:\n        pass\n"
    )
    run = score_cases(source, make_cases(1), RunOptions(timeout_s=1, pool=pool))
    result = run.results[0]
    assert result.status.value == "timeout"
    assert result.file == "grading_helpers.py" and result.line in (2, 3)
    assert "stuck at grading_helpers.py line" in result.error


def test_the_metric_folder_is_read_only_in_full_isolation(pool):
    if pool.isolation is not Isolation.FULL:
        pytest.skip("reduced isolation: the folder is a private temp dir of the host")
    source = MetricSource(
        {
            "metric.py": "def score(input, output, expected=None):\n"
            "    try:\n        open('labels.json', 'w').write('[]')\n"
            "    except OSError as exc:\n        return 1.0, {'feedback': type(exc).__name__}\n"
            "    return 0.0, {'feedback': 'wrote into the metric folder'}\n",
            "labels.json": "[]",
        }
    )
    result = score_cases(source, make_cases(1), RunOptions(timeout_s=30, pool=pool)).results[0]
    assert result.score == 1.0, result.feedback or result.error


def test_a_plain_string_is_still_metric_py_alone(pool):
    run = score_cases(
        "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'ok'}\n",
        make_cases(2),
        RunOptions(timeout_s=30, pool=pool),
    )
    assert [result.score for result in run.results] == [1.0, 1.0]


def write_folder(path: Path) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    folder().write_to(path)
    return path


def test_from_path_takes_the_file_or_the_folder_and_leaves_the_rest_out(tmp_path):
    metric_dir = write_folder(tmp_path / "m")
    (metric_dir / ".git").mkdir()
    (metric_dir / ".git" / "config.txt").write_text("x")
    (metric_dir / "__pycache__").mkdir()
    (metric_dir / "__pycache__" / "x.py").write_text("x")
    (metric_dir / "big.jsonl").write_text("x" * 1_100_000)
    (metric_dir / "cases.jsonl").write_text("{}\n")
    (metric_dir / "image.png").write_bytes(b"\x89PNG")
    by_file = read_metric(metric_dir / "metric.py", exclude=(metric_dir / "cases.jsonl",))
    by_folder = read_metric(metric_dir, exclude=(str(metric_dir / "cases.jsonl"),))
    assert by_file == by_folder
    assert sorted(by_file.files) == ["grading_helpers.py", "labels.json", "metric.py"]


def test_from_path_refuses_a_fifo_without_blocking(tmp_path):
    fifo = tmp_path / "metric.py"
    os.mkfifo(fifo)
    with pytest.raises(MetricSourceError, match="not a regular file"):
        read_metric(fifo)


def test_from_path_skips_a_fifo_beside_metric_py(tmp_path):
    metric_dir = write_folder(tmp_path / "m")
    os.mkfifo(metric_dir / "pipe.txt")
    assert "pipe.txt" not in read_metric(metric_dir).files


def test_from_path_stops_on_a_huge_folder(tmp_path):
    (tmp_path / "metric.py").write_text("def score(i, o, e=None):\n    return 1.0, {'feedback': ''}\n")
    for index in range(70):
        (tmp_path / f"helper_{index}.py").write_text("")
    with pytest.raises(MetricSourceError, match="in a folder of their own"):
        read_metric(tmp_path)
    # metric.py given as a file brings only what it needs from a busy folder (issue 23 item 13).
    assert list(read_metric(tmp_path / "metric.py").files) == ["metric.py"]


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    with path.open("w") as handle:
        for index in range(4):
            handle.write(
                json.dumps(
                    {
                        "id": f"t{index}",
                        "input": {"message": f"m{index}"},
                        "output": "billing",
                        "expected": {"label": "billing"},
                    }
                )
                + "\n"
            )
    return path


def test_the_cli_checks_and_scores_a_metric_folder_given_as_file_or_folder(tmp_path, data):
    metric_dir = write_folder(tmp_path / "metric")
    for target in (metric_dir / "metric.py", metric_dir):
        done = cli("check", str(target), "--data", str(data))
        assert done.returncode == 0, done.stdout + done.stderr
    done = cli("score", str(metric_dir), "--data", str(data), "--json")
    assert done.returncode == 0, done.stderr
    assert [case["score"] for case in json.loads(done.stdout)["cases"]] == [1.0] * 4


def test_the_cli_names_the_helper_file_and_line_of_an_error(tmp_path):
    metric_dir = write_folder(tmp_path / "metric")
    data = tmp_path / "spam.jsonl"
    data.write_text(json.dumps({"id": "s", "input": {"m": "x"}, "output": "spam", "expected": None}) + "\n")
    done = cli("check", str(metric_dir / "metric.py"), "--data", str(data))
    assert done.returncode == 1
    assert "[grading_helpers.py line 3]" in done.stdout


def test_the_cli_refuses_a_fifo_as_the_metric_without_hanging(tmp_path, data):
    fifo = tmp_path / "metric.py"
    os.mkfifo(fifo)
    done = cli("check", str(fifo), "--data", str(data))
    assert done.returncode == 2
    assert "named pipe (FIFO)" in done.stderr


def test_the_dataset_beside_metric_py_does_not_come_along(tmp_path, data):
    (tmp_path / "metric.py").write_text(
        "import os\n\ndef score(input, output, expected=None):\n"
        "    return 1.0, {'feedback': ' '.join(sorted(os.listdir('.')))}\n"
    )
    done = cli("check", str(tmp_path / "metric.py"), "--data", str(data), "--json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["cases"][0]["feedback"] == "metric.py"


@pytest.mark.parametrize("forged", ["../../etc/passwd.py", "/abs/x.py", "x" * 300 + ".py", ".hidden.py", 3, None])
def test_a_file_name_the_child_sends_is_trusted_only_when_a_folder_could_hold_it(forged):
    from skynet_core.scoring.runner.replies import reply_to_result

    case = Case(id="a", input={}, output="x", expected=None)
    result = reply_to_result(case, {"status": "error", "error": "boom", "line": 2, "file": forged})
    assert result.file == "metric.py"
    result = reply_to_result(case, {"status": "error", "error": "boom", "line": 2, "file": "checks/rules.py"})
    assert result.file == "checks/rules.py" and "(checks/rules.py line 2)" in result.error


def test_closing_a_worker_removes_its_copy_of_the_metric_folder(pool):
    worker = pool.take()
    worker.load(folder(), timeout=30)
    copy = Path(worker.metric_host_dir)
    assert (copy / "grading_helpers.py").read_text() == HELPERS
    worker.close()
    assert not copy.exists()


def test_a_helper_package_and_data_found_through_file_work_like_plain_python(pool):
    source = MetricSource(
        {
            "metric.py": "from pathlib import Path\n\nfrom checks import REGISTRY\n\n"
            "WORDS = (Path(__file__).parent / 'data' / 'words.txt').read_text().split()\n\n\n"
            "def score(input, output, expected=None):\n"
            "    passed = [name for name, check in REGISTRY.items() if check(output, WORDS)]\n"
            "    return len(passed) / len(REGISTRY), {'feedback': ', '.join(passed)}\n",
            "checks/__init__.py": "from .rules import REGISTRY\n",
            "checks/rules.py": "REGISTRY = {'known': lambda out, words: out in words,\n"
            "            'short': lambda out, words: len(out) < 5}\n",
            "data/words.txt": "billing other\n",
        }
    )
    report = check_metric(source, make_cases(3), RunOptions(timeout_s=30, pool=pool, stop_on_timeout=True))
    assert report.ok, report.first_failure
    assert [case.score for case in report.cases] == [0.5, 0.5, 0.5]
    assert report.cases[0].feedback == "known"
