"""The History page through AppTest: versions, the diff, restoring, and the per-case comparison."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.store import Store

APP = str(Path(__file__).resolve().parents[1] / "app.py")
WEAK = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'Wrong.'}\n"
STRONG = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Right, and here is why.'}\n"


@pytest.fixture
def app(tmp_path, monkeypatch) -> AppTest:
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    store = Store(tmp_path)
    store.save_version("weak feedback", WEAK)
    store.save_draft(STRONG)
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page("pages/history.py")
    at.run()
    assert not at.exception, at.exception
    return at


def test_the_diff_between_a_version_and_the_draft_shows_the_changed_lines(app):
    diff = app.code[0].value
    assert "-    return 0.0, {'feedback': 'Wrong.'}" in diff
    assert "+    return 1.0, {'feedback': 'Right, and here is why.'}" in diff


def test_compare_scores_lists_every_case_with_its_change(app):
    next(button for button in app.button if button.label == "Compare scores").click().run()
    deadline = time.monotonic() + 60
    while not app.dataframe and time.monotonic() < deadline:
        time.sleep(0.2)
        app.run()
    assert not app.exception, app.exception
    table = app.dataframe[0].value
    assert len(table) == 72
    assert set(table["delta"]) == {1.0}
    assert [metric.value for metric in app.metric][:4] == ["0.000", "1.000", "72", "0"]


def test_restoring_a_version_keeps_the_replaced_draft_as_a_version(app, tmp_path):
    restore = next(button for button in app.button if button.label == "Restore A into the editor")
    restore.click().run()
    store = Store(tmp_path)
    assert store.draft() == WEAK
    assert any(version.source == STRONG for version in store.versions())


def test_saving_the_draft_as_a_named_version(app, tmp_path):
    app.text_input[0].input("clearer feedback")
    next(button for button in app.button if button.label == "Save version").click().run()
    assert [version.name for version in Store(tmp_path).versions()][0] == "clearer feedback"  # newest first


def test_version_labels_say_the_time_once(tmp_path, monkeypatch):
    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    store = Store(tmp_path)
    store.save_version("before Reward trade-offs wrote REWARD_SPEC (19:28:49)", WEAK)
    store.save_draft(STRONG)
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    at.switch_page("pages/history.py").run()
    label = at.selectbox(key="history.a").value
    assert label.startswith("#1 before Reward trade-offs wrote REWARD_SPEC · ") and "19:28:49" not in label
    assert label.count(":") == 1  # one time, hours and minutes


# Strings of studio.py (the save-version control, the stale banner) translated on the i18n branch.
PENDING_OTHER_BRANCH: set[str] = set()


def test_the_history_page_in_chinese_has_no_english_left_in_the_main_area(tmp_path, monkeypatch):
    from i18n_scan import english_words, render

    monkeypatch.setenv("SKYNET_DATA_DIR", str(tmp_path))
    store = Store(tmp_path)
    store.save_version("weak feedback", WEAK)
    store.save_draft(STRONG)
    at = render(APP, "pages/history.py")
    assert not at.exception, at.exception
    assert at.title[0].value == "历史"
    found = english_words(at, allowed={"weak", "feedback", "diff"}, where="main")  # "diff": the code block's language
    pending = {word.lower() for word in PENDING_OTHER_BRANCH}
    # The diff is metric.py's text (code, shown as written); the rest must be Chinese.
    left = [word for word, text in found if word.lower() not in pending and not text.startswith("--- A/")]
    assert left == []
