"""One perturbation's cases, scored before and after, made into its :class:`~.verdict.PerturbationResult`."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..cases import Case
from ..engines.uplift.stats import Interval
from ..results import CaseResult
from ..results.trace import clip_text
from .perturbations import Family
from .stats import mean_change, mean_changes
from .verdict import EXAMPLES, Example, PerturbationResult, eligible, violates

SHOWN_CHARS = 2_000
"""The most characters of an output or a feedback an example keeps (its head and tail)."""


@dataclass(frozen=True, slots=True)
class Pair:
    """One case of a perturbation: the case (its output as it was), the perturbed output, and the metric's results
    on both; ``position`` is the case's place in the run (the same for each of its perturbations). ``before``
    scored (the run leaves out cases whose own output failed); ``after`` may have failed."""

    case: Case
    output: Any
    before: CaseResult
    after: CaseResult
    position: int = 0

    @property
    def scored(self) -> bool:
        return self.after.ok and self.after.score is not None

    @property
    def change(self) -> float:
        return (self.after.score or 0.0) - (self.before.score or 0.0)


def measure(
    perturbation: str, family: Family, pairs: Sequence[Pair], seed: int = 0, change: Interval | None = None
) -> PerturbationResult:
    """What ``perturbation`` did over ``pairs`` (the cases it changed): counts, violations, the mean change with
    its interval (``change`` when the run resampled every perturbation at once: :func:`changes`), and the
    examples (violating ones first, the largest change first)."""
    scored = [pair for pair in pairs if pair.scored]
    befores = [pair.before.score or 0.0 for pair in scored]
    can = [eligible(family, before) for before in befores]
    bad = [violates(family, before, pair.after.score or 0.0) for before, pair in zip(befores, scored, strict=True)]
    ranked = sorted(range(len(scored)), key=lambda i: (not bad[i], -abs(scored[i].change)))
    return PerturbationResult(
        perturbation,
        family,
        n=len(scored),
        eligible=sum(can),
        violations=sum(bad),
        mean_change=change if change is not None else mean_change([pair.change for pair in scored], seed),
        examples=tuple(example(scored[i], bad[i]) for i in ranked[:EXAMPLES]),
        errors=len(pairs) - len(scored),
    )


def changes(runs: Sequence[Sequence[Pair]], cases: int, seed: int = 0) -> list[Interval]:
    """The mean change of each perturbation's ``runs`` of pairs over a run of ``cases`` cases, resampled together."""
    rows: list[list[float | None]] = []
    for pairs in runs:
        row: list[float | None] = [None] * cases
        for pair in pairs:
            if pair.scored:
                row[pair.position] = pair.change
        rows.append(row)
    return mean_changes(rows, seed)


def example(pair: Pair, bad: bool) -> Example:
    """``pair`` as a person reads it, its texts clipped."""
    return Example(
        pair.case.id,
        shown(pair.case.output),
        shown(pair.output),
        pair.before.score or 0.0,
        pair.after.score or 0.0,
        clip_text(pair.before.feedback, SHOWN_CHARS)[0],
        clip_text(pair.after.feedback, SHOWN_CHARS)[0],
        bad,
    )


def shown(output: Any) -> str:
    """An output as text (an object as its JSON), its head and tail kept past :data:`SHOWN_CHARS`."""
    text = output if isinstance(output, str) else json.dumps(output, ensure_ascii=False, default=str)
    return clip_text(text, SHOWN_CHARS, SHOWN_CHARS * 3 // 4)[0]


SPACE, NEWLINE, TAB = "·", "⏎", "→"


def marked(before: str, after: str) -> tuple[str, str]:
    """``before`` and ``after`` as a person compares them: when they differ only in whitespace, each space, newline
    and tab made visible (a box of text would show two equal-looking outputs); else as they are."""
    if before == after or before.split() != after.split():
        return before, after
    table = str.maketrans({" ": SPACE, "\n": NEWLINE + "\n", "\t": TAB})
    return before.translate(table), after.translate(table)
