"""The studio's pages, one package each: ``page()`` in its ``__init__`` asks the session's snapshot and the
workspace, then draws; the package's other modules are its own panels. Widgets several pages draw are in
``ui/widgets/``. app.py routes to them (``st.navigation`` with these functions)."""
