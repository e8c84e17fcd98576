"""Skynet Metric Studio: the entry point and router.

Served by ``streamlit run serve.py`` (which preloads what the first visitor would wait for; ``streamlit run
app.py`` serves it too). The server binds 127.0.0.1 (see .streamlit/config.toml) because it runs
metric code typed in the browser. Every page is a function of its package under ``pages/``; the router runs
first on every request, so every page gets the sidebar, the language and the session's snapshot.

The UI's helpers (the session seam, the keys, the shared widgets) are the ``ui`` package; its docstring says why
each page but Author also has a two-line ``pages/<name>.py``.
"""

import streamlit as st

from pages import ROOT_PAGE, author, data, feedback, history, human, runs, settings, stress, tradeoffs
from skynet_core.i18n import N_, _
from ui import studio
from ui.widgets.sidebar import sidebar
from ui.widgets.text import new_script_run

# (the page's function, its title, its icon, its URL path); Author first, the default page (ROOT_PAGE).
PAGES = [
    (author.page, N_("Author"), ":material/edit_note:", "author"),
    (data.page, N_("Data"), ":material/table:", "data"),
    (feedback.page, N_("Feedback review"), ":material/rate_review:", "feedback"),
    (stress.page, N_("Stress test"), ":material/bolt:", "stress"),
    (human.page, N_("Human scores"), ":material/person_check:", "human"),
    (tradeoffs.page, N_("Reward trade-offs"), ":material/balance:", "tradeoffs"),
    (history.page, N_("History"), ":material/history:", "history"),
    (runs.page, N_("Runs"), ":material/format_list_numbered:", "runs"),
    (settings.page, N_("Settings"), ":material/settings:", "settings"),
]

# The tab's icon is drawn in the browser: a page's :material/: icon as the favicon made every page load ask
# fonts.gstatic.com for it (tests/e2e/test_no_fetch_e2e.py).
st.set_page_config(page_title="Skynet Metric Studio", page_icon="🎯", layout="wide")
new_script_run()
snap = studio.begin_run()
language = studio.apply_language(snap)
page = st.navigation(
    [
        st.Page(function, title=_(title), icon=icon, url_path=path, default=path == ROOT_PAGE)
        for function, title, icon, path in PAGES
    ]
)
studio.begin_visit(page.url_path)
sidebar(snap, language)
page.run()
