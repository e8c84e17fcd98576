"""The History page through AppTest: versions, the diff, restoring, and the per-case comparison."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.store import Store
from tests.app.harness import button, open_app, run_until

WEAK = "def score(input, output, expected=None):\n    return 0.0, {'feedback': 'Wrong.'}\n"
STRONG = "def score(input, output, expected=None):\n    return 1.0, {'feedback': 'Right, and here is why.'}\n"


@pytest.fixture
def app(data_dir) -> AppTest:
    store = Store(data_dir)
    store.save_version("weak feedback", WEAK)
    store.save_draft(STRONG)
    return open_app("history")


def test_the_diff_between_a_version_and_the_draft_shows_the_changed_lines(app):
    diff = app.code[0].value
    assert "-    return 0.0, {'feedback': 'Wrong.'}" in diff
    assert "+    return 1.0, {'feedback': 'Right, and here is why.'}" in diff


def test_compare_scores_lists_every_case_with_its_change(app):
    button(app, "Compare scores").click().run()
    run_until(app, lambda at: bool(at.dataframe))
    table = app.dataframe[0].value
    assert len(table) == 72
    assert set(table["delta"]) == {1.0}
    assert [metric.value for metric in app.metric][:4] == ["0.000", "1.000", "72", "0"]
    bars = json.loads(app.get("plotly_chart")[0].proto.spec)["data"][0]
    counts = np.frombuffer(base64.b64decode(bars["y"]["bdata"]), dtype=bars["y"]["dtype"])  # plotly's typed array
    assert bars["type"] == "bar" and counts.sum() == counts[-1] == 72 and bars["customdata"][-1] == "1–1.05"
    assert bars["hovertemplate"].startswith("change %{customdata}")


def test_compare_scores_is_disabled_while_its_comparison_runs(data_dir):
    store = Store(data_dir)
    store.save_version("weak feedback", WEAK)
    store.save_draft("import time\n\n\n" + STRONG.replace("    return", "    time.sleep(0.5)\n    return"))
    at = open_app("history")
    button(at, "Compare scores").click().run()
    assert button(at, "Compare scores").disabled  # a second click would start a second comparison
    button(at, "Cancel").click().run()
    run_until(at, lambda at: not button(at, "Compare scores").disabled)


def test_restoring_a_version_keeps_the_replaced_draft_as_a_version(app, data_dir):
    restore = next(button for button in app.button if button.label == "Restore A into the editor")
    restore.click().run()
    store = Store(data_dir)
    assert store.draft() == WEAK
    assert any(version.source == STRONG for version in store.versions())


def test_saving_the_draft_as_a_named_version(app, data_dir):
    app.text_input[0].input("clearer feedback")
    next(button for button in app.button if button.label == "Save version").click().run()
    assert [version.name for version in Store(data_dir).versions()][0] == "clearer feedback"  # newest first


def test_version_labels_say_the_time_once(data_dir):
    store = Store(data_dir)
    store.save_version("before Reward trade-offs wrote REWARD_SPEC (19:28:49)", WEAK)
    store.save_draft(STRONG)
    at = open_app("history")
    picker = at.selectbox(key="history.a")
    label = picker.options[picker.index]
    assert label.startswith("#1 before Reward trade-offs wrote REWARD_SPEC · ") and "19:28:49" not in label
    assert label.count(":") == 1  # one time, hours and minutes


# Strings of ui/studio.py (the save-version control, the stale banner) translated on the i18n branch.
PENDING_OTHER_BRANCH: set[str] = set()


def test_the_history_page_in_chinese_has_no_english_left_in_the_main_area(data_dir):
    from tests.i18n_scan import english_words, render

    store = Store(data_dir)
    store.save_version("weak feedback", WEAK)
    store.save_draft(STRONG)
    at = render("history")
    assert not at.exception, at.exception
    assert at.title[0].value == "历史"
    found = english_words(at, allowed={"weak", "feedback", "diff"}, where="main")  # "diff": the code block's language
    pending = {word.lower() for word in PENDING_OTHER_BRANCH}
    # The diff is metric.py's text (code, shown as written); the rest must be Chinese.
    left = [word for word, text in found if word.lower() not in pending and not text.startswith("--- A/")]
    assert left == []
