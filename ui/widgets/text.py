"""Text from metric code, data or errors, shown literally and at a bounded cost; numbers as people read them."""

from __future__ import annotations

from contextvars import ContextVar

import streamlit as st

from skynet_core.display import CELL_CHARS, clip, clipped, markdown_text, more_note
from skynet_core.i18n import _, format_number

LITERAL_LIMIT = 2_000
# The look of literal text (see ``box``): a plain text element in a container keyed ``literal-…``, drawn as a code
# box (monospace, tinted, wrapped anywhere, whitespace kept). Not st.code: its syntax highlighter is a 1.5 MB
# module, evaluated by every page load that draws one block (half a second of the browser's CPU on the Author
# page, whose sampled cases show their feedback), and literal text is never highlighted.
LITERAL_KEY = "literal-"  # the start of a literal box's container key (tests find literal text by it)
_BOX = f'[class*="st-key-{LITERAL_KEY}"] [data-testid="stText"]'
LITERAL_CSS = (
    f"<style>{_BOX} {{ background-color: rgba(128, 128, 128, 0.08); border-radius: 0.5rem; padding: 1rem; }} "
    f'{_BOX}, {_BOX} > span {{ font-family: "Source Code Pro", monospace; font-size: 0.875rem; line-height: 1.6; '
    "white-space: pre-wrap; overflow-wrap: anywhere; }</style>"
)


def md(text: str) -> str:
    """Text from metric code, data or its errors, escaped for use inside markdown (no formatting, no icons)."""
    return markdown_text(clipped(str(text), CELL_CHARS * 4))


def number(value: float | None, digits: int = 3) -> str:
    """A score or a mean for people: ``digits`` decimals in the reader's locale, "–" when there is none."""
    return "–" if value is None else format_number(value, digits)


# Whether this script run has sent LITERAL_CSS yet. A script run is one thread's work: app.py clears it at the start.
_style_sent: ContextVar[bool] = ContextVar("literal_style_sent", default=False)


def new_script_run() -> None:
    """app.py calls it at the start of every script run: the run's first literal box sends the style.

    Only a page that draws a box sends it: ``st.html``'s element and its sanitizer are two chunks of Streamlit's
    front end that a page's first draw fetches and evaluates, 0.04 to 0.12 s a page when app.py sent the style on
    every page (six pages' first draws, alternated against the tree before)."""
    _style_sent.set(False)


def box(text: str, key: str) -> None:
    """``text`` exactly as written (a text element: no markdown, no HTML), in a code box; ``key`` names it."""
    if not _style_sent.get():
        st.html(LITERAL_CSS)  # style alone: Streamlit puts it in the page's event container, which takes no place
        _style_sent.set(True)
    with st.container(key=LITERAL_KEY + key):
        st.text(text, width="stretch")


def long_text(text: str, key: str, empty: str | None = None) -> None:
    """Text from metric code (feedback, an error, prints) shown literally at a bounded cost: its first
    characters, wrapped, with a note and a download of the whole when it is longer."""
    shown, hidden = clip(text)
    box(shown + more_note(hidden) if text.strip() else empty or _("(empty)"), key)
    if hidden:
        st.download_button(
            _("Download the full text"),
            text.encode("utf-8"),
            file_name=f"{key}.txt",
            mime="text/plain",
            key=f"{key}.download",
            on_click="ignore",
            icon=":material/download:",
        )


def literal(text: str, *, key: str, limit: int = LITERAL_LIMIT, name: str = "text.txt") -> None:
    """Show text from metric code or data exactly as written (never as markdown), at most ``limit``
    characters inline; the rest behind an expander, with a download of the whole text."""
    if len(text) <= limit:
        box(text, key)
        return
    box(text[:limit] + " …", key)
    with st.expander(_("All {count} characters").format(count=format_number(len(text)))):
        shown, hidden = clip(text)
        box(shown + more_note(hidden), f"{key}.whole")
        st.download_button(
            _("Download"), text.encode("utf-8"), file_name=name, mime="text/plain", key=key, on_click="ignore"
        )


# The empty uploader's "Upload" button only: once a file is chosen, the box holds the file's chip (whose remove
# button is a "minimal" button) and an "add files" icon button, neither of which says "Choose a file".
UPLOAD_BUTTON = '[data-testid="stFileUploaderDropzone"] button[data-testid="stBaseButton-secondary"]'


def uploader_note(limit_mb: int = 250) -> None:
    """Streamlit's file uploader writes "Upload" and "250MB per file" in English whatever the page's language:
    those words are hidden, the button reads "Choose a file" in the page's language, and a caption under it
    says the same thing the widget said (placed right after a ``st.file_uploader``)."""
    label = _("Choose a file").replace("\\", "\\\\").replace('"', '\\"')
    st.html(
        "<style>"
        '[data-testid="stFileUploaderDropzoneInstructions"] { display: none; }'
        f"{UPLOAD_BUTTON} p {{ display: none; }}"
        f'{UPLOAD_BUTTON}::after {{ content: "{label}"; }}'
        "</style>"
    )
    st.caption(
        _("Drop a file on the box above, or choose one; up to {size} MB per file.").format(size=format_number(limit_mb))
    )
