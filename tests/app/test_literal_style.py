"""Literal text's style (ui/widgets/text.py) is sent once by a script run that draws a literal box, and only then."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.app.harness import open_app, open_function
from ui.widgets.text import LITERAL_CSS


def styles(at: AppTest) -> int:
    return sum(1 for element in at.get("html") if element.proto.body == LITERAL_CSS)


def two_boxes() -> None:
    from ui.widgets.text import box, new_script_run

    new_script_run()
    box("first", "one")
    box("second", "two")


def test_a_run_that_draws_boxes_sends_the_style_once_and_the_next_run_again() -> None:
    at = open_function(two_boxes)
    assert [text.value for text in at.text] == ["first", "second"]
    assert styles(at) == 1
    at.run()
    assert styles(at) == 1


def test_a_page_without_a_literal_box_sends_no_style() -> None:
    """st.html's element and its sanitizer are front-end chunks a page's first draw would load for nothing."""
    at = open_app("history")
    assert not at.text
    assert styles(at) == 0
