"""The case: one row of a dataset, as the metric sees it.

A case is what `score(input, output, expected)` is called with, plus what the
project knows about it (its id, split, candidate and recorded observation).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Observation:
    """What was measured when the artifact produced the output.

    Either value is ``None`` when it was not measured; the reward then scores
    that part 0 and says so in the feedback (contract Part B rule 9).
    """

    latency_ms: float | None = None
    cost_usd: float | None = None

    def to_json(self) -> dict[str, float | None]:
        return {"latency_ms": self.latency_ms, "cost_usd": self.cost_usd}


@dataclass(frozen=True)
class Case:
    """One case to score.

    - ``input``: a dict of input fields (never ``None``).
    - ``output``: any JSON value, what ``run(artifact, input)`` returned.
    - ``expected``: a dict keyed by output column names, or ``None``.
    - ``split``: ``train``, ``val`` or ``test`` (or a name from a ``split`` column).
    - ``candidate``: which candidate produced ``output``; ``""`` when there is one.
    - ``human``: a person's score of this output from the data file (a ``human`` column), on the
      metric's scale (pass 1.0, fail 0.0); ``None`` when the file has none. Never sent to the metric.
    """

    id: str
    input: dict[str, Any]
    output: Any
    expected: dict[str, Any] | None = None
    split: str = "train"
    observation: Observation = field(default_factory=Observation)
    candidate: str = ""
    human: float | None = None

    def call_payload(self) -> dict[str, Any]:
        """The JSON the isolated child needs to call ``score`` on this case."""
        observation = self.observation
        return {
            "id": self.id,
            "input": self.input,
            "output": self.output,
            "expected": self.expected,
            "observation": {"latency_ms": observation.latency_ms, "cost_usd": observation.cost_usd},
        }
