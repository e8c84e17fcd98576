"""A choice survives a change of language in the sidebar, and is shown in the new one.

The browser keeps the label a choice widget was last sent and sends it back. After 简体中文 was picked, the
Data page's "Cases from" radio showed no choice and its split picker the English label "all (72 cases)"; and
History's version pickers, whose choices were the labels themselves, fell back to their defaults. AppTest sends
a widget's state as the browser does (the label formatted when the page last drew it), so the run that carries
the pick is the one a browser makes.
"""

from __future__ import annotations

from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from skynet_core.store import Store
from tests.app.harness import LANGUAGE_KEY, PAGES, go_to, open_app, speaking


def pick_chinese(at: AppTest) -> AppTest:
    """简体中文 picked in the sidebar; the run after the one that carries the pick speaks Chinese too."""
    at.selectbox(key=LANGUAGE_KEY).set_value("zh_CN").run()
    assert not at.exception, at.exception
    return at


def sent(widget: object) -> str:
    """The label the run sent the browser as the widget's choice ("" when it sent none)."""
    proto = widget.proto  # type: ignore[attr-defined]
    return str(proto.raw_value) if proto.set_value else ""


def split_picker(at: AppTest) -> Any:
    """The Data page's split picker (keyed by the dataset)."""
    return next(box for box in at.selectbox if str(box.key).startswith("data.split."))


def test_the_data_pages_choices_are_sent_again_in_chinese(data_dir):
    at = open_app("data")
    at.radio(key="data.source").set_value("file").run()
    split = split_picker(at)
    chosen = split.value
    assert split.options[split.index].startswith("all (")

    pick_chinese(at)
    source, split = at.radio(key="data.source"), split_picker(at)
    assert source.value == "file" and sent(source) == "文件"
    assert split.value == chosen and sent(split).startswith("全部（"), sent(split)
    with speaking("zh_CN"):
        at.run()  # the next run: the choice holds, nothing to send again
    assert at.radio(key="data.source").value == "file" and not at.exception


def test_historys_versions_chosen_are_kept_when_the_language_changes(data_dir):
    store = Store(data_dir)
    for number in (1, 2, 3):
        store.save_version(f"v{number}", f"def score(input, output, expected=None):\n    return {number / 10}\n")
    at = open_app("history")
    first = next(option for option in at.selectbox(key="history.a").options if option.startswith("#1 "))
    at.selectbox(key="history.a").select(first).run()
    chosen = at.selectbox(key="history.a").value

    pick_chinese(at)
    picker = at.selectbox(key="history.a")
    assert picker.value == chosen, "version A fell back to the default"
    assert sent(picker).startswith("#1 ") and sent(picker) == picker.options[picker.index]
    assert at.selectbox(key="history.b").options[at.selectbox(key="history.b").index] == "当前草稿"
    go_to(at, "history")
    assert at.selectbox(key="history.a").value == chosen


@pytest.mark.parametrize("name", PAGES)
def test_every_page_takes_a_change_of_language(data_dir, name):
    """What each page's session holds, drawn in English, is set to itself by the language switch: none of it is
    the value of a widget Streamlit refuses being set (a button, an uploader, a grid), and the page is drawn in
    Chinese."""
    at = open_app(name)
    pick_chinese(at)
    with speaking("zh_CN"):
        at.run()
    assert not at.exception, at.exception
    title = str(at.title[0].value)
    assert any("\u4e00" <= char <= "\u9fff" for char in title), f"the {name} page's title {title!r} is not in Chinese"
