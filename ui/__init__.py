"""The studio's UI helpers, one package beside ``app.py`` (the router) and ``pages/`` (one package per page):

- ``studio``: the session seam. This browser session's :class:`~ui.studio.Session` (the process's workspace,
  the session's API keys, its id as a job watcher, its job slots) and the one snapshot per script run that
  pages and widgets read;
- ``keys``: the session-state keys that more than one place reads or writes;
- ``widgets``: what several pages draw (literal text, the job panel, the per-case table, a case's trace,
  the stale banner, "Save version", the reflection step, lazy panels, the sidebar, the agreement report).

Only drawing here and in ``pages/``: what computes, filters or decides is in ``skynet_core`` (with a unit test).

Why ``pages/<name>.py`` exists beside each page's package (``pages/data.py`` beside ``pages/data/``): the only
place this workaround is explained. Streamlit (1.67) decides before any script runs that a folder named
``pages`` next to the main script means its old pages-folder mode: a freshly started server then runs
``pages/<name>.py`` for a deep link to ``/<name>`` and, with no such file, says "Page not found" over the app.
So each page but Author (the default page, at ``/``) has a two-line ``pages/<name>.py`` that hands the request
to the router (:func:`ui.studio.hand_over_to_router`): it leaves the pages-folder mode and runs ``app.py`` in the
same script run, on the page the address names. ``tests/app/test_page_stubs.py`` checks that every page of
the router has its stub, and nothing more. On each Streamlit upgrade, delete the stubs and run
``tests/e2e/test_sessions_e2e.py::test_a_deep_link_as_the_first_request_gets_the_whole_app`` (a deep link as a fresh
server's first request) with ``tests/app/test_serve.py``: if they pass, the stubs can go (with
``hand_over_to_router`` and this paragraph).
"""
