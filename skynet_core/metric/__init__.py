"""The metric: its folder of files, and the contract check that says whether Skynet can call it.

- ``source``: :class:`MetricSource`, a metric folder's files as one value (its names and limits checked);
- ``folder`` and ``archive``: a metric read from disk (:func:`read_metric`) or from a zip (:func:`read_zip`),
  with only what metric.py needs (``needs``) when the folder is large;
- ``contract``: :func:`~skynet_core.metric.contract.check_metric`, the stages (load, signature, reward spec,
  return value), scoring its sample through a ``Scorer``; ``check_cases``: which cases the live check runs;
- ``lines``, ``reward_spec``, ``pysource``: what is read from metric.py's text without running it;
- ``packages``: the third-party packages a metric imports and the metric packages folder.

Re-exported here: the metric's value and how it is read. The check is imported from ``metric.contract`` (it
needs the scoring package, which needs this face).
"""

from .archive import read_zip
from .folder import read_metric
from .source import MAIN_FILE, MetricSource, MetricSourceError

__all__ = ["MAIN_FILE", "MetricSource", "MetricSourceError", "read_metric", "read_zip"]
