"""The studio's pages, one package each: ``page()`` in its ``__init__`` asks the session's snapshot and the
workspace, then draws; the package's other modules are its own panels. Widgets several pages draw are in
``ui/widgets/``. app.py routes to them (``st.navigation`` with these functions)."""

# The page the app's root shows (app.py's default page). Its own address is sent to the root (serve.py): Streamlit
# knows the default page only by the root, and at /author its front end said "Page not found" over it.
ROOT_PAGE = "author"
