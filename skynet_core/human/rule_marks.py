"""The feedback rules against people's useful / weak marks: which rules to trust on this data.

A mark is a human label too. A weak mark says "a rule should flag this feedback": it is the
positive class. For each rule, over the judged cases that carry a mark:

- precision = flagged and weak / flagged (when the rule flags, is the feedback weak?);
- recall = flagged and weak / weak (of the weak feedback, how much does the rule catch?).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from skynet_core.feedback.marks import Mark, MarkValue
from skynet_core.feedback.rules import Review

from .bootstrap import RESAMPLES, SEED, bootstrap, estimate
from .estimate import Estimate, Undefined
from .report import Confusion


@dataclass(frozen=True)
class RuleAgreement:
    """One feedback rule against the marks. ``confusion``: ``tp`` flagged and marked weak, ``fp`` flagged
    and marked useful, ``fn`` not flagged and marked weak, ``tn`` not flagged and marked useful.
    ``precision`` and ``recall`` carry their 95% percentile bootstrap intervals over the marked cases."""

    rule: str
    title: str
    confusion: Confusion
    precision: Estimate
    recall: Estimate


def rules_against_marks(
    review: Review, marks: Mapping[str, Mark], *, resamples: int = RESAMPLES, seed: int = SEED
) -> tuple[RuleAgreement, ...]:
    """Each rule of ``review`` (in its order) against the marks on its judged cases."""
    marked = [case_id for case_id in review.case_ids if case_id in marks]
    weak = np.array([marks[case_id].value is MarkValue.WEAK for case_id in marked], dtype=bool)
    broken = review.rules_broken
    found = []
    for rule in review.rules:
        flagged = np.array([rule.name in broken.get(case_id, ()) for case_id in marked], dtype=bool)
        counts = Confusion(
            tp=int(np.sum(flagged & weak)),
            fp=int(np.sum(flagged & ~weak)),
            fn=int(np.sum(~flagged & weak)),
            tn=int(np.sum(~flagged & ~weak)),
        )

        def figures(draws: npt.NDArray[np.intp], flagged: npt.NDArray[np.bool_] = flagged) -> npt.NDArray[np.float64]:
            f, w = flagged[draws], weak[draws]
            hits = (f & w).sum(axis=1).astype(float)
            with np.errstate(divide="ignore", invalid="ignore"):
                return np.vstack([hits / f.sum(axis=1), hits / w.sum(axis=1)])

        resampled = bootstrap(len(marked), figures, 2, resamples=resamples, seed=seed)
        precision = (
            estimate(counts.tp / (counts.tp + counts.fp), None, resampled[0])
            if counts.tp + counts.fp
            else Estimate.undefined(Undefined.NO_FLAGS)
        )
        recall = (
            estimate(counts.tp / (counts.tp + counts.fn), None, resampled[1])
            if counts.tp + counts.fn
            else Estimate.undefined(Undefined.NO_WEAK_MARKS)
        )
        found.append(
            RuleAgreement(
                rule=rule.name,
                title=rule.title,
                confusion=counts,
                precision=precision,
                recall=recall,
            )
        )
    return tuple(found)
