"""Text from metric code, data or errors, shown literally and at a bounded cost; numbers as people read them."""

from __future__ import annotations

import streamlit as st

from skynet_core.display import CELL_CHARS, clip, clipped, markdown_text, more_note
from skynet_core.i18n import _, format_number

LITERAL_LIMIT = 2_000


def md(text: str) -> str:
    """Text from metric code, data or its errors, escaped for use inside markdown (no formatting, no icons)."""
    return markdown_text(clipped(str(text), CELL_CHARS * 4))


def number(value: float | None, digits: int = 3) -> str:
    """A score or a mean for people: ``digits`` decimals in the reader's locale, "–" when there is none."""
    return "–" if value is None else format_number(value, digits)


def long_text(text: str, key: str, empty: str | None = None) -> None:
    """Text from metric code (feedback, an error, prints) shown literally at a bounded cost: its first
    characters, wrapped, with a note and a download of the whole when it is longer."""
    shown, hidden = clip(text)
    st.code(shown + more_note(hidden) if text.strip() else empty or _("(empty)"), language=None, wrap_lines=True)
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


def literal(text: str, *, limit: int = LITERAL_LIMIT, key: str | None = None, name: str = "text.txt") -> None:
    """Show text from metric code or data exactly as written (never as markdown), at most ``limit``
    characters inline; the rest behind an expander, with a download of the whole text."""
    if len(text) <= limit:
        st.code(text, language=None, wrap_lines=True)
        return
    st.code(text[:limit] + " …", language=None, wrap_lines=True)
    with st.expander(_("All {count} characters").format(count=format_number(len(text)))):
        shown, hidden = clip(text)
        st.code(shown + more_note(hidden), language=None, wrap_lines=True)
        st.download_button(
            _("Download"), text.encode("utf-8"), file_name=name, mime="text/plain", key=key, on_click="ignore"
        )


def uploader_note(limit_mb: int = 250) -> None:
    """Streamlit's file uploader writes "Upload" and "250MB per file" in English whatever the page's language:
    those words are hidden, the button reads "Choose a file" in the page's language, and a caption under it
    says the same thing the widget said (placed right after a ``st.file_uploader``)."""
    label = _("Choose a file").replace("\\", "\\\\").replace('"', '\\"')
    st.html(
        "<style>"
        '[data-testid="stFileUploaderDropzoneInstructions"] { display: none; }'
        '[data-testid="stFileUploaderDropzone"] button p { display: none; }'
        f'[data-testid="stFileUploaderDropzone"] button::after {{ content: "{label}"; }}'
        "</style>"
    )
    st.caption(
        _("Drop a file on the box above, or choose one; up to {size} MB per file.").format(size=format_number(limit_mb))
    )
