"""The metric as DSPy GEPA calls it: ``(gold, pred, trace, pred_name, pred_trace)``.

DSPy hands the metric a gold ``dspy.Example`` and the program's ``dspy.Prediction``;
Skynet's ``score`` takes ``input``, ``output`` and ``expected``. ``DspyFields`` says
which fields of the example are the input and which the expected value, and
which fields of the prediction make the output; the metric's feedback and named
scores come back as DSPy's ``ScoreWithFeedback`` (with ``objective_scores``).
``dspy`` is imported only when a DSPy value is built.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from ..cases import Case
from .sandboxed import SandboxedMetric, Verdict


@dataclass(frozen=True)
class DspyFields:
    """Field names: ``inputs`` and ``expected`` of the gold example, ``outputs`` of the prediction.

    One output field gives ``output`` as that field's value; several give a dict keyed by their names.
    A gold example that carries none of the ``expected`` fields is scored with ``expected=None``.
    """

    inputs: tuple[str, ...]
    expected: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ("output",)

    def __post_init__(self) -> None:
        if not self.inputs:
            raise ValueError("DSPy needs at least one input field; name the fields the program reads.")
        if not self.outputs:
            raise ValueError("Name the prediction's output field(s), e.g. outputs=('output',).")
        clash = sorted(set(self.inputs) & set(self.expected))
        if clash:
            raise ValueError(
                f"{', '.join(clash)} is both an input and an expected field; a DSPy example holds one "
                "value per name. Rename the expected column."
            )

    @classmethod
    def infer(cls, cases: Sequence[Case], outputs: Sequence[str] = ("output",)) -> DspyFields:
        """The input and expected field names the dataset's roles gave, in order of first appearance."""
        inputs: dict[str, None] = {}
        expected: dict[str, None] = {}
        for case in cases:
            inputs.update(dict.fromkeys(case.input))
            expected.update(dict.fromkeys(case.expected or {}))
        return cls(tuple(inputs), tuple(expected), tuple(outputs))

    def gold_parts(self, gold: Any) -> tuple[dict[str, Any], dict[str, Any] | None]:
        """``input`` and ``expected`` for ``score`` from a gold ``dspy.Example``."""
        input = {name: gold.get(name) for name in self.inputs}
        present = {name: gold.get(name) for name in self.expected if gold.get(name) is not None}
        return input, (present or None)

    def output_of(self, pred: Any) -> Any:
        """``output`` for ``score`` from a ``dspy.Prediction``."""
        if len(self.outputs) == 1:
            return pred.get(self.outputs[0])
        return {name: pred.get(name) for name in self.outputs}


def dspy_examples(cases: Sequence[Case], fields: DspyFields) -> list[Any]:
    """The cases as ``dspy.Example``\\ s with ``fields.inputs`` marked as inputs (one per case id)."""
    import dspy

    examples, seen = [], set()
    for case in cases:
        if case.id in seen:
            continue
        seen.add(case.id)
        values = {name: case.input.get(name) for name in fields.inputs}
        values.update({name: value for name, value in (case.expected or {}).items() if name in fields.expected})
        examples.append(dspy.Example(**values).with_inputs(*fields.inputs))
    return examples


def dspy_program(fields: DspyFields, instruction: str) -> Any:
    """A one-step DSPy program (``dspy.Predict``) from the input fields to the output fields, with ``instruction``."""
    import dspy

    signature = dspy.Signature(f"{', '.join(fields.inputs)} -> {', '.join(fields.outputs)}", instruction)
    return dspy.Predict(signature)


class DspyMetric:
    """A DSPy GEPA metric: ``metric(gold, pred, trace=None, pred_name=None, pred_trace=None)``.

    Calls for the same gold and prediction (DSPy asks once for the program and again for each
    predictor, ``pred_name``) are scored once: each gets the same score and feedback.
    """

    def __init__(self, metric: SandboxedMetric, fields: DspyFields) -> None:
        self.metric = metric
        self.fields = fields
        self._seen: dict[bytes, Verdict] = {}

    def __call__(
        self, gold: Any, pred: Any, trace: Any = None, pred_name: str | None = None, pred_trace: Any = None
    ) -> Any:
        from dspy.teleprompt.gepa.gepa_utils import ScoreWithFeedback

        input, expected = self.fields.gold_parts(gold)
        output = self.fields.output_of(pred)
        key = orjson.dumps([input, output, expected], default=str, option=orjson.OPT_SORT_KEYS)
        verdict = self._seen.get(key)
        if verdict is None:
            verdict = self.metric.score(input, output, expected)
            self._seen[key] = verdict
        return ScoreWithFeedback(
            score=verdict.score, feedback=verdict.feedback, objective_scores=dict(verdict.scores) or None
        )


def dspy_metric(metric: SandboxedMetric, fields: DspyFields) -> Callable[..., Any]:
    """The metric to pass to ``dspy.GEPA(metric=…)``."""
    return DspyMetric(metric, fields)
