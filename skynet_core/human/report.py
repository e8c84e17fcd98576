"""The agreement report: what the metric's scores and a person's scores have in common, as one typed value."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from .estimate import Estimate

DEFAULT_THRESHOLD = 0.5
FEW_CASES = 30
"""Below this many labelled cases the report warns that its intervals are wide."""
MIN_LABELLED = 10
"""The fewest labelled cases an interval is drawn from and a gate (``--min-kappa``, ``--min-spearman``) passes on."""
UNKNOWN_KEPT = 20
"""The ids of labels not among the scored cases a report keeps (and the JSON lists); the rest are counted."""
JSON_DISAGREEMENTS = 20
"""The command line's JSON lists at most this many disagreements."""


@dataclass(frozen=True)
class Confusion:
    """Counts of cases at a pass threshold; positive = at or above it.

    ``tp``: both pass; ``fp``: the metric passes, the person fails (a false pass, what an optimizer
    exploits); ``fn``: the metric fails, the person passes; ``tn``: both fail.
    """

    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.fn + self.tn

    def to_json(self) -> dict[str, int]:
        return {"tp": self.tp, "fp": self.fp, "fn": self.fn, "tn": self.tn}

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> Confusion:
        return cls(int(data["tp"]), int(data["fp"]), int(data["fn"]), int(data["tn"]))


@dataclass(frozen=True)
class Disagreement:
    """A labelled case where the metric's score and the person's differ: ``gap`` = ``|score - human|`` > 0.
    ``false_pass``: the metric passes it and the person fails it; ``false_fail``: the reverse."""

    id: str
    score: float
    human: float
    gap: float
    false_pass: bool = False
    false_fail: bool = False

    def to_json(self) -> dict[str, Any]:
        """The command line's form: ``{"id", "score", "human", "gap"}``."""
        return {"id": self.id, "score": self.score, "human": self.human, "gap": self.gap}


def by_gap(disagreements: tuple[Disagreement, ...]) -> list[Disagreement]:
    """Largest gap first; at equal gaps false passes first, then by id."""
    return sorted(disagreements, key=lambda item: (-item.gap, not item.false_pass, item.id))


@dataclass(frozen=True)
class Agreement:
    """How well the metric's scores agree with people's on the labelled cases of one run.

    Invariants:

    - ``n`` cases had both a human score and an ``ok`` score; every figure is computed on them.
      ``unlabelled`` cases of the run had no human score; ``unknown`` are the first :data:`UNKNOWN_KEPT` ids
      of human scores not among the run's cases and ``unknown_count`` counts them all; ``unscored`` are
      labelled cases the metric did not score.
    - Each figure is an :class:`Estimate` with its 95% percentile bootstrap interval over the
      ``n`` cases (``resamples`` resamples, ``seed``): the same data gives the same report.
    - ``spearman`` (ρ), ``kendall`` (τ-b) and ``pearson`` (r) lie in [-1, 1]; ``mae`` is the mean of
      ``|score - human|``; ``kappa`` is Cohen's κ of pass/fail at ``threshold`` (positive = at or above
      it); ``true_pass_rate`` = tp / (tp + fn), ``true_fail_rate`` = tn / (tn + fp).
    - ``named`` maps each named score (in order of first appearance) to its Spearman ρ with the
      human score, over the labelled cases that have it.
    - ``disagreements`` are the cases with a gap above 0, false passes first, then the largest gap.
    """

    n: int
    unlabelled: int
    unknown: tuple[str, ...]
    threshold: float
    spearman: Estimate
    kendall: Estimate
    pearson: Estimate
    mae: Estimate
    kappa: Estimate
    true_pass_rate: Estimate
    true_fail_rate: Estimate
    confusion: Confusion
    disagreements: tuple[Disagreement, ...] = ()
    named: tuple[tuple[str, Estimate], ...] = ()
    unscored: tuple[str, ...] = ()
    resamples: int = 0
    seed: int = 0
    unknown_count: int = 0

    @property
    def few(self) -> bool:
        """Fewer than :data:`FEW_CASES` labelled cases: the figures are rough."""
        return self.n < FEW_CASES

    @property
    def false_passes(self) -> tuple[Disagreement, ...]:
        return tuple(item for item in self.disagreements if item.false_pass)

    def named_spearman(self) -> dict[str, Estimate]:
        return dict(self.named)

    def figure(self, name: str) -> Estimate:
        """A figure by its JSON name (``spearman``, ``kendall``, ``pearson``, ``mae``, ``kappa``,
        ``true_pass_rate``, ``true_fail_rate``)."""
        if name not in FIGURES:
            raise KeyError(name)
        value: Estimate = getattr(self, name)
        return value

    @property
    def unknown_total(self) -> int:
        """How many labels are not among the run's cases (a report kept before the count existed: its list)."""
        return max(self.unknown_count, len(self.unknown))

    def to_json(self, limit: int = JSON_DISAGREEMENTS) -> dict[str, Any]:
        """The command line's ``"agreement"`` object: ``n``, ``unlabelled``, ``unknown`` (at most
        :data:`UNKNOWN_KEPT` ids) and ``unknown_count``, ``threshold``, the figures as ``{"value", "low",
        "high"}`` (with ``"reason"`` when undefined), ``confusion`` and the ``limit`` largest ``disagreements``,
        largest gap first."""
        return {
            "n": self.n,
            "unlabelled": self.unlabelled,
            "unknown": list(self.unknown),
            "unknown_count": self.unknown_total,
            "threshold": self.threshold,
            "spearman": self.spearman.to_json(),
            "kendall": self.kendall.to_json(),
            "pearson": self.pearson.to_json(),
            "mae": self.mae.to_json(),
            "kappa": self.kappa.to_json(),
            "confusion": self.confusion.to_json(),
            "disagreements": [item.to_json() for item in by_gap(self.disagreements)[:limit]],
        }

    def to_record(self) -> dict[str, Any]:
        """Everything, as JSON, for keeping beside a run (:meth:`from_record` reads it back)."""
        return {
            **self.to_json(limit=len(self.disagreements)),
            "true_pass_rate": self.true_pass_rate.to_json(),
            "true_fail_rate": self.true_fail_rate.to_json(),
            "disagreements": [
                {**item.to_json(), "false_pass": item.false_pass, "false_fail": item.false_fail}
                for item in self.disagreements
            ],
            "named": [[name, value.to_json()] for name, value in self.named],
            "unscored": list(self.unscored),
            "resamples": self.resamples,
            "seed": self.seed,
        }

    @classmethod
    def from_record(cls, data: Mapping[str, Any]) -> Agreement:
        return cls(
            n=int(data["n"]),
            unlabelled=int(data["unlabelled"]),
            unknown=tuple(data.get("unknown") or ()),
            threshold=float(data["threshold"]),
            **{name: Estimate.from_json(data[name]) for name in FIGURES},
            confusion=Confusion.from_json(data["confusion"]),
            disagreements=tuple(
                Disagreement(
                    str(item["id"]),
                    float(item["score"]),
                    float(item["human"]),
                    float(item["gap"]),
                    bool(item.get("false_pass")),
                    bool(item.get("false_fail")),
                )
                for item in data.get("disagreements") or ()
            ),
            named=tuple((str(name), Estimate.from_json(value)) for name, value in data.get("named") or ()),
            unscored=tuple(data.get("unscored") or ()),
            resamples=int(data.get("resamples") or 0),
            seed=int(data.get("seed") or 0),
            unknown_count=int(data.get("unknown_count") or 0),
        )


FIGURES = ("spearman", "kendall", "pearson", "mae", "kappa", "true_pass_rate", "true_fail_rate")
"""The report's figures by their JSON names, in the order they are shown."""
