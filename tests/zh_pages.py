"""A page rendered as app.py runs it, in a language, for the pages' Chinese scans (see ``i18n_scan``)."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest

from tests.i18n_scan import english_words

__all__ = ["english_words", "render_in"]


def render_in(page: str, language: str = "zh_CN") -> AppTest:
    """``page`` run as app.py runs it (language applied, routed), in ``language``.

    ``i18n_scan.render`` switches pages with ``AppTest.switch_page``, which in this Streamlit runs the page
    file alone (the pages-folder mode), so app.py never sets the language and every page reads in English.
    """
    script = (
        "import runpy, studio\n"
        "studio.apply_language()\n"
        "studio.mark_routed()\n"
        f"runpy.run_path({page!r}, run_name='__main__')\n"
    )
    at = AppTest.from_string(script, default_timeout=60)
    at.session_state["studio.language"] = language
    at.run()
    assert not at.exception, at.exception
    return at
