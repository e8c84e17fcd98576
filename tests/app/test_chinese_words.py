"""What a Chinese reader sees where English was left (issue 44): the Split picker's "all", a case's status in the
per-case tables, reward lines of a run scored in English, Kendall's tau on Reward trade-offs, "token" on Settings."""

from __future__ import annotations

from pathlib import Path

from streamlit.testing.v1 import AppTest

from skynet_core.examples import EXAMPLE_METRICS
from skynet_core.i18n import use_language
from skynet_core.llm import ModelConfig, ModelSettings
from skynet_core.metric.source import MetricSource
from skynet_core.results import CaseResult, CaseStatus
from skynet_core.reward import reward_pair
from skynet_core.store import Store
from skynet_core.workspace import Workspace
from tests.app.harness import open_app, run_until

SPEC = {"weights": {"accuracy": 0.7, "speed": 0.3, "cost": 0.0}, "speed": {"reference": 2000}}
METRIC = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Right.'}\n"


def scored_in_english(data_dir: Path) -> str:
    """A run of the cases in use kept as an English session keeps it: the first case ok with reward lines, the
    second an error. Returns the first case's feedback as stored."""
    ws = Workspace(data_dir)
    ws.drafts.replace(METRIC, "test")
    cases = ws.data.in_use().cases[:2]
    with use_language("en"):
        _score, side = reward_pair(SPEC, 1.0, "Correct: billing.", 850.0, None)
    results = [
        CaseResult(cases[0].id, cases[0].split, score=0.9, feedback=side["feedback"]),
        CaseResult(cases[1].id, cases[1].split, CaseStatus.ERROR, error="KeyError: 'label'"),
    ]
    ws.runs.keep(MetricSource.of(METRIC), results, ws.settings.provenance(METRIC), list(cases))
    return str(side["feedback"])


def author_table(at: AppTest):
    return next(frame.value for frame in at.dataframe if "status" in frame.value.columns)


def test_the_split_picker_says_all_in_chinese(data_dir) -> None:
    at = open_app("author", language="zh_CN")
    picker = at.selectbox(key="author.split")
    assert picker.options[0] == "全部"
    assert picker.value == ""


def test_the_per_case_table_gives_statuses_and_reward_lines_in_chinese(data_dir) -> None:
    english = scored_in_english(data_dir)
    assert "Speed: 850 ms against a 2000 ms reference" in english
    at = open_app("author", language="zh_CN")
    table = author_table(at)
    assert list(table["status"]) == ["成功", "错误"]
    assert table["feedback"][0] == "Correct: billing.\n速度：850 毫秒，参考值 2000 毫秒，得分 0.70。"


def test_a_runs_table_in_chinese_gives_statuses_and_reward_lines_in_chinese(data_dir) -> None:
    scored_in_english(data_dir)
    at = open_app("runs", language="zh_CN")
    table = next(frame.value for frame in at.dataframe if "status" in frame.value.columns)
    assert set(table["status"]) == {"成功", "错误"}
    assert any("速度：850 毫秒" in text for text in table["feedback"])


def test_rank_stability_reads_without_the_word_tau(data_dir: Path) -> None:
    Store(data_dir).save_draft(EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8"))
    at = open_app("tradeoffs", language="zh_CN")
    at.button(key="tradeoffs.score").click().run()
    run_until(at, lambda at: any(m.label.startswith("排名稳定性") for m in at.metric), 120, what="the ranking")
    stability = next(m for m in at.metric if m.label.startswith("排名稳定性"))
    assert stability.value.startswith("τ ") and "tau" not in stability.value + stability.help


def test_the_price_fields_say_tokens_as_every_page_does(data_dir: Path) -> None:
    Workspace(data_dir).settings.save_models(ModelSettings(metric=ModelConfig("openai/judge", "http://127.0.0.1:9/v1")))
    at = open_app("settings", language="zh_CN")
    labels = [field.label for field in at.number_input if field.key.startswith("settings.metric.price")]
    assert labels == ["每百万输入词元美元价", "每百万输出词元美元价"]


def test_the_trade_offs_controls_write_milliseconds_as_every_page_does(data_dir: Path) -> None:
    Store(data_dir).save_draft(EXAMPLE_METRICS["Accuracy, speed and cost"].read_text(encoding="utf-8"))
    at = open_app("tradeoffs", language="zh_CN")
    labels = [field.label for field in at.number_input]
    assert "速度参考值（毫秒）" in labels, labels
