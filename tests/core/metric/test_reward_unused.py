"""A REWARD_SPEC that nothing passes to reward() changes no score: the check passes but says so."""

from __future__ import annotations

import pytest

from skynet_core.cases import Case
from skynet_core.i18n import use_language
from skynet_core.metric.contract import check_metric
from skynet_core.metric.reward_spec import calls_reward
from skynet_core.metric.source import MetricSource
from skynet_core.results import StageName, StageStatus
from skynet_core.scoring import RunOptions

SPEC = (
    'REWARD_SPEC = {"weights": {"accuracy": 0.7, "speed": 0.2, "cost": 0.1}, '
    '"accuracy": {}, "speed": {"reference": 2000}, "cost": {"reference": 0.01}}\n'
)
CALLS_SKYNET_REWARD = (
    "import skynet\n" + SPEC + "def score(i, o, e=None):\n    return skynet.reward(REWARD_SPEC, 1.0, 'ok')\n"
)
HELPER = "from skynet import reward\ndef wrap(s):\n    return reward(s, 1.0, 'x')\n"
IGNORES_SPEC = SPEC + (
    "def score(input, output, expected=None):\n"
    "    ok = output == expected\n"
    "    return (1.0 if ok else 0.0), {'feedback': 'Correct.' if ok else 'Wrong answer.'}\n"
)
USES_SPEC = (
    "from skynet import reward\n"
    + SPEC
    + (
        "def score(input, output, expected=None):\n"
        "    ok = output == expected\n"
        "    return reward(REWARD_SPEC, 1.0 if ok else 0.0, 'Correct.' if ok else 'Wrong answer.')\n"
    )
)
CASES = [Case(id=f"c{i}", input={"q": i}, output="a", expected="a") for i in range(3)]


@pytest.mark.parametrize(
    ("files", "expected"),
    [
        ({"metric.py": IGNORES_SPEC}, False),
        ({"metric.py": USES_SPEC}, True),
        (
            {
                "metric.py": "import skynet\n"
                + SPEC
                + "def score(i, o, e=None):\n    return skynet.reward(REWARD_SPEC, 1.0, 'ok')\n"
            },
            True,
        ),
        # reward() called from a helper module of the folder counts.
        (
            {
                "metric.py": IGNORES_SPEC,
                "helpers.py": "from skynet import reward\ndef wrap(s):\n    return reward(s, 1.0, 'x')\n",
            },
            True,
        ),
        # A file that does not parse is the load stage's business, not a reason to warn.
        ({"metric.py": "def score(:\n"}, True),
        # A string that mentions reward( is not a call.
        ({"metric.py": SPEC + "def score(i, o, e=None):\n    return 1.0, {'feedback': 'reward(x)'}\n"}, False),
    ],
)
def test_calls_reward_reads_every_python_file_of_the_folder(files, expected):
    assert calls_reward(files) is expected


def test_the_check_warns_when_metric_py_never_calls_reward(pool):
    report = check_metric(IGNORES_SPEC, CASES, RunOptions(pool=pool, stop_on_timeout=True))
    stage = report.stage(StageName.REWARD_SPEC)
    assert stage.status is StageStatus.PASSED
    assert "never calls reward()" in stage.warning
    assert stage.to_json()["warning"] == stage.warning
    assert report.ok  # a caveat, not a failure


def test_no_warning_when_the_spec_is_used_or_absent(pool):
    used = check_metric(MetricSource({"metric.py": USES_SPEC}), CASES, RunOptions(pool=pool, stop_on_timeout=True))
    assert used.stage(StageName.REWARD_SPEC).warning == ""
    plain = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Correct.'}\n"
    absent = check_metric(plain, CASES, RunOptions(pool=pool, stop_on_timeout=True))
    assert absent.stage(StageName.REWARD_SPEC).status is StageStatus.SKIPPED
    assert absent.stage(StageName.REWARD_SPEC).warning == ""


def test_the_warning_is_in_chinese_for_a_chinese_reader(pool):
    with use_language("zh_CN"):
        report = check_metric(IGNORES_SPEC, CASES, RunOptions(pool=pool, stop_on_timeout=True))
    warning = report.stage(StageName.REWARD_SPEC).warning
    assert "reward()" in warning and "REWARD_SPEC" in warning
    assert "从未调用" in warning
