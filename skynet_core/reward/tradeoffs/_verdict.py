"""Who wins, as the page shows it: the winner under the weights and how firm the win is."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from skynet_core.reward.parts import validate_reward_spec

from ._stability import Stability, rank_stability
from ._summary import CandidateData, CandidateSummary
from ._winners import WinnerChange, WinnerMap, nearest_change, winner_map


@dataclass(frozen=True, eq=False)
class Verdict:
    """Who wins at the current weights, and how firmly: what the page's "Who wins" section shows.

    ``grid`` is the winner map (``None`` when it cannot be drawn: ``grid_problem`` says why); ``change``
    the nearest weights where another candidate wins (``None`` without a map); ``winner`` indexes the
    summary's names: the map's winner at these weights when there is a map, else the summary's (the two
    agree but for ties); ``stability`` the ranking under perturbed weights and references.
    """

    winner: int
    grid: WinnerMap | None
    grid_problem: str
    change: WinnerChange | None
    stability: Stability


def who_wins(
    candidates: Sequence[CandidateData],
    summary: CandidateSummary,
    spec: Any,
    *,
    step: float = 0.02,
    perturbations: int = 200,
    spread: float = 0.10,
) -> Verdict:
    """The :class:`Verdict` for ``candidates`` under ``spec`` (``summary``: :func:`summarize` of them)."""
    norm = validate_reward_spec(spec)
    try:
        grid, problem = winner_map(summary, step), ""
    except ValueError as exc:
        grid, problem = None, str(exc)
    change = nearest_change(summary, grid, norm.weights) if grid is not None else None
    winner = change.winner if change is not None else summary.winner
    stability = rank_stability(candidates, norm, n=perturbations, spread=spread)
    return Verdict(winner, grid, problem, change, stability)
