"""Skynet Metric Studio: the entry point and router.

Run with ``streamlit run app.py``. The server binds 127.0.0.1 (see
.streamlit/config.toml) because it runs metric code typed in the browser.
"""

from pathlib import Path

import streamlit as st

import studio

PAGES_DIR = Path(__file__).parent / "pages"
# Author first (the default page); the others join the menu when their file exists.
PAGES = [
    ("author.py", "Author", ":material/edit_note:"),
    ("data.py", "Data", ":material/table:"),
    ("feedback.py", "Feedback review", ":material/rate_review:"),
    ("tradeoffs.py", "Reward trade-offs", ":material/balance:"),
    ("history.py", "History", ":material/history:"),
    ("runs.py", "Runs", ":material/format_list_numbered:"),
    ("settings.py", "Settings", ":material/settings:"),
]

st.set_page_config(page_title="Skynet Metric Studio", layout="wide")
studio.apply_language()
pages = [
    st.Page(f"pages/{name}", title=title, icon=icon, default=name == "author.py")
    for name, title, icon in PAGES
    if (PAGES_DIR / name).exists()
]
page = st.navigation(pages)
studio.mark_routed()
studio.sidebar()
page.run()
