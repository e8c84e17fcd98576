"""Chinese translations of the messages shown as plain text mark code as the English does: the check's stages, a
case's error, the runner's and the dataset readers' messages are drawn literally (and printed by the command line),
where a backtick is a stray character, not code ("找到 `score(input, output, expected=None)`", "`REWARD_SPEC` 有效").
A text drawn as markdown (a caption, a tooltip) may mark code: there it renders as code."""

from __future__ import annotations

from skynet_core.i18n import catalog as i18n_catalog
from skynet_core.i18n import use_language
from skynet_core.metric.contract import check_metric
from skynet_core.metric.source import MetricSource
from skynet_core.scoring import RunOptions
from tests.case_factory import make_cases

REWARD_METRIC = """from skynet import reward

REWARD_SPEC = {"weights": {"accuracy": 1, "speed": 0, "cost": 0}, "accuracy": {}}

def score(input, output, expected=None):
    return reward(REWARD_SPEC, 1.0, "Right.")
"""


# Where the messages shown as plain text are written: the check, the runner and the sandbox (a stage's message, a
# case's error, the command line) and the dataset readers (escaped on the Data page, plain on the command line).
PLAIN_TEXT = (
    "skynet_core/metric/contract.py",
    "skynet_core/scoring/runner/",
    "skynet_core/scoring/sandbox/",
    "skynet_core/datasets/",
)


def test_no_message_shown_as_plain_text_gains_backticks_in_chinese() -> None:
    catalog = i18n_catalog.merged("zh_CN")
    added = []
    for found in i18n_catalog.extract():
        if not any(path.startswith(PLAIN_TEXT) for path, _line in found.locations):
            continue
        sources = found.message if isinstance(found.message, tuple) else (found.message,)
        entry = catalog.get(sources[0])
        targets = entry.string if isinstance(entry.string, tuple | list) else (entry.string,)
        if not any("`" in source for source in sources) and any("`" in str(target) for target in targets):
            added.append(f"{sources[0]!r} -> {targets[0]!r}")
    assert not added, "drop the backticks the English does not have:\n" + "\n".join(added)


def test_the_checks_messages_in_chinese_have_no_stray_backticks() -> None:
    with use_language("zh_CN"):
        report = check_metric(MetricSource.of(REWARD_METRIC), make_cases(1), RunOptions(timeout_s=30))
    messages = {stage.name: stage.message for stage in report.stages}
    assert messages["signature"].startswith("找到 score(input, output, expected=None)")
    assert messages["reward_spec"] == "REWARD_SPEC 有效"
    assert not any("`" in (message or "") for message in messages.values()), messages
