"""What the reflection model reads in each arm: the metric's verdicts on a minibatch, treated by the arm.

Only the text the metric wrote changes between arms. The input, the output, the expected value and
the score of every case are the same, so a difference between arms is the feedback's doing.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..sandboxed import Verdict
from .config import Arm

SCORE_ONLY_FEEDBACK = "This trajectory got a score of {score}."
"""What the reflection reads in place of feedback in the score-only arm: DSPy GEPA's own sentence for a metric
that returns a bare number. It is sent to the model, so it stays English like the rest of GEPA's prompt."""


def treated(arm: Arm, verdicts: Sequence[Verdict], order: Sequence[int] | None = None) -> list[Verdict]:
    """The verdicts as ``arm`` shows them to the reflection model, in the same order.

    ``order`` is the round's derangement, which only the shuffled arm uses (case ``i`` reads what the
    metric said about case ``order[i]``).
    """
    if arm is Arm.FEEDBACK:
        return list(verdicts)
    if arm is Arm.SCORE_ONLY:
        return [Verdict(v.score, SCORE_ONLY_FEEDBACK.format(score=v.score), ok=v.ok) for v in verdicts]
    if order is None or sorted(order) != list(range(len(verdicts))):
        raise ValueError("the shuffled arm needs a permutation of the minibatch")
    return [
        Verdict(v.score, verdicts[other].feedback, dict(v.scores), dict(verdicts[other].extra), v.ok)
        for v, other in zip(verdicts, order, strict=True)
    ]
