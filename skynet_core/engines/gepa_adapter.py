"""The metric as GEPA reads it: an ``optimize_anything`` evaluator and a ``GEPAAdapter``.

The metric's feedback becomes the side information GEPA's reflection model
reads (under ``Feedback``, next to the case's ``Input``, ``Output`` and
``Expected``); its named scores become ``side_info["scores"]``, which GEPA turns
into per-objective scores for its Pareto frontier. ``gepa`` is imported only
when a GEPA value is built, never at import time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ..cases import Case
from .sandboxed import SandboxedMetric, Verdict
from .task import Task

Example = Mapping[str, Any]
"""One engine example: ``{"id": str, "input": dict, "expected": dict | None}``."""

TASK_FAILED = "The artifact did not produce an output for this case, so it counts as 0: "
MAX_TASK_THREADS = 8


def engine_examples(cases: Sequence[Case]) -> list[dict[str, Any]]:
    """The cases as engine examples: input and expected only (outputs come from the artifact's run).

    One example per case id (a dataset with several candidates lists each id once).
    """
    seen: dict[str, dict[str, Any]] = {}
    for case in cases:
        seen.setdefault(case.id, {"id": case.id, "input": dict(case.input), "expected": case.expected})
    return list(seen.values())


def side_info(example: Example, output: Any, verdict: Verdict) -> dict[str, Any]:
    """What GEPA's reflection reads about one example: the case, the output, the metric's feedback and scores.

    Extra side-information keys the metric returned come along under their own names.
    """
    info: dict[str, Any] = {"Input": dict(example["input"]), "Output": output}
    if example.get("expected") is not None:
        info["Expected"] = example["expected"]
    info["Feedback"] = verdict.feedback
    if verdict.scores:
        info["scores"] = dict(verdict.scores)
    for key, value in verdict.extra.items():
        info.setdefault(key, value)
    return info


class GepaEvaluator:
    """``optimize_anything``'s evaluator: ``(candidate, example) -> (score, side_info)``.

    ``batch`` is the same for many ``(candidate, example)`` pairs at once (``batch_evaluator=``): one
    run of the isolated runner per batch instead of one per example. ``component`` names the
    text to run when the candidate is a dict of texts (default: its only entry).
    Never raises for one example: a failed run or metric scores 0 with a feedback that says why.
    """

    def __init__(self, metric: SandboxedMetric, task: Task, *, component: str | None = None) -> None:
        self.metric = metric
        self.task = task
        self.component = component

    def __call__(self, candidate: str | Mapping[str, str], example: Example) -> tuple[float, dict[str, Any]]:
        return self.batch([(candidate, example)])[0]

    def batch(self, pairs: Sequence[tuple[str | Mapping[str, str], Example]]) -> list[tuple[float, dict[str, Any]]]:
        outputs = run_task(self.task, [(self.text_of(candidate), example) for candidate, example in pairs])
        scored = [index for index, (_, failure) in enumerate(outputs) if failure is None]
        verdicts = dict(
            zip(
                scored,
                self.metric.score_many(
                    [(pairs[i][1]["input"], outputs[i][0], pairs[i][1].get("expected")) for i in scored]
                ),
                strict=True,
            )
        )
        results = []
        for index, (_, example) in enumerate(pairs):
            output, failure = outputs[index]
            verdict = verdicts.get(index) or Verdict(0.0, TASK_FAILED + str(failure), ok=False)
            results.append((verdict.score, side_info(example, output, verdict)))
        return results

    def text_of(self, candidate: str | Mapping[str, str]) -> str:
        if isinstance(candidate, str):
            return candidate
        if self.component is not None:
            return candidate[self.component]
        if len(candidate) != 1:
            raise ValueError(
                f"The candidate has {len(candidate)} texts ({', '.join(candidate)}); "
                "say which one the task runs with component=."
            )
        return next(iter(candidate.values()))


def gepa_evaluator(metric: SandboxedMetric, task: Task, *, component: str | None = None) -> GepaEvaluator:
    """The evaluator to pass to ``gepa.optimize_anything`` (and its ``.batch`` as ``batch_evaluator``)."""
    return GepaEvaluator(metric, task, component=component)


def run_task(task: Task, jobs: Sequence[tuple[str, Example]]) -> list[tuple[Any, BaseException | None]]:
    """Run the artifact on each example's input, a few at once: ``(output, None)`` or ``(None, the error)``."""

    def one(job: tuple[str, Example]) -> tuple[Any, BaseException | None]:
        text, example = job
        try:
            return task(text, dict(example["input"])), None
        except Exception as exc:  # noqa: BLE001  (one example's failed run must not stop the engine)
            return None, exc

    if len(jobs) <= 1:
        return [one(job) for job in jobs]
    with ThreadPoolExecutor(max_workers=min(MAX_TASK_THREADS, len(jobs))) as pool:
        return list(pool.map(one, jobs))


class MetricAdapter:
    """A ``gepa.core.adapter.GEPAAdapter`` over the metric: for ``gepa.optimize`` and GEPA's engine.

    Candidates are dicts of texts; ``component`` is the one the task runs. ``evaluate`` returns an
    ``EvaluationBatch`` whose ``objective_scores`` are the metric's named scores and whose
    trajectories (with ``capture_traces``) are the side information; ``make_reflective_dataset``
    is GEPA's own (``optimize_anything``'s), so the reflection reads what it reads there.
    """

    propose_new_texts = None

    def __init__(self, metric: SandboxedMetric, task: Task, *, component: str = "instruction") -> None:
        self.evaluator = GepaEvaluator(metric, task, component=component)

    def evaluate(self, batch: list[Example], candidate: dict[str, str], capture_traces: bool = False) -> Any:
        from gepa.core.adapter import EvaluationBatch

        results = self.evaluator.batch([(candidate, example) for example in batch])
        infos = [info for _, info in results]
        return EvaluationBatch(
            outputs=[info["Output"] for info in infos],
            scores=[score for score, _ in results],
            trajectories=infos if capture_traces else None,
            objective_scores=[dict(info.get("scores", {})) for info in infos],
            num_metric_calls=len(batch),
        )

    def make_reflective_dataset(
        self, candidate: dict[str, str], eval_batch: Any, components_to_update: list[str]
    ) -> Mapping[str, Sequence[Mapping[str, Any]]]:
        return reflective_dataset(candidate, eval_batch.scores, eval_batch.trajectories or [], components_to_update)


def reflective_dataset(
    candidate: Mapping[str, str], scores: Sequence[float], infos: Sequence[Mapping[str, Any]], components: Sequence[str]
) -> Mapping[str, Sequence[Mapping[str, Any]]]:
    """GEPA's own reflective dataset (``optimize_anything``'s adapter) for these side informations."""
    from gepa.adapters.optimize_anything_adapter.optimize_anything_adapter import OptimizeAnythingAdapter
    from gepa.core.adapter import EvaluationBatch

    batch = EvaluationBatch(
        outputs=[info.get("Output") for info in infos], scores=list(scores), trajectories=[dict(info) for info in infos]
    )
    library = OptimizeAnythingAdapter(evaluator=_never_called)
    return library.make_reflective_dataset(dict(candidate), batch, list(components))


def _never_called(*_: Any) -> Any:
    raise AssertionError("the reflective dataset is built without evaluating")
