"""The contract check in Simplified Chinese: the seven return values of the documentation's table give
Chinese messages that name the fix, at the stage 指标返回值, and the JSON keeps its keys and status values."""

from __future__ import annotations

import dataclasses
import re
import threading
from contextvars import copy_context

import orjson
import pytest

from skynet_core.cases import Observation
from skynet_core.i18n import use_language
from skynet_core.results import StageName, StageStatus
from skynet_core.workspace.jobs import Job
from tests.case_factory import make_cases
from tests.core.metric.test_contract import check, metric_returning

CJK = re.compile(r"[\u4e00-\u9fff]")


def chinese(text: str) -> bool:
    return bool(CJK.search(text))


@pytest.mark.parametrize(
    ("expression", "fix"),
    [
        ("0.8", '请返回 (0.8, {"feedback": "..."})'),
        ('(0.8, "Close.")', "请包一层：(0.8, {\"feedback\": 'Close.'})"),
        ("(0.8, {})", '请添加 "feedback"'),
        ('("0.8", {"feedback": "OK"})', "请返回数字 0.8，而不是文本"),
        (
            '(0.8, {"feedback": "OK", "scores": {"a": "high"}})',
            "命名分数 'a'是字符串（'high'）；请返回数字，而不是文本",
        ),
    ],
)
def test_each_invalid_return_value_of_the_table_fails_in_chinese_with_its_fix(pool, expression, fix):
    with use_language("zh_CN"):
        report = check(pool, metric_returning(expression))
        stage = report.stage(StageName.RETURN_VALUE)
        assert stage.status is StageStatus.FAILED
        assert stage.label == "指标返回值"
        assert stage.message.startswith("用例 case-0 返回了无效的值：")
        assert fix in stage.message, stage.message
        assert chinese(report.cases[0].error)
        head = [stage.to_json() for stage in report.stages]
    assert [item["name"] for item in head] == ["load", "signature", "reward_spec", "return_value"]
    assert [item["status"] for item in head] == ["passed", "passed", "skipped", "failed"]
    assert set(head[0]) == {"name", "label", "status", "message", "line", "case_id", "file", "warning"}
    assert orjson.loads(report.cases[0].to_json_bytes())["status"] == "invalid"


@pytest.mark.parametrize(
    "expression",
    ['(0.8, {"feedback": "Close. Missing the date."})', '[1.0, {"feedback": "OK", "scores": {"format": 1.0}}]'],
)
def test_the_valid_return_values_of_the_table_pass_in_chinese(pool, expression):
    with use_language("zh_CN"):
        report = check(pool, metric_returning(expression))
        assert report.ok
        messages = {stage.name: stage.message for stage in report.stages}
    assert messages[StageName.LOAD] == "metric.py 可以编译并导入"
    assert (
        messages[StageName.SIGNATURE]
        == "找到 score(input, output, expected=None)；Skynet 将调用 score(input, output, expected)"
    )
    assert messages[StageName.REWARD_SPEC] == "metric.py 没有定义 REWARD_SPEC"
    assert messages[StageName.RETURN_VALUE] == "3 个用例都返回了有效的（分数，附加信息）对"


def test_signature_and_load_failures_name_the_fix_in_chinese(pool):
    with use_language("zh_CN"):
        missing = check(pool, "def scorer(input, output):\n    return 1.0, {'feedback': ''}\n")
        asynchronous = check(pool, "async def score(input, output, expected=None):\n    return 1.0, {'feedback': ''}\n")
        broken = check(pool, "def score(input, output\n")
    assert "没有定义名为 `score` 的函数；请添加 `def score(input, output, expected=None):`" in missing.stages[1].message
    assert "请改为普通的 `def`" in asynchronous.stages[1].message
    assert broken.stages[0].status is StageStatus.FAILED and "metric.py 第 1 行" in broken.stages[0].message


def test_the_same_pool_answers_each_check_in_its_own_language(pool):
    english = check(pool, metric_returning("0.8"))
    with use_language("zh_CN"):
        chinese_report = check(pool, metric_returning("0.8"))
    again = check(pool, metric_returning("0.8"))
    assert "bare number (0.8) with no side information" in english.stages[3].message
    assert "没有附加信息" in chinese_report.stages[3].message
    assert again.stages[3].message == english.stages[3].message


def test_a_job_follows_the_language_of_the_session_that_started_it(pool):
    seen: dict[str, str] = {}

    def run(job):
        report = check(pool, metric_returning("0.8"))
        seen["message"] = report.stages[3].message
        return report

    def start():
        with use_language("zh_CN"):
            Job("check").start(run).wait(60)

    thread = threading.Thread(target=copy_context().run, args=(start,))
    thread.start()
    thread.join()
    assert "没有附加信息" in seen["message"]


def test_a_case_that_times_out_says_so_in_chinese(pool):
    with use_language("zh_CN"):
        report = check(
            pool,
            "import time\ndef score(input, output, expected=None):\n    time.sleep(30)\n",
            cases=make_cases(1),
            timeout=1,
        )
    message = report.stages[3].message
    assert "用例 case-0 超时" in message and "秒内完成" in message and "指标超时" in message, message


REWARD_METRIC = """
from skynet import reward

REWARD_SPEC = {
    "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1},
    "speed": {"reference": 2000},
    "cost": {"reference": 0.01},
}

def score(input, output, expected=None):
    return reward(REWARD_SPEC, 1.0, "Correct.")
"""


def test_the_reward_lines_the_sandbox_writes_follow_the_language(pool):
    with use_language("zh_CN"):
        report = check(pool, REWARD_METRIC)
    assert report.ok, report.stages
    assert report.stages[2].message == "REWARD_SPEC 有效"
    feedback = report.cases[0].feedback
    assert feedback.startswith("Correct.\n"), feedback  # the metric's own text stays as it wrote it
    assert "\n速度：850 毫秒，参考值 2000 毫秒，得分 0.70。\n成本：$0.0020，参考值 $0.01，得分 0.83。" in feedback
    unmeasured = [dataclasses.replace(case, observation=Observation()) for case in make_cases(1)]
    with use_language("zh_CN"):
        report = check(pool, REWARD_METRIC, cases=unmeasured)
    assert "此用例未测得速度，因此速度得分为 0。" in report.cases[0].feedback
    english = check(pool, REWARD_METRIC, cases=unmeasured)
    assert "Speed was not measured for this case, so it scored 0." in english.cases[0].feedback


def test_reward_lines_and_reward_spec_errors_in_the_studio_process():
    from skynet_core.reward import RewardSpecError, reward_pair, validate_reward_spec

    spec = {
        "weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.0},
        "speed": {"reference": 2000},
        "cost": {"reference": 0.01},
    }
    with use_language("zh_CN"):
        _, side = reward_pair(spec, 1.0, "", 850.0, 0.002)
        with pytest.raises(RewardSpecError, match="缺少 'speed'"):
            validate_reward_spec({"weights": {"accuracy": 1, "cost": 0}})
    assert side["feedback"].splitlines() == [
        "速度：850 毫秒，参考值 2000 毫秒，得分 0.70。",
        "成本：$0.0020，参考值 $0.01，得分 0.83（权重为 0，不计入）。",
    ]


def test_a_bad_reward_spec_fails_its_stage_in_chinese(pool):
    source = REWARD_METRIC.replace('"speed": 0.2, ', "")
    with use_language("zh_CN"):
        report = check(pool, source)
        stage = report.stage(StageName.REWARD_SPEC)
        assert stage.label == "奖励规格"
    assert stage.status is StageStatus.FAILED
    assert "缺少 'speed'" in stage.message and "请给出准确率、速度和成本三者的权重" in stage.message


def test_a_crash_is_described_in_chinese(pool):
    source = "import os, signal\ndef score(input, output, expected=None):\n    os.kill(os.getpid(), signal.SIGSEGV)\n"
    with use_language("zh_CN"):
        report = check(pool, source, cases=make_cases(1))
    message = report.stages[3].message
    assert "用例 case-0 出错：指标的进程退出了：SIGSEGV（段错误：原生代码崩溃或无限递归）" in message, message
