"""The pages' view-models: what a page decides without drawing it (which rows a table shows, how a number
reads, which fields a form holds), Streamlit-free and unit tested. One package per page that needs one:

- ``author``: the Author page (the example picker, a run's numbers, the verdict);
- ``data``: the Data page (a dataset's preview, the role editor's rows);
- ``feedback``: Feedback review (the filters, the table and one case, the thresholds' fields, the model review);
- ``runs``: the Runs and History pages (the list, one run's cases, two runs, filters and order, exports);
- ``settings``: the Settings page's model form.

The logic a page calls through the workspace lives in the feature packages (``metric``, ``scoring``,
``datasets``, ``reward``, ``runs``, ``human``, ``feedback``, ``judge``); this package only shapes their values
for a page.
"""
