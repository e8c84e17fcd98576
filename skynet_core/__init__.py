"""Skynet Metric Studio's logic: everything that is not drawing. Nothing in this package imports streamlit.

One package per feature, each with a face of plain re-exports (or, where the command line's start matters, the
one lazy face of :mod:`skynet_core.lazy`); pages, the command line and tests import from the faces:

- ``metric``: a metric folder (:class:`~skynet_core.metric.MetricSource`) and the contract check;
- ``scoring``: the one seam every scoring goes through (``Scorer``, ``RunOptions``), the isolated runner and
  the sandbox's child, and the Ray cluster;
- ``results``: a case's result, a run's tally, a check's report, a job's outcome, a model call's trace;
- ``datasets``: cases from files, roles and splits; ``examples``: the bundled example;
- ``llm``: the models' settings and calls (the metric's ``llm()``, the reflection and task models), and the
  answer cache; ``judge``: a model as judge (its cost, its consistency, its noise);
- ``reward``: the reward's parts and the trade-offs between them; ``runs``: scored runs kept, compared, written;
- ``feedback``: feedback review; ``human``: human scores and the metric's agreement with them;
- ``engines``: GEPA and DSPy around the sandboxed metric, the reflection step, the uplift experiment, export;
- ``workspace``: the studio's state and use cases, for every page; ``views``: the pages' view-models;
- ``cli``: ``python -m skynet_core``; ``i18n``: English and 简体中文.

Beside them, a few modules every package uses: ``cases`` (the case), ``store`` (the database and the data
directory), ``paths`` (which files may be read), ``provenance`` (what made a result), ``display`` (untrusted text
shown literally), ``redact`` (keys out of texts), ``heap`` (long-lived data out of the collector's sight) and
``lazy``.
"""
