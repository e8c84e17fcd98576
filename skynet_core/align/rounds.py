"""The rounds of GEPA's loop as an alignment reports them, recorded from GEPA's callbacks and the proposer.

GEPA's events of a round: it starts, samples a train minibatch, skips it when the current prompts agree with
people on every case of it, or asks for a proposal; a proposal that does better on the minibatch is scored on dev
and joins the pool, another is rejected. This recorder keeps what each round did and the best candidate on dev so
far (the highest objective; the earlier one on a tie, so the starting prompts win over an equal proposal).
Callbacks never raise (GEPA would only log it).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..i18n import _
from .result import RoundRecord

DevPoint = Callable[[Mapping[str, str]], tuple[float, float | None]]
"""A candidate's objective and κ on dev (it was scored there already)."""


@dataclass
class _Open:
    """The round being recorded."""

    round: int
    minibatch: tuple[str, ...] = ()
    proposed: dict[str, str] = field(default_factory=dict)
    accepted: bool = False
    dev: float | None = None
    dev_kappa: float | None = None
    notes: list[str] = field(default_factory=list)


class Rounds:
    """GEPA callbacks that record each round (:attr:`records`) and the best candidate on dev (:attr:`best_texts`)."""

    def __init__(self, train: Sequence[str], dev_point: DevPoint) -> None:
        self.train = tuple(train)
        self.dev_point = dev_point
        self.records: list[RoundRecord] = []
        self.best_texts: dict[str, str] | None = None
        self.best = float("-inf")
        self.start: float | None = None
        self._open: _Open | None = None

    def note(self, text: str) -> None:
        if self._open is not None and text not in self._open.notes:
            self._open.notes.append(text)

    def proposed(self, texts: Mapping[str, str]) -> None:
        if self._open is not None:
            self._open.proposed.update(texts)

    def on_iteration_start(self, event: Mapping[str, Any]) -> None:
        self._open = _Open(int(event["iteration"]))

    def on_minibatch_sampled(self, event: Mapping[str, Any]) -> None:
        if self._open is not None:
            ids = event.get("minibatch_ids") or []
            self._open.minibatch = tuple(self.train[i] for i in ids if isinstance(i, int) and 0 <= i < len(self.train))

    def on_evaluation_skipped(self, event: Mapping[str, Any]) -> None:
        if event.get("reason") == "all_scores_perfect":
            self.note(_("The current prompts agree with people on every case of the minibatch: nothing to learn."))

    def on_candidate_rejected(self, event: Mapping[str, Any]) -> None:
        size = max(1, len(self._open.minibatch) if self._open is not None else 1)  # GEPA gives sums over it
        self.note(
            _(
                "The proposal did no better than its parent on the minibatch (objective {new:.2f} against {old:.2f})."
            ).format(new=float(event.get("new_score", 0.0)) / size, old=float(event.get("old_score", 0.0)) / size)
        )

    def on_valset_evaluated(self, event: Mapping[str, Any]) -> None:
        texts = dict(event["candidate"])
        value, kappa = self.dev_point(texts)
        if int(event["iteration"]) == 0:
            self.start = value
        elif self._open is not None:
            self._open.accepted, self._open.dev, self._open.dev_kappa = True, value, kappa
        if value > self.best:
            self.best, self.best_texts = value, texts

    def on_iteration_end(self, event: Mapping[str, Any]) -> None:
        current = self._open
        if current is None:
            return
        if not current.proposed and not current.notes:
            current.notes.append(_("Nothing was proposed."))
        notes = [] if current.accepted else current.notes
        best = self.best if self.best != float("-inf") else 0.0
        self.records.append(
            RoundRecord(
                current.round,
                current.minibatch,
                dict(current.proposed),
                current.accepted,
                current.dev,
                current.dev_kappa,
                best,
                " ".join(notes),
            )
        )
        self._open = None
