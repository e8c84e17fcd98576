"""The command line: exit codes, the --json schema, --out formats, and the seed table through the CLI."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest

from tests.core.command_line import cli_completed as cli
from tests.core.command_line import cli_process

ROOT = Path(__file__).resolve().parents[3]
GOOD = (
    "def score(input, output, expected=None):\n"
    "    if expected is None:\n"
    "        return 0.5, {'feedback': 'No expected label.'}\n"
    "    ok = output == expected['label']\n"
    "    return (1.0 if ok else 0.0), {'feedback': f\"Expected {expected['label']!r}, got {output!r}.\","
    " 'scores': {'match': 1.0 if ok else 0.0}}\n"
)


@pytest.fixture
def data(tmp_path: Path) -> Path:
    path = tmp_path / "cases.jsonl"
    with path.open("w") as handle:
        for index in range(12):
            handle.write(
                json.dumps(
                    {
                        "id": f"t{index}",
                        "input": {"message": f"m{index}"},
                        "output": "billing" if index % 3 else "other",
                        "expected": {"label": "billing"} if index % 4 else None,
                    }
                )
                + "\n"
            )
    return path


def write_metric(tmp_path: Path, source: str) -> Path:
    path = tmp_path / "metric.py"
    path.write_text(source)
    return path


def test_check_passes_with_exit_0_and_prints_the_stages(tmp_path, data):
    done = cli("check", str(write_metric(tmp_path, GOOD)), "--data", str(data))
    assert done.returncode == 0, done.stderr
    assert "✓ metric return value" in done.stdout
    assert "isolation:" in done.stdout
    assert "The metric meets the contract." in done.stdout


def test_check_json_follows_the_schema(tmp_path, data):
    done = cli("check", str(write_metric(tmp_path, GOOD)), "--data", str(data), "--json")
    report = json.loads(done.stdout)
    assert report["ok"] is True
    assert [stage["name"] for stage in report["stages"]] == ["load", "signature", "reward_spec", "return_value"]
    assert {stage["status"] for stage in report["stages"]} <= {"passed", "failed", "skipped", "not_run"}
    assert len(report["cases"]) == 3
    for case in report["cases"]:
        assert {"id", "split", "status", "score", "scores", "feedback", "error", "duration_ms"} <= set(case)
        assert case["status"] in ("ok", "error", "timeout", "invalid")


@pytest.mark.parametrize(
    ("expression", "words"),
    [
        ("0.8", "bare number"),
        ('(0.8, "Close.")', "side information is a string"),
        ("(0.8, {})", "no 'feedback' key"),
        ('("0.8", {"feedback": "OK"})', "score is a string"),
        ('(0.8, {"feedback": "OK", "scores": {"a": "high"}})', "named score 'a' is a string"),
        ('(True, {"feedback": "OK"})', "return 1.0 or 0.0"),
    ],
)
def test_check_exits_1_with_the_message_for_each_invalid_return(tmp_path, data, expression, words):
    metric = write_metric(tmp_path, f"def score(input, output, expected=None):\n    return {expression}\n")
    done = cli("check", str(metric), "--data", str(data), "--json")
    assert done.returncode == 1
    stage = json.loads(done.stdout)["stages"][3]
    assert stage["status"] == "failed"
    assert words in stage["message"]


def test_check_reports_a_syntax_error_at_load_with_the_line(tmp_path, data):
    done = cli("check", str(write_metric(tmp_path, "def score(:\n    pass\n")), "--data", str(data))
    assert done.returncode == 1
    assert "metric.py line 1" in done.stdout
    assert "breaks the contract at load" in done.stdout


@pytest.mark.parametrize(
    "args",
    [
        ["check", "METRIC", "--data", "missing.jsonl"],
        ["check", "METRIC", "--data", "DATA", "--timeout", "0"],
        ["check", "METRIC", "--data", "DATA", "--timeout", "601"],
        ["score", "METRIC", "--data", "DATA", "--concurrency", "0"],
        ["score", "METRIC", "--data", "DATA", "--out", "results.xlsx"],
        ["check", "no-such-metric.py", "--data", "DATA"],
        ["check", "METRIC"],
        ["frobnicate"],
    ],
)
def test_usage_and_input_problems_exit_2_with_a_message(tmp_path, data, args):
    metric = write_metric(tmp_path, GOOD)
    args = [str(metric) if arg == "METRIC" else str(data) if arg == "DATA" else arg for arg in args]
    done = cli_process(*args)  # argparse's own errors end the process: the command's, as a person runs it
    assert done.returncode == 2
    assert "error" in done.stderr


def test_check_exits_2_on_malformed_data(tmp_path):
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"input": {"a": 1}, "output": "x"}\n{"input": \n')
    done = cli("check", str(write_metric(tmp_path, GOOD)), "--data", str(bad))
    assert done.returncode == 2
    assert "line 2" in done.stderr


@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_score_writes_every_case_to_the_out_file(tmp_path, data, suffix):
    out = tmp_path / f"results{suffix}"
    done = cli("score", str(write_metric(tmp_path, GOOD)), "--data", str(data), "--out", str(out), "--concurrency", "2")
    assert done.returncode == 0, done.stdout + done.stderr
    if suffix == ".jsonl":
        rows = [json.loads(line) for line in out.read_text().splitlines()]
        assert [row["id"] for row in rows] == [f"t{n}" for n in range(12)]
    else:
        frame = pd.read_csv(out) if suffix == ".csv" else pd.read_parquet(out)
        assert list(frame["id"]) == [f"t{n}" for n in range(12)]
        assert "score.match" in frame.columns


def test_score_exits_1_when_a_case_errs_and_still_scores_the_rest(tmp_path, data):
    source = GOOD.replace("    ok = output", "    assert output != 'other', 'cannot score other'\n    ok = output")
    done = cli("score", str(write_metric(tmp_path, source)), "--data", str(data), "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    statuses = [case["status"] for case in report["cases"]]
    assert len(statuses) == 12
    assert statuses.count("error") == 3  # t3, t6, t9; t0 has no expected label and returns first
    assert "AssertionError: cannot score other" in report["cases"][3]["error"]


def test_score_json_names_the_isolation_level(tmp_path, data):
    done = cli("score", str(write_metric(tmp_path, GOOD)), "--data", str(data), "--json")
    assert json.loads(done.stdout)["isolation"] in ("full", "reduced")


def test_score_json_lines_streams_every_case_in_order_then_the_report(tmp_path, data):
    source = GOOD.replace("    ok = output", "    assert output != 'other', 'cannot score other'\n    ok = output")
    out = tmp_path / "results.jsonl"
    done = cli(
        "score",
        str(write_metric(tmp_path, source)),
        "--data",
        str(data),
        "--json-lines",
        "--out",
        str(out),
        "--concurrency",
        "2",
    )
    assert done.returncode == 1
    *cases, report = [json.loads(line) for line in done.stdout.splitlines()]
    assert [case["id"] for case in cases] == [f"t{n}" for n in range(12)]
    assert [case["status"] for case in cases].count("error") == 3
    assert cases[3]["status"] == "error" and "cannot score other" in cases[3]["error"]
    assert [json.loads(line) for line in out.read_text().splitlines()] == cases
    assert report["ok"] is False
    assert report["summary"]["cases"] == 12 and report["summary"]["by_status"] == {"ok": 9, "error": 3}
    assert "cases" not in report and report["judge"]["cases"] == 12


def test_score_streams_many_cases_without_losing_one(tmp_path):
    data = tmp_path / "many.jsonl"
    data.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"c{n}",
                    "input": {"n": n},
                    "output": "billing" if n % 7 else "x",
                    "expected": {"label": "billing"},
                }
            )
            + "\n"
            for n in range(20000)
        )
    )
    source = GOOD.replace("    ok = output", "    assert input['n'] != 12345, 'case 12345 fails'\n    ok = output")
    out = tmp_path / "results.csv"
    done = cli("score", str(write_metric(tmp_path, source)), "--data", str(data), "--out", str(out), "--json")
    assert done.returncode == 1
    report = json.loads(done.stdout)
    assert [case["id"] for case in report["cases"]] == [f"c{n}" for n in range(20000)]
    assert [case["id"] for case in report["cases"] if case["status"] != "ok"] == ["c12345"]
    assert list(pd.read_csv(out)["id"]) == [f"c{n}" for n in range(20000)]


def test_score_text_reports_the_count_and_mean_of_a_streamed_run(tmp_path, data):
    done = cli("score", str(write_metric(tmp_path, GOOD)), "--data", str(data))
    assert done.returncode == 0, done.stderr
    labelled = [n for n in range(12) if n % 4]
    mean = (sum(1.0 for n in labelled if n % 3) + 0.5 * (12 - len(labelled))) / 12
    assert f"12 of 12 cases scored, mean score {mean:.3f}" in done.stdout


def test_score_refuses_an_out_file_it_cannot_write_before_scoring(tmp_path, data):
    done = cli(
        "score",
        str(write_metric(tmp_path, GOOD)),
        "--data",
        str(data),
        "--out",
        str(tmp_path / "no-such-folder" / "r.jsonl"),
    )
    assert done.returncode == 2
    assert "no-such-folder does not exist" in done.stderr and done.stdout == ""


def run_probe(probe: str, data_dir) -> subprocess.CompletedProcess[str]:
    """``probe`` run by a fresh Python in the project, with none of the environment's SKYNET_ settings."""
    env = {key: value for key, value in os.environ.items() if not key.startswith("SKYNET_")}
    return subprocess.run(
        [sys.executable, "-c", probe],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**env, "SKYNET_DATA_DIR": str(data_dir)},
    )


def test_a_run_without_a_model_never_imports_litellm(tmp_path, data):
    probe = (
        "import sys\nfrom skynet_core.cli import run\n"
        f"code = run(['check', {str(write_metric(tmp_path, GOOD))!r}, '--data', {str(data)!r}])\n"
        "print('litellm imported' if 'litellm' in sys.modules else 'no litellm', code)\n"
    )
    done = run_probe(probe, tmp_path)
    assert done.stdout.splitlines()[-1] == "no litellm 0", done.stdout + done.stderr


# What `score` of a plain JSON Lines file has no use for: the readers of tables, roles and candidate files, the
# engines, the agreement with human scores, and the heavy packages behind them.
NOT_FOR_A_PLAIN_SCORE = (
    "pandas",
    "pyarrow",
    "numpy",
    "plotly",
    "scipy",
    "litellm",
    "skynet_core.datasets.frames",
    "skynet_core.datasets.candidates",
    "skynet_core.datasets.tables",
    "skynet_core.engines.gepa_adapter",
    "skynet_core.engines.task",
    "skynet_core.human.files",
    "skynet_core.human.pairing",
)


def test_score_of_a_plain_jsonl_file_imports_only_what_it_needs(tmp_path, data):
    probe = (
        "import atexit, runpy, sys\n"
        f"unused = {NOT_FOR_A_PLAIN_SCORE!r}\n"
        "atexit.register(lambda: print('imported:', sorted(name for name in unused if name in sys.modules)))\n"
        f"sys.argv = ['skynet_core', 'score', {str(write_metric(tmp_path, GOOD))!r}, '--data', {str(data)!r}]\n"
        "runpy.run_module('skynet_core', run_name='__main__')\n"
    )
    done = run_probe(probe, tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "imported: []", done.stdout + done.stderr


def test_score_split_takes_only_that_splits_cases(tmp_path):
    data = tmp_path / "split.jsonl"
    data.write_text(
        "".join(
            json.dumps(
                {
                    "id": f"c{n}",
                    "input": {"n": n},
                    "output": "billing",
                    "expected": {"label": "billing"},
                    "split": "val" if n % 3 == 0 else "train",
                }
            )
            + "\n"
            for n in range(30)
        )
    )
    metric = str(write_metric(tmp_path, GOOD))
    done = cli("score", metric, "--data", str(data), "--split", "val", "--json-lines")
    assert done.returncode == 0, done.stderr
    assert [json.loads(line)["id"] for line in done.stdout.splitlines()[:-1]] == [f"c{n}" for n in range(0, 30, 3)]
    missing = cli("score", metric, "--data", str(data), "--split", "test")
    assert missing.returncode == 2 and "the splits are train, val" in missing.stderr


def test_ctrl_c_stops_score_with_a_message_and_leaves_out_as_it_was(tmp_path: Path) -> None:
    """Ctrl+C (SIGINT) mid-run: the run is cancelled, the terminal says so in a line (no traceback), the exit
    status is 130 as for any interrupted command, and the --out file that was there before is untouched."""
    metric = tmp_path / "metric.py"
    metric.write_text(
        "import time\n\ndef score(input, output, expected=None):\n"
        "    time.sleep(0.5)\n    return 1.0, {'feedback': 'ok'}\n"
    )
    data = tmp_path / "cases.jsonl"
    data.write_text("".join(json.dumps({"id": f"c{n}", "input": {"n": n}, "output": "x"}) + "\n" for n in range(400)))
    out = tmp_path / "r.jsonl"
    out.write_text("the last run's results\n")
    command = [sys.executable, "-m", "skynet_core", "score", str(metric), "--data", str(data), "--out", str(out)]
    command.append("--json-lines")
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        first = process.stdout.readline()  # the first case's line: cases are being scored
        assert '"id":"c0"' in first.replace(" ", ""), first
        process.send_signal(signal.SIGINT)
        stdout, stderr = process.communicate(timeout=60)
    finally:
        process.kill()
    assert process.returncode == 130, (stdout, stderr)
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert "interrupted" in stderr and "r.jsonl" in stderr
    assert out.read_text() == "the last run's results\n"
