"""Every candidate's scored cases, as the Reward trade-offs page needs them: scored once, then re-weighted.

Scoring every candidate with metric.py yields, per case, the accuracy metric.py passed to
``reward`` (its ``accuracy`` named score) and the case's observation. :func:`collect` turns those
results into :class:`~skynet_core.reward.tradeoffs.CandidateData` arrays; moving a weight or a reference
afterwards never runs metric.py again. :func:`metric_key` identifies metric.py *with REWARD_SPEC's
value set aside*, so writing new weights into metric.py keeps the scores current.
"""

from __future__ import annotations

import functools
import hashlib
from dataclasses import dataclass

import numpy as np

from ..cases import Case
from ..datasets import Dataset
from ..metric.reward_spec import reward_spec_in
from ..results import CaseResult
from ..runs import SavedRun
from .parts import MetricSourceError, error_from_part_score, replace_reward_spec, validate_reward_spec
from .tradeoffs import CandidateData

ONLY_CANDIDATE = "(the only candidate)"
# The spec metric.py's own REWARD_SPEC is replaced with to compare two texts with REWARD_SPEC set aside.
_NEUTRAL_SPEC = {"weights": {"accuracy": 1, "speed": 0, "cost": 0}, "accuracy": {}}


def display_name(name: str) -> str:
    """A candidate's name for people (a dataset without candidates has one, named "")."""
    return name or ONLY_CANDIDATE


@dataclass(frozen=True, eq=False)
class ScoredCandidates:
    """Each candidate's scored cases, kept so that moving a control never runs metric.py again.

    ``candidates`` hold, per case, the accuracy metric.py passed to ``reward`` (recovered as an
    error with ``error_from_part_score`` when the scored metric set ``accuracy_ref``); cases whose
    metric failed are left out and counted in ``failed``. ``from_score`` counts cases that
    returned no ``accuracy`` score, whose score stands in for it. ``metric`` is the
    :func:`metric_key` of the text that was scored.
    """

    candidates: list[CandidateData]
    failed: dict[str, int]
    first_error: str
    accuracy_ref: float | None
    from_score: int
    metric: str


@functools.lru_cache(maxsize=16)
def metric_key(source: str) -> str:
    """A hash of metric.py with REWARD_SPEC's value set aside, so writing new weights keeps the scores."""
    try:
        neutral = replace_reward_spec(source, _NEUTRAL_SPEC)
    except MetricSourceError:
        neutral = source
    return hashlib.sha256(neutral.encode("utf-8")).hexdigest()


def candidate_cases(data: Dataset, split: str | None) -> list[Case]:
    """Every candidate's cases in ``split`` (all splits when None), candidate after candidate."""
    return [
        case for name in data.candidates for case in data.for_candidate(name) if split is None or case.split == split
    ]


def scored_accuracy_ref(source: str) -> float | None:
    """The accuracy reference metric.py's REWARD_SPEC had when it was scored (None when it had none or is unread)."""
    spec = reward_spec_in(source).spec
    return validate_reward_spec(spec).accuracy_ref if spec is not None else None


def collect(
    results: list[CaseResult], cases: list[Case], candidates: list[str], accuracy_ref: float | None, metric: str
) -> ScoredCandidates:
    """Turn scored results into per-candidate arrays of accuracy and observations."""
    by_key = {(result.candidate, result.id): result for result in results}
    rows: dict[str, list[tuple[str, float, bool, float, float]]] = {name: [] for name in candidates}
    failed = dict.fromkeys(candidates, 0)
    first_error = ""
    for case in cases:
        result = by_key.get((case.candidate, case.id))
        if result is None or not result.ok:
            failed[case.candidate] += 1
            if result is not None and not first_error:
                first_error = f"case {case.id} ({display_name(case.candidate)}): {result.error.splitlines()[0]}"
            continue
        has_accuracy = "accuracy" in result.scores
        value = result.scores["accuracy"] if has_accuracy else float(result.score or 0.0)
        latency, cost = case.observation.latency_ms, case.observation.cost_usd
        rows[case.candidate].append(
            (case.id, value, has_accuracy, np.nan if latency is None else latency, np.nan if cost is None else cost)
        )
    scored: list[CandidateData] = []
    from_score = 0
    for name in candidates:
        if not rows[name]:
            continue
        ids, values, recorded_flags, latencies, costs = zip(*rows[name], strict=True)
        accuracy = np.array(values, dtype=float)
        recorded = np.array(recorded_flags)
        from_score += int((~recorded).sum())
        if accuracy_ref is not None:
            # scores["accuracy"] is the part score ref / (ref + error); the metric passed the error.
            accuracy[recorded] = error_from_part_score(accuracy[recorded], accuracy_ref)
        scored.append(CandidateData(display_name(name), ids, accuracy, np.array(latencies), np.array(costs)))
    return ScoredCandidates(scored, failed, first_error, accuracy_ref, from_score, metric)


def from_saved_runs(
    runs: list[SavedRun | None], data: Dataset, split: str | None, metric: str
) -> ScoredCandidates | None:
    """Every candidate's newest saved run, when each was scored by this metric.py (REWARD_SPEC aside) on ``split``,
    under one accuracy reference; else None. ``runs`` are the newest runs of ``data.candidates``, in order."""
    if any(run is None or run.key.split != split or metric_key(run.metric_source) != metric for run in runs):
        return None
    present = [run for run in runs if run is not None]
    references = {scored_accuracy_ref(run.metric_source) for run in present}
    if len(references) != 1:
        return None  # scored under different accuracy references: their accuracy values do not compare
    results = [result for run in present for result in run.results]
    return collect(results, candidate_cases(data, split), list(data.candidates), references.pop(), metric)
