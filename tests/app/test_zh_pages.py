"""Every page rendered in Simplified Chinese shows no English words (outside code, ids and user data).

Each page as it first opens on the bundled example, sidebar included; each page's own test
(tests/app/test_app_*.py) looks at its other states in Chinese.
"""

from __future__ import annotations

import ast
import re

import pytest

from skynet_core.i18n import _, use_language
from tests.app.harness import PAGES, ROOT
from tests.i18n_scan import english_words, render

CJK = re.compile(r"[\u4e00-\u9fff]")

# The bundled example's own words (its dataset and candidate names are user data).
EXAMPLE_DATA = {"tickets", "example", "support", "fast", "small", "balanced", "large", "careful"}


def test_the_sidebar_is_all_chinese():
    at = render()
    assert not at.exception
    found = english_words(at, allowed=EXAMPLE_DATA, where="sidebar")
    assert not found, found
    sidebar = " ".join(node.value for node in at.sidebar.markdown)
    assert "数据集" in sidebar and "隔离" in sidebar
    assert any("内存限制：每个沙箱整体" in caption.value for caption in at.sidebar.caption)


def test_the_menu_names_the_pages_in_chinese():
    tree = ast.parse((ROOT / "app.py").read_text())
    pages = next(node for node in tree.body if isinstance(node, ast.Assign) and node.targets[0].id == "PAGES")
    titles = [item.elts[1].args[0].value for item in pages.value.elts]
    with use_language("zh_CN"):
        translated = [_(title) for title in titles]
    assert translated == ["编写", "数据", "反馈审查", "压力测试", "人工评分", "奖励权衡", "历史", "运行", "设置"]
    assert all(CJK.search(title) for title in translated), translated


@pytest.mark.parametrize("page", PAGES)
def test_every_page_is_all_chinese(page):
    at = render(page)
    assert not at.exception, at.exception
    found = english_words(at, allowed=EXAMPLE_DATA)
    assert not found, found


def test_a_page_opened_in_chinese_reruns_in_chinese_until_its_check_is_drawn():
    """``run_until`` reruns a page in the language its session picked. The test's thread once spoke English on the
    reruns after the first: AppTest formats a choice with the page's ``format_func`` in that thread, and the Author
    page's "Exact match" was not among its Chinese choices (ValueError), whenever the check was not drawn at once."""
    from tests.app.harness import run_until

    at = render()
    runs = []
    run_until(at, lambda a: runs.append(a) is None and len(runs) > 2)  # two reruns, whatever the check does
    assert not at.exception
    assert "编写 metric.py" in [title.value for title in at.title]
