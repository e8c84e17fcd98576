"""The command line in Simplified Chinese: --lang zh_CN or LANG=zh_CN.UTF-8 give the text report and --help
in Chinese; the JSON output keeps its keys and status values."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from skynet_core.cli import cli_language, run
from tests.core.cli import test_cli
from tests.core.cli.test_cli import GOOD, ROOT, write_metric

data = test_cli.data  # the fixture: 12 cases

BARE = "def score(input, output, expected=None):\n    return 0.8\n"


def cli_env(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {key: value for key, value in os.environ.items() if key not in ("LANG", "LC_ALL", "LC_MESSAGES")}
    return subprocess.run(
        [sys.executable, "-m", "skynet_core", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**clean, "PYTHONPATH": str(ROOT), **env},
    )


@pytest.mark.parametrize(
    ("argv", "env", "expected"),
    [
        (["check", "--lang", "zh_CN", "m.py"], {}, "zh_CN"),
        (["--lang=zh-CN", "check"], {"LANG": "en_US.UTF-8"}, "zh_CN"),
        (["check", "--lang", "en"], {"LANG": "zh_CN.UTF-8"}, "en"),
        (["check"], {"LANG": "zh_CN.UTF-8"}, "zh_CN"),
        (["check"], {"LC_ALL": "C.UTF-8", "LANG": "zh_CN.UTF-8"}, "en"),
        (["check", "--", "--lang", "zh_CN"], {}, "en"),
    ],
)
def test_the_language_comes_from_lang_else_the_environment(argv, env, expected):
    assert cli_language(argv, env) == expected


def test_check_with_lang_zh_cn_prints_the_report_in_chinese(tmp_path, data):
    metric = write_metric(tmp_path, BARE)
    out, err = io.StringIO(), io.StringIO()
    status = run(["check", str(metric), "--data", str(data), "--lang", "zh_CN"], stdout=out, stderr=err)
    text = out.getvalue()
    assert status == 1, err.getvalue()
    assert "metric.py 的契约检查（隔离：" in text
    assert "✗ 指标返回值" in text
    assert '没有附加信息；请返回 (0.8, {"feedback": "..."})' in text
    assert "指标在“指标返回值”阶段违反契约。" in text
    # The language was the run's only: the next run, without --lang, is in English again.
    out = io.StringIO()
    run(["check", str(metric), "--data", str(data), "--lang", "en"], stdout=out, stderr=io.StringIO())
    assert "The metric breaks the contract at metric return value." in out.getvalue()


def test_score_under_lang_zh_cn_utf8_prints_chinese_and_help_is_chinese(tmp_path, data):
    done = cli_env("score", str(write_metric(tmp_path, GOOD)), "--data", str(data), LANG="zh_CN.UTF-8")
    assert done.returncode == 0, done.stderr
    assert "✓ 指标返回值" in done.stdout
    assert "12 个用例中 12 个已评分，平均分数" in done.stdout
    assert "每个用例都已评分。" in done.stdout
    helped = cli_env("check", "--help", LANG="zh_CN.UTF-8")
    assert helped.returncode == 0
    assert helped.stdout.startswith("用法：python -m skynet_core check")
    assert "在 3 个契约检查样例上运行契约检查" in helped.stdout
    assert "指标超时：每次调用 score 的秒数" in helped.stdout
    english = cli_env("--help", LANG="C.UTF-8")
    assert english.stdout.startswith("usage: python -m skynet_core")


def test_json_keys_and_status_values_do_not_change_with_the_language(tmp_path, data):
    metric = str(write_metric(tmp_path, BARE))
    reports = {}
    for lang in ("en", "zh_CN"):
        out = io.StringIO()
        run(["check", metric, "--data", str(data), "--json", "--lang", lang], stdout=out, stderr=io.StringIO())
        reports[lang] = json.loads(out.getvalue())
    en, zh = reports["en"], reports["zh_CN"]
    assert set(en) == set(zh)
    for one, other in zip(en["stages"], zh["stages"], strict=True):
        assert set(one) == set(other)
        assert (one["name"], one["status"], one["line"]) == (other["name"], other["status"], other["line"])
    assert [case["status"] for case in en["cases"]] == [case["status"] for case in zh["cases"]] == ["invalid"] * 3
    assert [set(case) for case in en["cases"]] == [set(case) for case in zh["cases"]]
    assert "没有附加信息" in zh["stages"][3]["message"]


def test_a_usage_error_is_reported_in_chinese(tmp_path):
    err = io.StringIO()
    status = run(["check", "m.py", "--data", "x.jsonl", "--lang", "zh_CN", "--max-calls", "0"], stderr=err)
    assert status == 2
    assert "错误：--max-calls 必须在 1 到 10000 之间" in err.getvalue()


def test_the_cli_does_not_import_babel_to_start():
    code = "import sys, skynet_core.cli; print('babel' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=Path(ROOT), timeout=60)
    assert done.stdout.strip() == "False", done.stderr
