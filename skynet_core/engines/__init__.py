"""The engines: the same metric.py drives GEPA and DSPy GEPA, always through the isolated runner.

- :class:`SandboxedMetric` runs ``score`` of a metric folder in isolated children.
- :func:`gepa_evaluator` / :class:`MetricAdapter`: the metric as GEPA's evaluator and adapter.
- :func:`dspy_metric` / :class:`DspyFields`: the metric as DSPy GEPA's 5-argument metric.
- ``engines.reflection.reflection_step``: one GEPA reflection step on scored cases, for the studio.
- ``engines.export.export_for_engine``: a folder that runs the metric in GEPA or DSPy on its own.

This package's own imports stay inside the modules an export vendors (cases, results, metric_source,
llm, runner, sandbox): the reflection step and the export are imported from their modules.

Nothing here imports ``gepa`` or ``dspy`` until a value that needs them is built, and the names below are
imported on first use (PEP 562): the command line imports this package for its ``uplift`` parser, and
``check`` and ``score`` should not pay for the engines' modules.
"""

from typing import TYPE_CHECKING

from ..lazy import lazy_face

# Not on first use: ``dspy_metric`` names both the module and its function, and once the module is imported
# the package's attribute would be the module.
from .dspy_metric import DspyFields, DspyMetric, dspy_examples, dspy_metric, dspy_program

if TYPE_CHECKING:
    from .gepa_adapter import (
        GepaEvaluator,
        MetricAdapter,
        engine_examples,
        gepa_evaluator,
        reflective_dataset,
        side_info,
    )
    from .sandboxed import SandboxedMetric, Verdict
    from .task import ChatTask, Task, litellm_kwargs, model_from_env, render_input

__getattr__ = lazy_face(__name__, __file__)


__all__ = [
    "ChatTask",
    "DspyFields",
    "DspyMetric",
    "GepaEvaluator",
    "MetricAdapter",
    "SandboxedMetric",
    "Task",
    "Verdict",
    "dspy_examples",
    "dspy_metric",
    "dspy_program",
    "engine_examples",
    "gepa_evaluator",
    "litellm_kwargs",
    "model_from_env",
    "reflective_dataset",
    "render_input",
    "side_info",
]
