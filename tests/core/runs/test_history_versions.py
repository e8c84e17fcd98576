"""Item 12 (first half) of issue 23 and the History polish: every scored text is a version, version names
the studio wrote read in the reader's language, and a diff never joins two lines."""

from __future__ import annotations

import pytest
from i18n_scan import english

from skynet_core.i18n import use_language
from skynet_core.metric.source import MetricSource
from skynet_core.runs.history import keep_scored_text, localized_name, short_name, unified_diff, version_label
from skynet_core.store import Store, Version, VersionKind
from skynet_core.views.runs import version_names

A = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'A'}\n"
B = "def score(input, output, expected=None):\n    return 0.5, {'feedback': 'B'}\n"


@pytest.fixture
def store(tmp_path) -> Store:
    return Store(tmp_path)


def test_a_scored_text_that_is_no_version_becomes_one(store: Store) -> None:
    kept = keep_scored_text(store, MetricSource.of(A))
    assert kept.kind is VersionKind.SCORED and kept.folder == MetricSource.of(A)
    assert kept.name.startswith("scored ")
    assert keep_scored_text(store, MetricSource.of(A)).id == kept.id  # scored twice: one version
    named = store.save_version("my metric", B)
    assert keep_scored_text(store, MetricSource.of(B)).id == named.id  # already a version: that one
    assert len(store.versions()) == 2
    names = version_names(store.versions())
    assert names[MetricSource.of(A).digest] == f"#{kept.id} scored"  # Runs names a version, not "metric.py 65fbbc2"


def version(name: str, kind: VersionKind = VersionKind.KEPT) -> Version:
    return Version(6, "default", name, A, 1_700_000_000.0, kind)


@pytest.mark.parametrize(
    ("written", "english", "chinese"),
    [
        ("before restoring #5 (19:28:49)", "#6 before restoring #5", "#6 恢复 #5 之前"),
        ("before example Exact match (19:28:49)", "#6 before example Exact match", "#6 示例 精确匹配 之前"),
        ("other tab's text, replaced at 19:28:49", "#6 other tab's text, replaced", "#6 被替换的另一标签页文本"),
        (
            "before Reward trade-offs wrote REWARD_SPEC (7:01:02)",
            "#6 before Reward trade-offs wrote REWARD_SPEC",
            "#6 奖励权衡写入了 REWARD_SPEC 之前",
        ),
        ("scored 19:28:49", "#6 scored", "#6 已评分"),
        ("my own name", "#6 my own name", "#6 my own name"),
    ],
)
def test_names_the_studio_wrote_read_in_the_readers_language(written: str, english: str, chinese: str) -> None:
    with use_language("zh_CN"):
        assert short_name(version(written)) == chinese
        stored_in_chinese = localized_name(written)
    with use_language("en"):
        assert short_name(version(written)) == english
        assert short_name(version(stored_in_chinese)) == english  # a name written in Chinese reads in English


def test_a_version_label_in_chinese_has_no_english_left() -> None:
    with use_language("zh_CN"):
        label = version_label(version("before restoring #5 (19:28:49)"))
    assert english(label) == []


def test_a_diff_of_texts_without_a_final_newline_keeps_their_lines_apart() -> None:
    diff = unified_diff("a = 1\nb = 2", "a = 1\nb = 3")
    lines = diff.splitlines()
    assert "-b = 2" in lines and "+b = 3" in lines
    assert "\\ No newline at end of file" in lines
    assert not any(line.startswith("-b = 2+") for line in lines)
    assert unified_diff("x\n", "x\n") == ""
