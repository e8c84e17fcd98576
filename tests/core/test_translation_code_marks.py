"""Chinese translations mark code as the English does: the check's messages, a case's error and most of what metric
code or the runner says are shown literally (plain text, the command line, escaped markdown), where a backtick is a
stray character, not code ("找到 `score(input, output, expected=None)`", "`REWARD_SPEC` 有效")."""

from __future__ import annotations

from skynet_core import i18n_catalog
from skynet_core.i18n import use_language
from skynet_core.metric_source import MetricSource
from skynet_core.scoring import RunOptions, check
from tests.case_factory import make_cases

REWARD_METRIC = """from skynet import reward

REWARD_SPEC = {"weights": {"accuracy": 1, "speed": 0, "cost": 0}, "accuracy": {}}

def score(input, output, expected=None):
    return reward(REWARD_SPEC, 1.0, "Right.")
"""


def test_no_translation_adds_backticks_its_english_does_not_have() -> None:
    added = []
    for message in i18n_catalog.merged("zh_CN"):
        sources = message.id if isinstance(message.id, tuple) else (message.id,)
        targets = message.string if isinstance(message.string, tuple) else (message.string,)
        if message.id and not any("`" in source for source in sources) and any("`" in str(t) for t in targets):
            added.append(f"{sources[0]!r} -> {targets[0]!r}")
    assert not added, "drop the backticks the English does not have:\n" + "\n".join(added)


def test_the_checks_messages_in_chinese_have_no_stray_backticks() -> None:
    with use_language("zh_CN"):
        report = check(MetricSource.of(REWARD_METRIC), make_cases(1), RunOptions(timeout_s=30))
    messages = {stage.name: stage.message for stage in report.stages}
    assert messages["signature"].startswith("找到 score(input, output, expected=None)")
    assert messages["reward_spec"] == "REWARD_SPEC 有效"
    assert not any("`" in (message or "") for message in messages.values()), messages
